import { f, INCIDENT_STATUSES, RISK_BANDS, rel, riskBand, STATUS_RANK_SQL } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Incidents (spec: Incident record). `risk` follows `risklevel` by the CVSS bands unless given. */
export const serviceAssetFindings: ResourceDef = {
  name: K.incident,
  table: K.incident,
  aliases: ['incidents'],
  title: { en: 'Incidents', ru: 'Инциденты' },
  label: 'title',
  fields: {
    trace_id: f.str(),
    description: f.str(),
    risk_impact: f.str(),
    solution: f.str(),
    mitigation: f.str(),
    status: f.str({ enum: INCIDENT_STATUSES, notNull: true, default: 'new' }),
    risklevel: f.num({ min: 0, max: 10, notNull: true, default: 0 }),
    service_asset_id: f.ref(K.serviceAsset, 'restrict'),
    finding_id: f.ref(K.finding, 'restrict'),
    analysis_output: f.str(),
    synopsis: f.str(),
    title: f.str(),
    risk: f.str({ enum: RISK_BANDS }),
    acknowledged_at: f.ts(),
    alert_type: f.str(),
    client_note: f.str(),
    internal_note: f.str(),
    external: f.bool({ default: false }),
    immediate_action_score: f.num(),
    throughput_period: f.str(),
    throughput_period_change: f.ts(),
    customer_created: f.bool({ default: false }),
    c_visible_since: f.ts(),
    c_visible_since_in_days: f.int(),
    c_reopened_count: f.int({ default: 0 }),
    c_last_customer_status_change: f.ts(),
    logmule_identifier: f.str(),
    c_remote_exploitable: f.bool({ default: false }),
    c_occurrence_count: f.int({ default: 0 }),
    // The platform spells this field with a Cyrillic "с" first (spec: Incident record).
    с_customer_retention_time: f.int(),
    last_occurrence_id: f.ref(K.occurrence),
    itsm_last_synced_at: f.ts(),
    itsm_sync_status: f.str(),
    external_id: f.int(),
    itsm_sync_error: f.str(),
    user_id: f.str(),
    updated_by: f.str(),
    group_id: f.str(),
    acknowledged_by: f.str(),
    created_by_customer: f.str(),
    edited_by: f.str(),
    incident_group_id: f.str(),
    reopened_at: f.ts(),
    display_id: f.int({ sequence: true, unique: true }),
  },
  sortKeys: {
    status_rank: {
      sql: STATUS_RANK_SQL,
      description: `the status in workflow order (${INCIDENT_STATUSES.join(', ')}); \`status\` sorts the values as text`,
    },
  },
  relations: {
    service_asset: rel.belongsTo(K.serviceAsset, 'service_asset_id'),
    finding: rel.belongsTo(K.finding, 'finding_id'),
    last_occurrence: rel.belongsTo(K.occurrence, 'last_occurrence_id'),
    [K.occurrence]: rel.hasMany(K.occurrence, 'service_asset_finding_id'),
    status_changes: rel.hasMany(K.statusChange, 'service_asset_finding_id'),
    [K.message]: rel.hasMany(K.message, 'service_asset_finding_id'),
    [K.customFieldValue]: rel.hasMany(K.customFieldValue, 'service_asset_finding_id'),
    [K.engineGoRule]: rel.manyToMany(K.engineGoRule, 'engine_go_rule_incidents', 'service_asset_finding_id', 'engine_go_rule_id'),
  },
  hooks: {
    beforeWrite(values) {
      if (values.risklevel !== undefined && values.risklevel !== null && values.risk === undefined) {
        values.risk = riskBand(values.risklevel as number);
      }
    },
  },
  // Chosen for the triage paths: status with a time range and a risk bound, status by risk,
  // the newest first, per asset (the asset's computed counts and highest open risk), and the
  // status in workflow order (sort key status_rank) with the newest or oldest first. An asset's
  // or a finding type's incidents newest first, and their counts by day, status and risk band,
  // are read from the (asset | finding, created_at, status, risklevel) entries alone. An owner's
  // or a responsible group's incidents newest first come from (owner | group, created_at), and
  // the sort by title from (title). The titles of one status come from (status, title,
  // risklevel) alone: the number of titles in a grouping by title with a status (and a risk
  // band), its pages in title order, and with a risk band alone a read of that index instead of
  // the table.
  indexes: [
    ['status', 'created_at', 'risklevel'],
    ['status', 'risklevel', 'created_at'],
    ['risklevel', 'created_at'],
    ['created_at'],
    ['updated_at'],
    ['service_asset_id', 'status', 'risklevel'],
    ['status_rank', 'created_at'],
    ['service_asset_id', 'created_at', 'status', 'risklevel'],
    ['finding_id', 'created_at', 'status', 'risklevel'],
    ['user_id', 'created_at'],
    ['group_id', 'created_at'],
    ['title'],
    ['status', 'title', 'risklevel'],
  ],
};
