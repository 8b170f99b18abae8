// Incident counts by status, by risk band and over time for a plan's matches (the console's
// chips and charts). With no condition, or only a creation-time range and the owner or group
// (one of them: its values, or none), they come from the kept per-day counts (kinds/incidents/kept.ts, read by days.ts: summed per bucket in SQL, so a year is a few
// thousand kept rows folded into fifty weeks) plus the rows of the range's first and last day,
// read through the created_at index; any other condition groups its matches. Either way the
// answer is kept while the data has not changed.
import type { StandardQuery } from '../../../src-shared/public/standard-filters';
import { INCIDENT_STATUSES, RISK_BANDS, riskBandSql } from '../../../src-shared/resources/fields';
import { normalizeTs } from '../../../src-shared/time';
import { VersionedCache } from '../data-version';
import type { Statements } from '../statements';
import { COUNTED, KEPT_DIMENSIONS, type KeptColumn } from '../kinds/incidents/kept';
import { daysOf, spanOf, type DayCount, type DaySlice, type KeyCondition } from './days';
import { fillSlots, matchKey, type Plan } from './plan';

export type StatBucket = 'day' | 'week' | 'month';

export interface IncidentStats {
  total: number;
  bucket: StatBucket;
  by_status: { status: string; count: number }[];
  by_risk: { risk: string; count: number }[];
  over_time: { bucket: string; status: string; risk: string; count: number }[];
}

/** Exclusive bounds on created_at, normalised to the stored form, and an owner or group condition. */
export interface CreatedRange {
  after?: string;
  before?: string;
  key?: KeyCondition;
}

/** `auto` picks days for spans up to this many days, weeks up to AUTO_WEEK_DAYS, else months. */
const AUTO_DAY_DAYS = 62;
const AUTO_WEEK_DAYS = 366;

const DAY_ROWS = `SELECT substr(t.created_at, 1, 10) AS day, t.status AS status, ${riskBandSql('t.risklevel')} AS risk, COUNT(*) AS n FROM ${COUNTED.table} t`;

const KEPT_COLUMNS: readonly string[] = Object.keys(KEPT_DIMENSIONS);

/**
 * The creation-time range and owner or group condition when a query has no other condition
 * (only `created_at` gt / lt, and `user_id` or `group_id` eq / in / isnull, one of the two
 * columns; no search); undefined otherwise. Values are checked by the compiler first.
 */
export function createdRange(q: StandardQuery): CreatedRange | undefined {
  if (q.search !== '') return undefined;
  const range: CreatedRange = {};
  for (const f of q.filters) {
    if (KEPT_COLUMNS.includes(f.field) && (f.op === 'eq' || f.op === 'in' || f.op === 'isnull')) {
      const column = f.field as KeptColumn;
      if (range.key && range.key.column !== column) return undefined;
      const values: (string | null)[] = f.op === 'isnull' ? [null] : f.op === 'eq' ? [f.values[0] ?? ''] : [...new Set(f.values)];
      const was = range.key?.values;
      range.key = { column, values: was ? was.filter((v) => values.includes(v)) : values };
      continue;
    }
    if (f.field !== 'created_at' || (f.op !== 'gt' && f.op !== 'lt')) return undefined;
    const ts = normalizeTs(f.values[0] ?? '');
    if (ts === null) return undefined;
    if (f.op === 'gt') range.after = range.after === undefined || ts > range.after ? ts : range.after;
    else range.before = range.before === undefined || ts < range.before ? ts : range.before;
  }
  return range;
}

/** The aggregates of a creation-time range from the kept counts (days.ts), bucketed in SQL. */
function statsOfRange(store: Statements, range: CreatedRange, requested: StatBucket | 'auto', version: string | null): IncidentStats {
  const slice: DaySlice = {
    lower: range.after === undefined ? undefined : { ts: range.after, strict: true },
    upper: range.before === undefined ? undefined : { ts: range.before, strict: true },
    statuses: null,
    key: range.key,
  };
  let bucket: StatBucket;
  if (requested === 'auto') {
    const { first, last } = spanOf(store, slice);
    bucket = autoBucket(first, last);
  } else {
    bucket = requested;
  }
  return summarise(daysOf(store, slice, bucket, version), bucket);
}

/**
 * Per day, status and band, the plan's matches grouped. A full-text match is read as the rows it
 * names, looked up by row id: the page's rule for a large match (walk an index in the page's
 * order and probe the match, the `+` that forbids the lookups, which pays when a page of 100
 * stops early) would read every entry of the index here, since aggregates read every match.
 */
function daysOfMatches(store: Statements, plan: Plan): DayCount[] {
  return store.withHits((hits) => {
    const slots = plan.fts.map((s) => hits.materialise(s.table, s.match).sql.replace(/^\+/, ''));
    return store.all<DayCount>(fillSlots(`${plan.cte}${DAY_ROWS} WHERE ${plan.where.sql} GROUP BY 1, 2, 3`, (i) => slots[i]!), plan.where.params);
  });
}

function autoBucket(first: string | undefined, last: string | undefined): StatBucket {
  if (!first || !last) return 'day';
  const days = (Date.parse(last.slice(0, 10)) - Date.parse(first.slice(0, 10))) / 86_400_000;
  if (days <= AUTO_DAY_DAYS) return 'day';
  if (days <= AUTO_WEEK_DAYS) return 'week';
  return 'month';
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The first day of the bucket holding `day`: weeks start on Monday (ISO 8601). */
export function bucketStart(day: string, bucket: StatBucket): string {
  if (bucket === 'day' || !DAY.test(day)) return day;
  if (bucket === 'month') return `${day.slice(0, 7)}-01`;
  const d = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(d)) return day;
  const back = (new Date(d).getUTCDay() + 6) % 7;
  return new Date(d - back * 86_400_000).toISOString().slice(0, 10);
}

const rank = <T extends string>(list: readonly T[], v: string): number => {
  const i = (list as readonly string[]).indexOf(v);
  return i < 0 ? list.length : i;
};

const binary = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The bucket `auto` stands for over these days. */
function bucketOfDays(days: DayCount[], requested: StatBucket | 'auto'): StatBucket {
  if (requested !== 'auto') return requested;
  let first: string | undefined;
  let last: string | undefined;
  for (const d of days) {
    if (first === undefined || d.day < first) first = d.day;
    if (last === undefined || d.day > last) last = d.day;
  }
  return autoBucket(first, last);
}

/** Counts per day (or already per bucket, under the bucket's first day) summed into the answer. */
function summarise(days: DayCount[], bucket: StatBucket): IncidentStats {
  const cube = new Map<string, { bucket: string; status: string; risk: string; count: number }>();
  const byStatus = new Map<string, number>();
  const byRisk = new Map<string, number>();
  let total = 0;
  for (const d of days) {
    const b = bucketStart(d.day, bucket);
    const k = `${b}\u0000${d.status}\u0000${d.risk}`;
    const cell = cube.get(k);
    if (cell) cell.count += d.n;
    else cube.set(k, { bucket: b, status: d.status, risk: d.risk, count: d.n });
    total += d.n;
    byStatus.set(d.status, (byStatus.get(d.status) ?? 0) + d.n);
    byRisk.set(d.risk, (byRisk.get(d.risk) ?? 0) + d.n);
  }
  return {
    total,
    bucket,
    by_status: [...byStatus]
      .map(([status, count]) => ({ status, count }))
      .sort((a, b) => rank(INCIDENT_STATUSES, a.status) - rank(INCIDENT_STATUSES, b.status) || a.status.localeCompare(b.status)),
    by_risk: [...byRisk]
      .map(([risk, count]) => ({ risk, count }))
      .sort((a, b) => rank(RISK_BANDS, a.risk) - rank(RISK_BANDS, b.risk) || a.risk.localeCompare(b.risk)),
    over_time: [...cube.values()].sort((a, b) => binary(a.bucket, b.bucket) || binary(a.status, b.status) || binary(a.risk, b.risk)),
  };
}

const kept = new WeakMap<Statements, VersionedCache<IncidentStats>>();

/**
 * The aggregates of a plan over incidents (its condition only: order and page are ignored);
 * `range` when the condition is a creation-time range alone (see createdRange); `version` the
 * data version read (before a read transaction began).
 */
export function incidentStats(
  store: Statements,
  plan: Plan,
  requested: StatBucket | 'auto',
  range: CreatedRange | undefined,
  version: string | null = store.version(),
): IncidentStats {
  let cache = kept.get(store);
  if (!cache) kept.set(store, (cache = new VersionedCache<IncidentStats>(64)));
  const key = JSON.stringify([matchKey(plan), requested, range ?? null]);
  const hit = cache.get(key, version);
  if (hit) return hit;
  let stats: IncidentStats;
  if (range) {
    stats = statsOfRange(store, range, requested, version);
  } else {
    const days = daysOfMatches(store, plan);
    stats = summarise(days, bucketOfDays(days, requested));
  }
  cache.set(key, version, stats);
  return stats;
}
