// The aggregates of a large full-text match (per day, status and risk band: stats.ts) without
// looking each match up in the table. Once per data version, a connection reads every incident's
// row id and band from the (status, created_at, risklevel) index in that order, and cuts the run
// into (status, day) cells with the kept per-day counts (kinds/incidents/kept.ts: the same
// status, the same first ten characters of created_at and the same band, so a cell's rows are
// consecutive in that order and their number is the kept count's): each incident's cell and band
// then sit in one typed array indexed by row id. A match's aggregates are its row ids run through
// that array, a few ms for hundreds of thousands of matches, where looking the rows up and
// grouping them costs about a second at 1,000,000 incidents.
//
// Exactness: the cells are checked against the incidents themselves (every cell's first row, and
// the number of rows read against the kept counts' sum); if anything disagrees, or a match names a
// row the array does not hold, the caller groups the matches in SQL as before.
import { RISK_BANDS, riskBandSql } from '../../../src-shared/resources/fields';
import { COUNTED, DAY_COUNTS } from '../kinds/incidents/kept';
import { q } from '../sql';
import type { Statements } from '../statements';
import type { DayCount, DaySlice } from './days';

const T = q(COUNTED.table);

/**
 * Each incident's band as its place in RISK_BANDS: the bands' own expression with each band's
 * name replaced by its place (a fifth cheaper per row than mapping the name), or mapped when the
 * expression does not name each band once.
 */
const BAND_CODE_SQL = (() => {
  const named = riskBandSql('t.risklevel');
  let replaced = 0;
  const coded = named.replace(new RegExp(`'(${RISK_BANDS.join('|')})'`, 'g'), (_m, b: string) => {
    replaced++;
    return String(RISK_BANDS.indexOf(b as (typeof RISK_BANDS)[number]));
  });
  return replaced === RISK_BANDS.length ? coded : `CASE ${named} ${RISK_BANDS.map((b, i) => `WHEN '${b}' THEN ${i}`).join(' ')} END`;
})();

/**
 * Row id and band of every incident in (status, created_at) order, as one text of numbers
 * (`rid * 8 + band`, comma-separated): one value handed to JavaScript instead of a row each.
 */
const CODES_SQL = `SELECT group_concat(x, ',') AS codes, COUNT(*) AS n FROM (SELECT t._rid * 8 + ${BAND_CODE_SQL} AS x FROM ${T} t ORDER BY t.status, t.created_at)`;

const CELLS_SQL = `SELECT status, day, SUM(n) AS n FROM ${DAY_COUNTS} WHERE n > 0 GROUP BY status, day ORDER BY status, day`;

/** Above this, row ids are too sparse for an array indexed by them (the SQL grouping is used). */
const MAX_RID = 64 * 1024 * 1024;

export interface MatchDays {
  /** cell * 8 + band + 1 for each incident's row id; 0: no such incident. */
  code: Int32Array;
  cells: { status: string; day: string }[];
}

/** Comma-separated non-negative integers (as SQLite writes them) into numbers; false for anything else. */
export function parseInts(text: string | null, out: (v: number) => void): boolean {
  if (!text) return true;
  let v = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      if (digits === 0) return false;
      out(v);
      v = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      if (++digits > 15) return false;
    } else return false;
  }
  if (digits === 0) return false;
  out(v);
  return true;
}

const kept = new WeakMap<Statements, { version: string; days: MatchDays | null }>();

/**
 * Every incident's cell and band on the data at `version`, kept until it changes: undefined when
 * not read yet at this version (and `build` is false), null when it cannot be read exactly (the
 * caller groups in SQL).
 */
export function matchDaysOf(store: Statements, version: string | null, build: boolean): MatchDays | null | undefined {
  if (version === null) return null;
  const k = kept.get(store);
  if (k && k.version === version) return k.days;
  if (!build) return undefined;
  const days = readMatchDays(store);
  kept.set(store, { version, days });
  return days;
}

function readMatchDays(store: Statements): MatchDays | null {
  const cells = store.all<{ status: string; day: string; n: number }>(CELLS_SQL);
  const row = store.get1<{ codes: string | null; n: number }>(CODES_SQL);
  if (!row) return null;
  const total = cells.reduce((n, c) => n + c.n, 0);
  if (total !== row.n) return null;
  const values = new Float64Array(row.n);
  let count = 0;
  let max = 0;
  const read = parseInts(row.codes, (v) => {
    if (count < values.length) values[count] = v;
    count++;
    if (v > max) max = v;
  });
  if (!read || count !== row.n) return null;
  const maxRid = Math.floor(max / 8);
  if (maxRid > MAX_RID) return null;
  const code = new Int32Array(maxRid + 1);
  const firsts: number[] = [];
  let at = 0;
  for (let c = 0; c < cells.length; c++) {
    const end = at + cells[c]!.n;
    firsts.push(Math.floor(values[at]! / 8));
    for (; at < end; at++) {
      const v = values[at]!;
      code[Math.floor(v / 8)] = c * 8 + (v % 8) + 1;
    }
  }
  // Each cell's first row is of that cell: the order and the kept counts agree.
  const check = store.stmt(`SELECT status, substr(created_at, 1, 10) AS day FROM ${T} WHERE _rid = ?`);
  for (let c = 0; c < cells.length; c++) {
    const got = check.get(firsts[c]) as { status: string; day: string } | undefined;
    if (!got || got.status !== cells[c]!.status || got.day !== cells[c]!.day) return null;
  }
  return { code, cells: cells.map((c) => ({ status: c.status, day: c.day })) };
}

/** Whether a slice's conditions are ones the cells answer: statuses, bands and a creation-time range. */
export const cellsAnswer = (s: DaySlice): boolean => !s.key && !s.value;

/** Above every character a stored timestamp holds: the end of a day's range of timestamps (days.ts). */
const DAY_END = '\u{10FFFF}';

/**
 * The slice's time range as days read from the cells (those strictly inside it) and conditions
 * on the incidents for the range's first and last day (their rows compared by timestamp), as
 * days.ts splits it; null: the range is empty.
 */
function rangeOf(s: DaySlice): { inside: (day: string) => boolean; edges: { where: string; params: unknown[] }[] } | null {
  const { lower, upper } = s;
  if (lower && upper && (upper.ts < lower.ts || (upper.ts === lower.ts && (lower.strict || upper.strict)))) return null;
  const gt = lower ? `t.created_at ${lower.strict ? '>' : '>='} ?` : '';
  const lt = upper ? `t.created_at ${upper.strict ? '<' : '<='} ?` : '';
  const first = lower?.ts.slice(0, 10);
  const last = upper?.ts.slice(0, 10);
  if (lower && upper && first === last) return { inside: () => false, edges: [{ where: `${gt} AND ${lt}`, params: [lower.ts, upper.ts] }] };
  const edges: { where: string; params: unknown[] }[] = [];
  if (lower) edges.push({ where: `${gt} AND t.created_at < ? AND substr(t.created_at, 1, 10) = ?`, params: [lower.ts, first! + DAY_END, first] });
  if (upper) edges.push({ where: `t.created_at >= ? AND ${lt}`, params: [last, upper.ts] });
  return { inside: (day) => (first === undefined || day > first) && (last === undefined || day < last), edges };
}

/**
 * Per day, status and band, the matches (their row ids as comma-separated text) within a slice of
 * statuses, bands and a time range (the range's first and last day read from the incidents of
 * those days); null when a match is not an incident of the array (the caller groups in SQL).
 */
export function daysOfRids(store: Statements, d: MatchDays, rids: string | null, s: DaySlice): DayCount[] | null {
  if ((s.statuses && s.statuses.length === 0) || (s.risks && s.risks.length === 0)) return [];
  const range = rangeOf(s);
  if (!range) return [];
  const counts = new Int32Array(d.cells.length * 8);
  // The matches as a set, when some rows of the range's edge days are read.
  const hit = range.edges.length ? new Uint8Array(d.code.length) : null;
  let missing = false;
  const read = parseInts(rids, (rid) => {
    const c = rid < d.code.length ? d.code[rid]! : 0;
    if (c === 0) missing = true;
    else {
      counts[c - 1]!++;
      if (hit) hit[rid] = 1;
    }
  });
  if (missing || !read) return null;
  const statuses = s.statuses ? new Set(s.statuses) : null;
  const risks = s.risks ? new Set(s.risks) : null;
  const out: DayCount[] = [];
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i]!;
    if (n === 0) continue;
    const cell = d.cells[i >> 3]!;
    const risk = RISK_BANDS[i & 7]!;
    if (statuses && !statuses.has(cell.status)) continue;
    if (risks && !risks.has(risk)) continue;
    if (!range.inside(cell.day)) continue;
    out.push({ day: cell.day, status: cell.status, risk, n });
  }
  for (const edge of range.edges) {
    const sums = new Map<string, DayCount>();
    for (const row of store.all<{ rid: number; day: string; status: string; band: number }>(`SELECT t._rid AS rid, substr(t.created_at, 1, 10) AS day, t.status AS status, ${BAND_CODE_SQL} AS band FROM ${T} t WHERE ${edge.where}`, edge.params)) {
      if (!hit![row.rid]) continue;
      const risk = RISK_BANDS[row.band]!;
      if (statuses && !statuses.has(row.status)) continue;
      if (risks && !risks.has(risk)) continue;
      const k = `${row.day}\u0000${row.status}\u0000${risk}`;
      const was = sums.get(k);
      if (was) was.n++;
      else sums.set(k, { day: row.day, status: row.status, risk, n: 1 });
    }
    out.push(...sums.values());
  }
  return out;
}

/** The number of incidents, from the kept per-day counts. */
const incidentCount = (store: Statements): number => store.get1<{ n: number }>(`SELECT COALESCE(SUM(n), 0) AS n FROM ${DAY_COUNTS}`)?.n ?? 0;

/** Below this many incidents the array is read when a match first needs it (tens of ms); from it, ahead (prepareMatchDays). */
export const PREPARE_MIN_ROWS = 100_000;

/**
 * Reads the array ahead at `version` (a reader with nothing to do while a console is in use), so
 * that the first large match's aggregates do not pay for it (0.4-2 s at 1,000,000 incidents):
 * true when it was read now; false when it is kept already, or the incidents are too few to need
 * it ahead. Run inside a read transaction.
 */
export function prepareMatchDays(store: Statements, version: string, minRows = PREPARE_MIN_ROWS): boolean {
  if (matchDaysOf(store, version, false) !== undefined) return false;
  const rows = incidentCount(store);
  if (rows < minRows) return false;
  matchDaysOf(store, version, true);
  return true;
}

/**
 * The array is read for a match of at least this share of the incidents (1/N): below it, looking
 * the matches up costs less than reading every incident once; once read, it serves every match
 * on the same data.
 */
const READ_SHARE = 8;

/**
 * Per day, status and band, the incidents of one full-text match (FTS `table` MATCH `match`)
 * within a slice of statuses, bands and a creation-time range, from the array of every incident's cell (read when the
 * match is large enough, or kept from an earlier one at `version`); null: the caller groups the
 * matches in SQL.
 */
export function daysOfTextMatch(store: Statements, table: string, match: string, s: DaySlice, version: string | null): DayCount[] | null {
  if (!cellsAnswer(s) || version === null) return null;
  // One snapshot for the kept counts, the incidents and the match (a reader's read is one already).
  return store.db.inTransaction ? textMatchDays(store, table, match, s, version) : store.tx(() => textMatchDays(store, table, match, s, version));
}

function textMatchDays(store: Statements, table: string, match: string, s: DaySlice, version: string): DayCount[] | null {
  let days = matchDaysOf(store, version, false);
  if (days === null) return null;
  // The row ids from the match kept on this connection, else from the full-text index.
  const from = store.keptMatch(table, match, version);
  const m = from
    ? store.get1<{ rids: string | null; n: number }>(`SELECT group_concat(rid, ',') AS rids, COUNT(*) AS n FROM ${from}`)
    : store.get1<{ rids: string | null; n: number }>(`SELECT group_concat(rowid, ',') AS rids, COUNT(*) AS n FROM ${q(table)} WHERE ${q(table)} MATCH ?`, [match]);
  if (!m) return null;
  if (days === undefined) {
    const rows = incidentCount(store);
    if (m.n * READ_SHARE < rows) return null;
    days = matchDaysOf(store, version, true);
    if (!days) return null;
  }
  return daysOfRids(store, days, m.rids, s);
}
