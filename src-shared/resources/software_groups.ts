import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Software groups (platform 3.7.0+), a tree through parent_id (contract.md §3). */
export const softwareGroups: ResourceDef = {
  name: K.softwareGroup,
  table: K.softwareGroup,
  title: { en: 'Software groups', ru: 'Группы ПО' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true, unique: true, maxLength: 250 }),
    description: f.str(),
    parent_id: f.ref(K.softwareGroup),
  },
  relations: {
    parent: rel.belongsTo(K.softwareGroup, 'parent_id'),
    [K.softwareItem]: rel.hasMany(K.softwareItem, 'software_group_id'),
    [K.engineGoRule]: rel.manyToMany(K.engineGoRule, 'software_group_engine_go_rules', 'software_group_id', 'engine_go_rule_id'),
  },
  tree: { parent: 'parent_id' },
};
