import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { z } from 'zod';

/** Asset groups: by network ranges, domain or regex; rule sets apply to them. */
export const serviceAssetGroups: ResourceDef = {
  name: 'service_asset_groups',
  table: 'service_asset_groups',
  title: { en: 'Asset groups', ru: 'Группы активов' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    network_ranges: f.arr({ schema: z.array(z.string()), default: [] }),
    domain: f.str(),
    itsm_synced: f.bool({ default: false }),
    regex: f.str(),
    subject_id: f.str(),
    object_id: f.str(),
    is_kii: f.bool({ default: false }),
    is_fincert: f.bool({ default: false }),
    responsible_person: f.str(),
    technical_specialist: f.str(),
    system_id: f.str(),
    responsible_group_id: f.ref('responsible_groups'),
    edited_by: f.str(),
  },
  relations: {
    responsible_group: rel.belongsTo('responsible_groups', 'responsible_group_id'),
    service_assets: rel.manyToMany('service_assets', 'service_asset_group_members', 'service_asset_group_id', 'service_asset_id'),
    rule_sets: rel.manyToMany('rule_sets', 'rule_set_asset_groups', 'service_asset_group_id', 'rule_set_id'),
    engine_go_results: rel.manyToMany('engine_go_results', 'engine_go_result_asset_groups', 'service_asset_group_id', 'engine_go_result_id'),
  },
};
