import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Integration scripts (commands) that active actions run. */
export const integrationScripts: ResourceDef = {
  name: K.integrationScript,
  table: K.integrationScript,
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
    [K.integrationAction]: rel.hasMany(K.integrationAction, 'integration_script_id'),
  },
};
