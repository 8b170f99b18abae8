import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { assetInfoSchema } from '../schemas/correlation';

/** Rule results: what a correlation rule produced from an event. */
export const engineGoResults: ResourceDef = {
  name: 'engine_go_results',
  table: 'engine_go_results',
  title: { en: 'Rule results', ru: 'Результаты правил' },
  label: 'analysis_output',
  fields: {
    rule_id: f.ref('engine_go_rules', 'cascade'),
    analysis_output: f.str(),
    event: f.obj(),
    compressed_event: f.str({ searchable: false }),
    risklevel: f.num({ min: 0, max: 10 }),
    occurred_at: f.ts({ index: true }),
    occurrence_id: f.ref('occurrences'),
    error: f.str(),
    service_asset_id: f.ref('service_assets'),
    asset_info: f.obj({ schema: assetInfoSchema }),
    incident_identifier: f.str(),
    metadata: f.str(),
  },
  relations: {
    rule: rel.belongsTo('engine_go_rules', 'rule_id'),
    occurrence: rel.belongsTo('occurrences', 'occurrence_id'),
    service_asset: rel.belongsTo('service_assets', 'service_asset_id'),
    service_asset_groups: rel.manyToMany('service_asset_groups', 'engine_go_result_asset_groups', 'engine_go_result_id', 'service_asset_group_id'),
  },
};
