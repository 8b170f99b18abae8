// Reads of the kept per-day incident counts (kinds/incidents/kept.ts) for a creation-time range, a set of
// statuses, a set of risk bands and a set of owners or of responsible groups: the days wholly
// inside the range come from the kept rows (at most a few thousand a year; per owner or group,
// the rows of those owners or groups), the range's first and last day are counted from the
// incidents themselves through an index on created_at. The console's chips and charts
// (stats.ts), the totals of incident searches whose conditions are these alone (a plan's
// `tally`) and the groupings by status, owner or group use it.
//
// Exactness: a row's day is the first ten characters of its created_at, and a bound is a
// normalised timestamp (at least ten characters), so a row of a day after the lower bound's day
// is above the bound and a row of a day before the upper bound's day is below it, whatever the
// rest of either string; only rows of the bounds' own days need their timestamp compared.
import { placeholders } from '../sql';
import { COUNTED, DAY_COUNTS, KEPT_DIMENSIONS, KEPT_VALUE_COUNTS, keptKey, RISK_APART_INDEX, RISK_APART_SQL, type DaySlice, type KeptColumn, type KeptValueColumn, type TimeBound } from '../kinds/incidents/kept';
import { riskBandSql } from '../../../src-shared/resources/fields';
import { VersionedCache } from '../data-version';
import type { Statements } from '../statements';

export type { DaySlice, KeyCondition, TimeBound } from '../kinds/incidents/kept';

export interface DayCount {
  day: string;
  status: string;
  risk: string;
  n: number;
}

/** Above every character a stored timestamp holds: the end of a day's range of timestamps. */
const DAY_END = '\u{10FFFF}';

const RISK_SQL = riskBandSql('t.risklevel');
const T = COUNTED.table;

interface Part {
  /** A condition on the kept table (days wholly inside), or on the incidents `t` (edge days). */
  kept: boolean;
  /** The kept table read. */
  table: string;
  /** The day of an edge's rows. */
  day?: string;
  where: string;
  params: unknown[];
}

/** Whether the slice is read per day (else from the per-value counts: its counts and groupings only). */
export const keptPerDay = (s: DaySlice): boolean => s.value === undefined;

/**
 * A slice of the per-value counts of `column` (finding type or asset by status and band: the
 * slice's values of it when it names some, else every value) as one condition on its table;
 * null: empty.
 */
export function valuePartOf(s: DaySlice, column: KeptValueColumn = s.value!.column): { table: string; where: string; params: unknown[] } | null {
  const v = s.value;
  if (v?.values.length === 0 || (s.statuses && s.statuses.length === 0) || (s.risks && s.risks.length === 0)) return null;
  const where = ['n > 0'];
  const params: unknown[] = [];
  if (v) {
    where.push(`k IN (${placeholders(v.values.length)})`);
    params.push(...v.values.map(keptKey));
  }
  if (s.statuses) {
    where.push(`status IN (${placeholders(s.statuses.length)})`);
    params.push(...s.statuses);
  }
  if (s.risks) {
    where.push(`risk IN (${placeholders(s.risks.length)})`);
    params.push(...s.risks);
  }
  return { table: KEPT_VALUE_COUNTS[column].table, where: where.join(' AND '), params };
}

/** The slice as conditions: kept days, and the edge days read from the incidents; null: empty. */
function partsOf(s: DaySlice): Part[] | null {
  if (!keptPerDay(s)) throw new Error('a slice of the per-value counts has no days');
  const { lower, upper } = s;
  if (s.statuses && s.statuses.length === 0) return null;
  if (s.risks && s.risks.length === 0) return null;
  if (s.key?.values && s.key.values.length === 0) return null;
  if (lower && upper && (upper.ts < lower.ts || (upper.ts === lower.ts && (lower.strict || upper.strict)))) return null;
  const table = s.key ? KEPT_DIMENSIONS[s.key.column].table : DAY_COUNTS;
  const inList = (col: string, values: readonly unknown[] | null | undefined) => ({
    sql: values ? ` AND ${col} IN (${placeholders(values.length)})` : '',
    params: values ? [...values] : [],
  });
  const keyValues = s.key?.values;
  const given = keyValues ? keyValues.filter((v): v is string => v !== null) : [];
  const none = keyValues ? keyValues.includes(null) : false;
  // The incidents' column: its values, or none (NULL).
  const tKey: { sql: string; params: unknown[] } =
    s.key && keyValues
      ? {
          sql: ` AND (${[...(given.length ? [`t.${s.key.column} IN (${placeholders(given.length)})`] : []), ...(none ? [`t.${s.key.column} IS NULL`] : [])].join(' OR ')})`,
          params: given,
        }
      : { sql: '', params: [] };
  const cat = (...xs: { sql: string; params: unknown[] }[]) => ({ sql: xs.map((x) => x.sql).join(''), params: xs.flatMap((x) => x.params) });
  const status = cat(inList('status', s.statuses), inList('risk', s.risks), inList('k', keyValues?.map(keptKey)));
  const tStatus = cat(inList('t.status', s.statuses), inList(RISK_SQL, s.risks), tKey);
  const gt = (b: TimeBound) => `t.created_at ${b.strict ? '>' : '>='} ?`;
  const lt = (b: TimeBound) => `t.created_at ${b.strict ? '<' : '<='} ?`;
  const first = lower?.ts.slice(0, 10);
  const last = upper?.ts.slice(0, 10);
  if (lower && upper && first === last) return [{ kept: false, table, day: first, where: `${gt(lower)} AND ${lt(upper)}${tStatus.sql}`, params: [lower.ts, upper.ts, ...tStatus.params] }];
  const full: string[] = ['n > 0'];
  const params: unknown[] = [];
  if (first !== undefined) {
    full.push('day > ?');
    params.push(first);
  }
  if (last !== undefined) {
    full.push('day < ?');
    params.push(last);
  }
  const parts: Part[] = [{ kept: true, table, where: `${full.join(' AND ')}${status.sql}`, params: [...params, ...status.params] }];
  if (lower) {
    parts.push({
      kept: false,
      table,
      day: first,
      where: `${gt(lower)} AND t.created_at < ? AND substr(t.created_at, 1, 10) = ?${tStatus.sql}`,
      params: [lower.ts, first! + DAY_END, first, ...tStatus.params],
    });
  }
  if (upper) parts.push({ kept: false, table, day: last, where: `t.created_at >= ? AND ${lt(upper)}${tStatus.sql}`, params: [last, upper.ts, ...tStatus.params] });
  return parts;
}

/**
 * Whether the kept counts answer the slice on the data as it is: always, unless a condition on
 * the stored band (`risk`) is part of it and some incident's stored band is not its risklevel's
 * band (one probe of an index holding only those); the caller counts the matches otherwise.
 */
export function keptSliceHolds(store: Statements, s: DaySlice): boolean {
  if (!s.storedRisk) return true;
  return store.get1(APART_PROBE) === undefined;
}

/**
 * Whether some incident's stored band is not its risklevel's band: read from RISK_APART_INDEX,
 * which the planner takes for this condition (its own); not forced, so that a database opened
 * read-only before its migration still answers (by a scan).
 */
export const APART_PROBE = `SELECT 1 AS x FROM ${T} WHERE ${RISK_APART_SQL} LIMIT 1`;
export { RISK_APART_INDEX };

export type DayBucket = 'day' | 'week' | 'month';

/** A well-formed calendar day (what a normalised created_at starts with). */
const REAL_DAY = `(day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND date(day) = day)`;

/** The first day of a kept day's bucket (weeks start on Monday); any other day string as it is. */
const BUCKET_SQL: Record<DayBucket, string> = {
  day: 'day',
  week: `CASE WHEN ${REAL_DAY} THEN date(day, '-6 days', 'weekday 1') ELSE day END`,
  month: `CASE WHEN ${REAL_DAY} THEN substr(day, 1, 7) || '-01' ELSE day END`,
};

/** Kept rows summed per bucket, by the data version they were read at. */
const keptRows = new WeakMap<Statements, VersionedCache<DayCount[]>>();

/**
 * The slice's incidents per day, status and risk band (a day may come in several rows); with a
 * bucket, the kept days come summed per bucket under the bucket's first day (the edge days stay
 * days). `version`: the data version read (kept rows are reused while it holds).
 */
export function daysOf(store: Statements, s: DaySlice, bucket: DayBucket = 'day', version: string | null = store.version()): DayCount[] {
  const out: DayCount[] = [];
  for (const p of partsOf(s) ?? []) {
    if (!p.kept) {
      const sql = `SELECT substr(t.created_at, 1, 10) AS day, t.status AS status, ${RISK_SQL} AS risk, COUNT(*) AS n FROM ${T} t WHERE ${p.where} GROUP BY 1, 2, 3`;
      out.push(...store.all<DayCount>(sql, p.params));
      continue;
    }
    const sql = `SELECT ${BUCKET_SQL[bucket]} AS day, status, risk, SUM(n) AS n FROM ${p.table} WHERE ${p.where} GROUP BY 1, 2, 3`;
    let cache = keptRows.get(store);
    if (!cache) keptRows.set(store, (cache = new VersionedCache<DayCount[]>(32)));
    const key = JSON.stringify([sql, p.params]);
    let rows = cache.get(key, version);
    if (!rows) {
      rows = store.all<DayCount>(sql, p.params);
      cache.set(key, version, rows);
    }
    out.push(...rows);
  }
  return out;
}

/** The first and last day holding some of the slice's incidents (undefined: none). */
export function spanOf(store: Statements, s: DaySlice): { first?: string; last?: string } {
  let first: string | undefined;
  let last: string | undefined;
  const see = (day: string | undefined) => {
    if (day === undefined) return;
    if (first === undefined || day < first) first = day;
    if (last === undefined || day > last) last = day;
  };
  for (const p of partsOf(s) ?? []) {
    if (p.kept) {
      see(store.get1<{ day: string }>(`SELECT MIN(day) AS day FROM ${p.table} WHERE ${p.where}`, p.params)?.day ?? undefined);
      see(store.get1<{ day: string }>(`SELECT MAX(day) AS day FROM ${p.table} WHERE ${p.where}`, p.params)?.day ?? undefined);
    } else if (store.get1(`SELECT 1 AS x FROM ${T} t WHERE ${p.where} LIMIT 1`, p.params)) {
      see(p.day);
    }
  }
  return { first, last };
}

/** The number of the slice's incidents. */
export function countOf(store: Statements, s: DaySlice): number {
  if (!keptPerDay(s)) {
    const p = valuePartOf(s);
    return p ? (store.get1<{ n: number }>(`SELECT COALESCE(SUM(n), 0) AS n FROM ${p.table} WHERE ${p.where}`, p.params)?.n ?? 0) : 0;
  }
  let n = 0;
  for (const p of partsOf(s) ?? []) {
    const sql = p.kept ? `SELECT COALESCE(SUM(n), 0) AS n FROM ${p.table} WHERE ${p.where}` : `SELECT COUNT(*) AS n FROM ${T} t WHERE ${p.where}`;
    n += store.get1<{ n: number }>(sql, p.params)?.n ?? 0;
  }
  return n;
}

/** What the slice's incidents can be grouped by from the kept counts. */
export type KeptGroupBy = 'status' | KeptColumn;

/**
 * The slice's incidents per status, or per owner or group (the slice's `key` then names that
 * column), largest first (then by value); a value is null for none.
 */
export function groupsOf(store: Statements, s: DaySlice, by: KeptGroupBy): { value: string | null; count: number }[] {
  if (by !== 'status' && s.key?.column !== by) throw new Error(`a grouping by ${by} needs the slice read from its kept counts`);
  const sums = new Map<string | null, number>();
  if (!keptPerDay(s)) {
    const p = valuePartOf(s);
    for (const r of p ? store.all<{ v: string; n: number }>(`SELECT status AS v, SUM(n) AS n FROM ${p.table} WHERE ${p.where} GROUP BY 1`, p.params) : []) sums.set(r.v, r.n);
  }
  for (const p of keptPerDay(s) ? (partsOf(s) ?? []) : []) {
    const rows = p.kept
      ? store.all<{ v: string; n: number }>(`SELECT ${by === 'status' ? 'status' : 'k'} AS v, SUM(n) AS n FROM ${p.table} WHERE ${p.where} GROUP BY 1`, p.params)
      : store.all<{ v: string; n: number }>(`SELECT ${by === 'status' ? 't.status' : `COALESCE('=' || t.${by}, '')`} AS v, COUNT(*) AS n FROM ${T} t WHERE ${p.where} GROUP BY 1`, p.params);
    for (const r of rows) {
      const value = by === 'status' ? r.v : r.v === '' ? null : r.v.slice(1);
      sums.set(value, (sums.get(value) ?? 0) + r.n);
    }
  }
  return [...sums]
    .filter(([, n]) => n > 0)
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value === null ? (b.value === null ? 0 : -1) : b.value === null ? 1 : Buffer.compare(Buffer.from(a.value), Buffer.from(b.value))));
}
