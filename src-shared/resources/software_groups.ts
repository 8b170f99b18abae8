import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Software groups (platform 3.7.0+), a tree through parent_id (contract.md §3). */
export const softwareGroups: ResourceDef = {
  name: 'software_groups',
  table: 'software_groups',
  title: { en: 'Software groups', ru: 'Группы ПО' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true, unique: true, maxLength: 250 }),
    description: f.str(),
    parent_id: f.ref('software_groups'),
  },
  relations: {
    parent: rel.belongsTo('software_groups', 'parent_id'),
    software: rel.hasMany('software', 'software_group_id'),
    engine_go_rules: rel.manyToMany('engine_go_rules', 'software_group_engine_go_rules', 'software_group_id', 'engine_go_rule_id'),
  },
  tree: { parent: 'parent_id' },
};
