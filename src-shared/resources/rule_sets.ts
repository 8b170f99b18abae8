import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Rule sets: groups of correlation and compliance rules applied to asset groups. */
export const ruleSets: ResourceDef = {
  name: K.ruleSet,
  table: K.ruleSet,
  title: { en: 'Rule sets', ru: 'Наборы правил' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    create_service_asset_findings: f.bool({ default: false }),
  },
  relations: {
    [K.engineGoRule]: rel.manyToMany(K.engineGoRule, 'engine_go_rule_rule_sets', 'rule_set_id', 'engine_go_rule_id'),
    [K.rule]: rel.manyToMany(K.rule, 'rule_set_rules', 'rule_set_id', 'rule_id'),
    [K.serviceAssetGroup]: rel.manyToMany(K.serviceAssetGroup, 'rule_set_asset_groups', 'rule_set_id', 'service_asset_group_id'),
  },
};
