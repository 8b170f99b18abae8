import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Rule modules: shared Lua code. */
export const engineGoModules: ResourceDef = {
  name: K.engineGoModule,
  table: K.engineGoModule,
  title: { en: 'Rule modules', ru: 'Модули правил' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    content: f.str(),
    is_system: f.bool({ default: false }),
  },
  relations: {
    [K.engineGoRule]: rel.manyToMany(K.engineGoRule, 'engine_go_rule_modules', 'engine_go_module_id', 'engine_go_rule_id'),
  },
};
