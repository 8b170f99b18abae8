import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { assetInfoSchema } from '../schemas/correlation';
import { K } from './kinds';

/** Rule results: what a correlation rule produced from an event. */
export const engineGoResults: ResourceDef = {
  name: K.engineGoResult,
  table: K.engineGoResult,
  title: { en: 'Rule results', ru: 'Результаты правил' },
  label: 'analysis_output',
  fields: {
    rule_id: f.ref(K.engineGoRule, 'cascade'),
    analysis_output: f.str(),
    event: f.obj(),
    compressed_event: f.str({ searchable: false }),
    risklevel: f.num({ min: 0, max: 10 }),
    occurred_at: f.ts({ index: true }),
    occurrence_id: f.ref(K.occurrence),
    error: f.str(),
    service_asset_id: f.ref(K.serviceAsset),
    asset_info: f.obj({ schema: assetInfoSchema }),
    incident_identifier: f.str(),
    metadata: f.str(),
  },
  relations: {
    rule: rel.belongsTo(K.engineGoRule, 'rule_id'),
    occurrence: rel.belongsTo(K.occurrence, 'occurrence_id'),
    service_asset: rel.belongsTo(K.serviceAsset, 'service_asset_id'),
    [K.serviceAssetGroup]: rel.manyToMany(K.serviceAssetGroup, 'engine_go_result_asset_groups', 'engine_go_result_id', 'service_asset_group_id'),
  },
};
