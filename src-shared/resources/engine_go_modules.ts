import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Rule modules: shared Lua code. */
export const engineGoModules: ResourceDef = {
  name: 'engine_go_modules',
  table: 'engine_go_modules',
  title: { en: 'Rule modules', ru: 'Модули правил' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    content: f.str(),
    is_system: f.bool({ default: false }),
  },
  relations: {
    engine_go_rules: rel.manyToMany('engine_go_rules', 'engine_go_rule_modules', 'engine_go_module_id', 'engine_go_rule_id'),
  },
};
