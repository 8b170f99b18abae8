// ServiceAssetFindingDBFields: the body of POST {master_host}:9009/data/v1/create, the incident's
// fields in upper camel case (spec: Public API v1). Time fields are time values (RFC 3339);
// Go's zero values (0001-01-01T00:00:00Z, "") mean "not set".
import { z } from 'zod';
import { INCIDENT_STATUSES, RISK_BANDS } from '../resources/fields';
import { normalizeTs } from '../time';
import { UUID_RE } from '../schemas/common';

type Kind = 'string' | 'uuid' | 'time' | 'bool' | 'int' | 'float' | 'status' | 'risk';

/** Upper camel case name → incident field and type. */
export const DB_FIELDS: Readonly<Record<string, readonly [string, Kind]>> = {
  Id: ['id', 'uuid'],
  Description: ['description', 'string'],
  RiskImpact: ['risk_impact', 'string'],
  Solution: ['solution', 'string'],
  Mitigation: ['mitigation', 'string'],
  Status: ['status', 'status'],
  Risklevel: ['risklevel', 'float'],
  ServiceAssetId: ['service_asset_id', 'uuid'],
  CreatedAt: ['created_at', 'time'],
  ReopenedAt: ['reopened_at', 'time'],
  UpdatedAt: ['updated_at', 'time'],
  FindingId: ['finding_id', 'uuid'],
  AnalysisOutput: ['analysis_output', 'string'],
  Synopsis: ['synopsis', 'string'],
  Title: ['title', 'string'],
  Risk: ['risk', 'risk'],
  AcknowledgedAt: ['acknowledged_at', 'time'],
  AlertType: ['alert_type', 'string'],
  ClientNote: ['client_note', 'string'],
  InternalNote: ['internal_note', 'string'],
  External: ['external', 'bool'],
  ImmediateActionScore: ['immediate_action_score', 'float'],
  ThroughputPeriod: ['throughput_period', 'string'],
  ThroughputPeriodChange: ['throughput_period_change', 'time'],
  CustomerCreated: ['customer_created', 'bool'],
  CVisibleSince: ['c_visible_since', 'time'],
  CVisibleSinceInDays: ['c_visible_since_in_days', 'int'],
  CReopenedCount: ['c_reopened_count', 'int'],
  CLastCustomerStatusChange: ['c_last_customer_status_change', 'time'],
  // The incident field starts with a Cyrillic "с" (spec: Incident record).
  CCustomerRetentionTime: ['с_customer_retention_time', 'int'],
  LogmuleIdentifier: ['logmule_identifier', 'string'],
  CRemoteExploitable: ['c_remote_exploitable', 'bool'],
  COccurrenceCount: ['c_occurrence_count', 'int'],
  LastOccurrenceId: ['last_occurrence_id', 'uuid'],
  ItsmLastSyncedAt: ['itsm_last_synced_at', 'time'],
  ItsmSyncStatus: ['itsm_sync_status', 'string'],
  ExternalId: ['external_id', 'int'],
  ItsmSyncError: ['itsm_sync_error', 'string'],
  UserId: ['user_id', 'string'],
  UpdatedBy: ['updated_by', 'string'],
  GroupId: ['group_id', 'string'],
  AcknowledgedBy: ['acknowledged_by', 'string'],
  CreatedByCustomer: ['created_by_customer', 'string'],
  EditedBy: ['edited_by', 'string'],
  IncidentGroupId: ['incident_group_id', 'string'],
  DisplayId: ['display_id', 'int'],
};

const GO_ZERO_TIME = /^0001-01-01T00:00:00(\.0+)?(Z|[+-]00:00)$/;

const schemaFor = (name: string, kind: Kind): z.ZodType => {
  switch (kind) {
    case 'string':
      return z.string();
    case 'uuid':
      return z.string().refine((s) => s === '' || UUID_RE.test(s), `${name} should be uuid format`);
    case 'time':
      return z.string().refine((s) => GO_ZERO_TIME.test(s) || normalizeTs(s) !== null, `${name} should be an RFC 3339 time`);
    case 'bool':
      return z.boolean();
    case 'int':
      return z.number().int();
    case 'float':
      return name === 'Risklevel' ? z.number().min(0).max(10) : z.number();
    case 'status':
      return z.union([z.literal(''), z.enum(INCIDENT_STATUSES)]);
    case 'risk':
      return z.union([z.literal(''), z.enum(RISK_BANDS)]);
  }
};

export const dbFieldsSchema = z
  .strictObject(Object.fromEntries(Object.entries(DB_FIELDS).map(([name, [, kind]]) => [name, schemaFor(name, kind).optional()])))
  .meta({ id: 'ServiceAssetFindingDBFields' });

/** The body holds the fields directly or under `ServiceAssetFindingDBFields`; both arrive as the fields. */
export const createIncidentBodyOf = () =>
  z
    .xor([dbFieldsSchema.describe('the fields directly'), z.strictObject({ ServiceAssetFindingDBFields: dbFieldsSchema }).describe('the fields under ServiceAssetFindingDBFields')])
    .transform((v) => ('ServiceAssetFindingDBFields' in v ? v.ServiceAssetFindingDBFields : v) as Record<string, unknown>)
    .meta({ id: 'CreateIncidentRequest' });

export const createIncidentBodySchema = createIncidentBodyOf();

/** Snake-case incident values from validated DB fields, Go zero values dropped. */
export function fromDbFields(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(body)) {
    const spec = DB_FIELDS[name];
    if (!spec || v === undefined) continue;
    const [field, kind] = spec;
    if ((kind === 'uuid' || kind === 'status' || kind === 'risk') && v === '') continue;
    if (kind === 'time') {
      if (typeof v !== 'string' || v === '' || GO_ZERO_TIME.test(v)) continue;
      out[field] = normalizeTs(v);
      continue;
    }
    if (field === 'display_id' && v === 0) continue;
    out[field] = v;
  }
  return out;
}
