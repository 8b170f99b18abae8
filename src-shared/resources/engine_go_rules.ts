import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { frontendDataSchema, ruleSettingsSchema, ruleStatsSchema } from '../schemas/correlation';
import { z } from 'zod';

/** Correlation rules (vendor name logmule_go_rules). */
export const engineGoRules: ResourceDef = {
  name: 'engine_go_rules',
  table: 'engine_go_rules',
  title: { en: 'Correlation rules', ru: 'Правила корреляции' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    frontend_data: f.obj({ schema: frontendDataSchema }),
    test_data: f.arr({ schema: z.array(z.looseObject({})), default: [] }),
    settings: f.obj({ schema: ruleSettingsSchema }),
    active: f.bool({ default: false }),
    reload: f.bool({ description: 'the rule must be reloaded after an update; set by every write, cleared by the reload search' }),
    finding_id: f.ref('findings'),
    content_folder_id: f.uuid(),
    description: f.str(),
    lua: f.str(),
    is_retro: f.bool({ default: false }),
    is_system: f.bool({ default: false }),
    stats: f.obj({ schema: ruleStatsSchema }),
    is_error: f.int({ default: 0 }),
    running_at: f.ts(),
  },
  hooks: {
    // A rule must be reloaded after any change (spec: `reload`), unless the write sets the flag itself.
    beforeWrite(values) {
      if (values.reload === undefined) values.reload = true;
    },
  },
  relations: {
    finding: rel.belongsTo('findings', 'finding_id'),
    engine_go_filters: rel.manyToMany('engine_go_filters', 'engine_go_rule_filters', 'engine_go_rule_id', 'engine_go_filter_id'),
    engine_go_modules: rel.manyToMany('engine_go_modules', 'engine_go_rule_modules', 'engine_go_rule_id', 'engine_go_module_id'),
    engine_go_results: rel.hasMany('engine_go_results', 'rule_id'),
    rule_sets: rel.manyToMany('rule_sets', 'engine_go_rule_rule_sets', 'engine_go_rule_id', 'rule_set_id'),
    service_asset_findings: rel.manyToMany('service_asset_findings', 'engine_go_rule_incidents', 'engine_go_rule_id', 'service_asset_finding_id'),
    value_stores: rel.manyToMany('value_stores', 'engine_go_rule_value_stores', 'engine_go_rule_id', 'value_store_id'),
    software_groups: rel.manyToMany('software_groups', 'software_group_engine_go_rules', 'engine_go_rule_id', 'software_group_id'),
    integration_actions: rel.hasMany('engine_go_rules_integration_actions', 'rule_id'),
  },
  indexes: [['active', 'name']],
};
