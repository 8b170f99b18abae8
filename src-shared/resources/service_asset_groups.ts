import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { z } from 'zod';
import { K } from './kinds';

/** Asset groups: by network ranges, domain or regex; rule sets apply to them. */
export const serviceAssetGroups: ResourceDef = {
  name: K.serviceAssetGroup,
  table: K.serviceAssetGroup,
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
    responsible_group_id: f.ref(K.responsibleGroup),
    edited_by: f.str(),
  },
  relations: {
    responsible_group: rel.belongsTo(K.responsibleGroup, 'responsible_group_id'),
    [K.serviceAsset]: rel.manyToMany(K.serviceAsset, 'service_asset_group_members', 'service_asset_group_id', 'service_asset_id'),
    [K.ruleSet]: rel.manyToMany(K.ruleSet, 'rule_set_asset_groups', 'service_asset_group_id', 'rule_set_id'),
    [K.engineGoResult]: rel.manyToMany(K.engineGoResult, 'engine_go_result_asset_groups', 'service_asset_group_id', 'engine_go_result_id'),
  },
};
