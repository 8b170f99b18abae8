import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { frontendDataSchema, ruleSettingsSchema, ruleStatsSchema } from '../schemas/correlation';
import { z } from 'zod';
import { K } from './kinds';

/** Correlation rules (vendor name logmule_go_rules). */
export const engineGoRules: ResourceDef = {
  name: K.engineGoRule,
  table: K.engineGoRule,
  title: { en: 'Correlation rules', ru: 'Правила корреляции' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    frontend_data: f.obj({ schema: frontendDataSchema }),
    test_data: f.arr({ schema: z.array(z.looseObject({})), default: [] }),
    settings: f.obj({ schema: ruleSettingsSchema }),
    active: f.bool({ default: false }),
    reload: f.bool({ description: 'the rule must be reloaded after an update; set by every write, cleared by the reload search' }),
    finding_id: f.ref(K.finding),
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
    finding: rel.belongsTo(K.finding, 'finding_id'),
    [K.engineGoFilter]: rel.manyToMany(K.engineGoFilter, 'engine_go_rule_filters', 'engine_go_rule_id', 'engine_go_filter_id'),
    [K.engineGoModule]: rel.manyToMany(K.engineGoModule, 'engine_go_rule_modules', 'engine_go_rule_id', 'engine_go_module_id'),
    [K.engineGoResult]: rel.hasMany(K.engineGoResult, 'rule_id'),
    [K.ruleSet]: rel.manyToMany(K.ruleSet, 'engine_go_rule_rule_sets', 'engine_go_rule_id', 'rule_set_id'),
    [K.incident]: rel.manyToMany(K.incident, 'engine_go_rule_incidents', 'engine_go_rule_id', 'service_asset_finding_id'),
    [K.valueStore]: rel.manyToMany(K.valueStore, 'engine_go_rule_value_stores', 'engine_go_rule_id', 'value_store_id'),
    [K.softwareGroup]: rel.manyToMany(K.softwareGroup, 'software_group_engine_go_rules', 'engine_go_rule_id', 'software_group_id'),
    integration_actions: rel.hasMany(K.integrationAction, 'rule_id'),
  },
  indexes: [['active', 'name']],
};
