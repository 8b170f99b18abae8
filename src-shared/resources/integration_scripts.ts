import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Integration scripts (commands) that active actions run. */
export const integrationScripts: ResourceDef = {
  name: 'integration_scripts',
  table: 'integration_scripts',
  title: { en: 'Integration scripts', ru: 'Интеграционные сценарии' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true, unique: true, maxLength: 250 }),
    description: f.str(),
    command: f.str(),
    parameters: f.arr({ schema: z.array(z.string()), default: [], description: 'names of the parameters it takes' }),
    enabled: f.bool({ default: true }),
  },
  relations: {
    engine_go_rules_integration_actions: rel.hasMany('engine_go_rules_integration_actions', 'integration_script_id'),
  },
};
