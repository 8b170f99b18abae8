// Short builders for field declarations, so each resource file reads like its table in the spec.
import type { ComputedDef, FieldDef, FieldKind, OnDelete, RelationDef } from './types';

type Opts = Omit<FieldDef, 'kind'>;

export const f = {
  uuid: (o: Opts = {}): FieldDef => ({ kind: 'uuid', ...o }),
  /** A belongs-to link: a uuid column referencing `target`, indexed. */
  ref: (target: string, onDelete: OnDelete = 'set null', o: Opts = {}): FieldDef => ({
    kind: 'uuid',
    ref: target,
    onDelete,
    index: true,
    ...o,
  }),
  str: (o: Opts = {}): FieldDef => ({ kind: 'string', ...o }),
  int: (o: Opts = {}): FieldDef => ({ kind: 'int', ...o }),
  num: (o: Opts = {}): FieldDef => ({ kind: 'number', ...o }),
  bool: (o: Opts = {}): FieldDef => ({ kind: 'bool', ...o }),
  ts: (o: Opts = {}): FieldDef => ({ kind: 'timestamp', ...o }),
  date: (o: Opts = {}): FieldDef => ({ kind: 'date', ...o }),
  obj: (o: Opts = {}): FieldDef => ({ kind: 'json', jsonShape: 'object', ...o }),
  arr: (o: Opts = {}): FieldDef => ({ kind: 'json', jsonShape: 'array', ...o }),
};

export const computed = (kind: FieldKind, sql: string, o: Omit<ComputedDef, 'kind' | 'sql'> = {}): ComputedDef => ({
  kind,
  sql,
  ...o,
});

export const rel = {
  belongsTo: (target: string, fk: string): RelationDef => ({ kind: 'belongsTo', target, fk }),
  hasMany: (target: string, fk: string): RelationDef => ({ kind: 'hasMany', target, fk }),
  manyToMany: (target: string, link: string, self: string, other: string): RelationDef => ({
    kind: 'manyToMany',
    target,
    link,
    self,
    other,
  }),
};

/** Incident statuses, in the platform's order. */
export const INCIDENT_STATUSES = [
  'new',
  'assigned_customer',
  'working_customer',
  'feedback_required',
  'verify_close',
  'risk_accepted',
  'closed',
  'invalid',
] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/**
 * An incident status's place in the workflow (the order of INCIDENT_STATUSES), for sorting; a
 * value outside the list comes last.
 */
export const statusRank = (status: unknown): number => {
  const i = INCIDENT_STATUSES.indexOf(status as IncidentStatus);
  return i < 0 ? INCIDENT_STATUSES.length : i;
};

/** SQL of the same rank over the row aliased `t` (constants, not input). */
export const STATUS_RANK_SQL = `CASE t.status ${INCIDENT_STATUSES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} ELSE ${INCIDENT_STATUSES.length} END`;

/** Statuses after which a new status counts as a reopening. */
export const FINAL_STATUSES: readonly IncidentStatus[] = ['closed', 'invalid', 'risk_accepted'];
export const OPEN_STATUSES: readonly IncidentStatus[] = INCIDENT_STATUSES.filter((s) => !FINAL_STATUSES.includes(s));

/** SQL list literal of the open statuses, for computed fields (constants, not input). */
export const OPEN_STATUSES_SQL = OPEN_STATUSES.map((s) => `'${s}'`).join(',');

/** CVSS v3 bands: risk derived from risklevel. */
export const RISK_BANDS = ['none', 'low', 'medium', 'high', 'critical'] as const;
export type RiskBand = (typeof RISK_BANDS)[number];

export function riskBand(level: number | null | undefined): RiskBand {
  const v = Number(level ?? 0);
  if (!(v > 0)) return 'none';
  if (v < 4) return 'low';
  if (v < 7) return 'medium';
  if (v < 9) return 'high';
  return 'critical';
}

/** The same banding in SQL over an expression `x` (constant text, used in computed fields). */
export function riskBandSql(x: string): string {
  return `CASE WHEN COALESCE(${x},0) <= 0 THEN 'none' WHEN ${x} < 4 THEN 'low' WHEN ${x} < 7 THEN 'medium' WHEN ${x} < 9 THEN 'high' ELSE 'critical' END`;
}
