import { f, INCIDENT_STATUSES, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** One row per incident status change: who, when, from, to (contract.md §3). */
export const serviceAssetFindingStatusChanges: ResourceDef = {
  name: K.statusChange,
  table: K.statusChange,
  aliases: ['statuschanges'],
  title: { en: 'Status changes', ru: 'Изменения статуса' },
  label: 'status',
  fields: {
    service_asset_finding_id: f.ref(K.incident, 'cascade', { required: true, notNull: true }),
    status: f.str({ enum: INCIDENT_STATUSES, required: true, notNull: true }),
    previous_status: f.str({ enum: INCIDENT_STATUSES }),
    revisit_at: f.ts(),
    itsm_sync_status: f.str(),
    itsm_last_synced_at: f.ts(),
    itsm_sync_error: f.str(),
    user_id: f.str(),
  },
  relations: {
    service_asset_finding: rel.belongsTo(K.incident, 'service_asset_finding_id'),
    [K.occurrence]: rel.hasMany(K.occurrence, 'service_asset_finding_status_change_id'),
    [K.message]: rel.hasMany(K.message, 'service_asset_finding_status_change_id'),
  },
  indexes: [['service_asset_finding_id', 'created_at']],
};
