import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

export const OCCURRENCE_EVENT_TYPES = [
  'manual_source',
  'engine_go_result',
  'software_compliance_source',
  'vulnerability',
  'watchdog_result',
] as const;

/** Occurrences: each sighting of an incident (spec: Occurrence). */
export const occurrences: ResourceDef = {
  name: K.occurrence,
  table: K.occurrence,
  title: { en: 'Occurrences', ru: 'Срабатывания' },
  label: 'ip',
  fields: {
    event_type: f.str({ enum: OCCURRENCE_EVENT_TYPES, required: true }),
    ip: f.str({ index: true }),
    mac: f.str(),
    fqdn: f.str(),
    port: f.int({ min: 0, max: 65535 }),
    start_occurrence: f.str(),
    end_occurrence: f.str(),
    service_asset_finding_status_change_id: f.ref(K.statusChange),
    service_asset_finding_id: f.ref(K.incident, 'cascade'),
    incident_identifier: f.str(),
    fincert_sync_status: f.num(),
    fincert_id: f.str(),
    sopka_sync_status: f.num(),
    sopka_id: f.str(),
    fincert_sync_result: f.str(),
    sopka_sync_result: f.str(),
  },
  relations: {
    service_asset_finding: rel.belongsTo(K.incident, 'service_asset_finding_id'),
    service_asset_finding_status_change: rel.belongsTo(K.statusChange, 'service_asset_finding_status_change_id'),
    [K.engineGoResult]: rel.hasMany(K.engineGoResult, 'occurrence_id'),
    [K.vulnerability]: rel.hasMany(K.vulnerability, 'occurrence_id'),
  },
  indexes: [['service_asset_finding_id', 'created_at']],
};
