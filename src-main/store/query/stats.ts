// Incident counts by status, by risk band and over time for a plan's matches (the console's
// chips and charts). When the plan is a slice of the kept per-day counts (its tally: statuses,
// risk bands, a creation-time range, the owner or group; kinds/incidents/kept.ts), they are read
// from them by days.ts (summed per bucket in SQL, so a year is a few thousand kept rows folded
// into fifty weeks) plus the rows of the range's first and last day, read through the
// created_at index; a large text search within statuses and bands from its row ids and every
// incident's cell (match-days.ts); any other condition groups its matches. Either way the answer is kept while
// the data has not changed.
import { INCIDENT_STATUSES, RISK_BANDS, riskBandSql } from '../../../src-shared/resources/fields';
import { VersionedCache } from '../data-version';
import type { Statements } from '../statements';
import { COUNTED } from '../kinds/incidents/kept';
import { daysOf, keptPerDay, keptSliceHolds, spanOf, type DayCount, type DaySlice } from './days';
import { daysOfTextMatch } from './match-days';
import { fillSlots, matchKey, type Plan } from './plan';

export type StatBucket = 'day' | 'week' | 'month';

export interface IncidentStats {
  total: number;
  bucket: StatBucket;
  by_status: { status: string; count: number }[];
  by_risk: { risk: string; count: number }[];
  over_time: { bucket: string; status: string; risk: string; count: number }[];
}

/** `auto` picks days for spans up to this many days, weeks up to AUTO_WEEK_DAYS, else months. */
const AUTO_DAY_DAYS = 62;
const AUTO_WEEK_DAYS = 366;

const DAY_ROWS = `SELECT substr(t.created_at, 1, 10) AS day, t.status AS status, ${riskBandSql('t.risklevel')} AS risk, COUNT(*) AS n FROM ${COUNTED.table} t`;

/** The aggregates of a slice of the kept counts (days.ts), bucketed in SQL. */
function statsOfSlice(store: Statements, slice: DaySlice, requested: StatBucket | 'auto', version: string | null): IncidentStats {
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
function daysOfMatches(store: Statements, plan: Plan, version: string | null): DayCount[] {
  return store.withHits((hits) => {
    const slots = plan.fts.map((s) => hits.materialise(s.table, s.match).sql.replace(/^\+/, ''));
    return store.all<DayCount>(fillSlots(`${plan.cte}${DAY_ROWS} WHERE ${plan.where.sql} GROUP BY 1, 2, 3`, (i) => slots[i]!), plan.where.params);
  }, version);
}

/** Per day, status and band, a text search's matches from their row ids (match-days.ts), when it applies. */
function daysOfText(store: Statements, plan: Plan, version: string | null): DayCount[] | null {
  const s = plan.textTally;
  if (!s || plan.fts.length !== 1 || plan.cte || !keptSliceHolds(store, s)) return null;
  return daysOfTextMatch(store, plan.fts[0]!.table, plan.fts[0]!.match, s, version);
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
 * The number of a text search's matches from every incident's cell (match-days.ts), when the
 * plan is one its aggregates are worked out that way for: a few ms from the cells kept on this
 * connection, where counting the matches in SQL looks each one up (seconds for a frequent word
 * within a risk band at 1,000,000 incidents). null: counted as before.
 */
export function textMatchCount(store: Statements, plan: Plan, version: string | null): number | null {
  const days = daysOfText(store, plan, version);
  return days === null ? null : days.reduce((n, d) => n + d.n, 0);
}

/**
 * The aggregates of a plan over incidents (its condition only: order and page are ignored),
 * from the kept counts when the plan is a slice of them (its tally); `version` the data version
 * read (before a read transaction began).
 */
export function incidentStats(store: Statements, plan: Plan, requested: StatBucket | 'auto', version: string | null = store.version()): IncidentStats {
  let cache = kept.get(store);
  if (!cache) kept.set(store, (cache = new VersionedCache<IncidentStats>(64)));
  const key = JSON.stringify([matchKey(plan), requested]);
  const hit = cache.get(key, version);
  if (hit) return hit;
  let stats: IncidentStats;
  if (plan.tally && keptPerDay(plan.tally) && keptSliceHolds(store, plan.tally)) {
    stats = statsOfSlice(store, plan.tally, requested, version);
  } else {
    const days = daysOfText(store, plan, version) ?? daysOfMatches(store, plan, version);
    stats = summarise(days, bucketOfDays(days, requested));
  }
  cache.set(key, version, stats);
  return stats;
}
