import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Rule sets: groups of correlation and compliance rules applied to asset groups. */
export const ruleSets: ResourceDef = {
  name: 'rule_sets',
  table: 'rule_sets',
  title: { en: 'Rule sets', ru: 'Наборы правил' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    create_service_asset_findings: f.bool({ default: false }),
  },
  relations: {
    engine_go_rules: rel.manyToMany('engine_go_rules', 'engine_go_rule_rule_sets', 'rule_set_id', 'engine_go_rule_id'),
    rules: rel.manyToMany('rules', 'rule_set_rules', 'rule_set_id', 'rule_id'),
    service_asset_groups: rel.manyToMany('service_asset_groups', 'rule_set_asset_groups', 'rule_set_id', 'service_asset_group_id'),
  },
};
