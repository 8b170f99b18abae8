import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { integrationParamSchema } from '../schemas/correlation';
import { K } from './kinds';

/** Active actions of correlation rules: an integration script run with parameters. */
export const engineGoRulesIntegrationActions: ResourceDef = {
  name: K.integrationAction,
  table: K.integrationAction,
  title: { en: 'Rule active actions', ru: 'Активные действия правил' },
  label: 'rule_id',
  fields: {
    rule_id: f.ref(K.engineGoRule, 'cascade', { required: true, notNull: true }),
    integration_script_id: f.ref(K.integrationScript, 'restrict', { required: true, notNull: true }),
    params: f.arr({ schema: z.array(integrationParamSchema), required: true, default: [] }),
    state: f.bool({ required: true, notNull: true, default: true }),
    user_id: f.uuid({ readOnly: true, description: 'the Pgr-User-Id that created the action' }),
  },
  relations: {
    rule: rel.belongsTo(K.engineGoRule, 'rule_id'),
    integration_script: rel.belongsTo(K.integrationScript, 'integration_script_id'),
  },
};
