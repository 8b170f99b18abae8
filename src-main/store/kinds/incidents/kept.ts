// Kept aggregates: counts the database maintains itself, in the same transaction as every
// write (triggers), so that they hold whichever connection or process writes, imports included.
//
// incident_day_counts: incidents per creation day, status and risk band (the CVSS band of
// risklevel, as the console's charts and chips show it). At most a few thousand rows a year,
// so the counts and charts of a million incidents are read from it instead of counted. Rows
// reaching zero are removed: the table is a function of the incidents alone, whatever the path.
//
// incident_owner_day_counts and incident_group_day_counts: the same counts per owner (user_id)
// and per responsible group (group_id) as well, so that the console's owner and group filters
// ("mine", "unassigned", a person, "my groups", a group), alone or with statuses, risk bands
// and a time range, and the groupings by owner or group, are read from kept rows too. The key
// column holds '=' followed by the value, or '' for none (NULL), so that no value is taken for
// none and none for a value.
//
// incident_finding_counts and incident_asset_counts: incidents per finding type and per asset
// by status and risk band (no day: a few thousand and a few hundred thousand rows for a million
// incidents), so that the groupings by finding type or asset, alone or with statuses and risk
// bands, are sums of kept rows.
import { RISK_BANDS, riskBandSql } from '../../../../src-shared/resources/fields';
import { normalizeTs } from '../../../../src-shared/time';
import { serviceAssetFindings } from '../../../../src-shared/resources/service_asset_findings';

/** The incidents, whose counts are kept. */
export const COUNTED = serviceAssetFindings;

export const DAY_COUNTS = 'incident_day_counts';

/** A kept table of incident counts per status and risk band (and day, unless `byDay` is false), and per an extra column's value. */
export interface KeptDimension {
  /** The kept table. */
  table: string;
  /** The incidents' column counted by. */
  column: 'user_id' | 'group_id' | 'finding_id' | 'service_asset_id';
  /** Its name in trigger names. */
  name: string;
  /** Whether the counts are per creation day too. */
  byDay?: boolean;
}

export const KEPT_DIMENSIONS = {
  user_id: { table: 'incident_owner_day_counts', column: 'user_id', name: 'owner' },
  group_id: { table: 'incident_group_day_counts', column: 'group_id', name: 'group' },
} as const satisfies Record<string, KeptDimension>;

export type KeptColumn = keyof typeof KEPT_DIMENSIONS;

/** Counts per value of a column by status and risk band only (no day). */
export const KEPT_VALUE_COUNTS = {
  finding_id: { table: 'incident_finding_counts', column: 'finding_id', name: 'finding', byDay: false },
  service_asset_id: { table: 'incident_asset_counts', column: 'service_asset_id', name: 'asset', byDay: false },
} as const satisfies Record<string, KeptDimension>;

export type KeptValueColumn = keyof typeof KEPT_VALUE_COUNTS;

/** The kept key of a column's value: '=' and the value, '' for none. */
export const keptKey = (value: string | null): string => (value === null ? '' : `=${value}`);

/** The kept key of a column's value in SQL. */
const keySql = (col: string) => `COALESCE('=' || ${col}, '')`;

const T = COUNTED.table;

/** A dimension's kept table, its triggers on the incidents and its filling from existing rows. */
function dimensionDdl(dim: KeptDimension): string[] {
  const { table, name } = dim;
  const byDay = dim.byDay !== false;
  const keyCols = byDay ? ['k', 'day', 'status', 'risk'] : ['k', 'status', 'risk'];
  const vals = (row: 'new' | 'old' | 't') => [
    keySql(`${row}.${dim.column}`),
    ...(byDay ? [`substr(${row}.created_at, 1, 10)`] : []),
    `${row}.status`,
    riskBandSql(`${row}.risklevel`),
  ];
  const match = (row: 'new' | 'old') =>
    keyCols
      .map((c, i) => `${c} = ${vals(row)[i]}`)
      .join(' AND ');
  const add = `INSERT INTO ${table} (${keyCols.join(', ')}, n) VALUES (${vals('new').join(', ')}, 1) ON CONFLICT (${keyCols.join(', ')}) DO UPDATE SET n = n + 1;`;
  const remove = `UPDATE ${table} SET n = n - 1 WHERE ${match('old')}; DELETE FROM ${table} WHERE ${match('old')} AND n <= 0;`;
  const changed = [
    ...(byDay ? ['substr(old.created_at, 1, 10) IS NOT substr(new.created_at, 1, 10)'] : []),
    'old.status IS NOT new.status',
    `${riskBandSql('old.risklevel')} IS NOT ${riskBandSql('new.risklevel')}`,
    `old.${dim.column} IS NOT new.${dim.column}`,
  ];
  const cols = [...(byDay ? ['created_at'] : []), 'status', 'risklevel', dim.column];
  return [
    `CREATE TABLE ${table} (${keyCols.map((c) => `${c} TEXT NOT NULL`).join(', ')}, n INTEGER NOT NULL, PRIMARY KEY (${keyCols.join(', ')})) WITHOUT ROWID`,
    `CREATE TRIGGER ${T}_${name}_ai AFTER INSERT ON ${T} BEGIN ${add} END`,
    `CREATE TRIGGER ${T}_${name}_ad AFTER DELETE ON ${T} BEGIN ${remove} END`,
    `CREATE TRIGGER ${T}_${name}_au AFTER UPDATE OF ${cols.join(', ')} ON ${T}
       WHEN ${changed.join('\n         OR ')}
       BEGIN ${remove} ${add} END`,
    `INSERT INTO ${table} (${keyCols.join(', ')}, n)
       SELECT ${vals('t').join(', ')}, COUNT(*) FROM ${T} t GROUP BY ${keyCols.map((_c, i) => i + 1).join(', ')}`,
  ];
}

const key = (row: 'new' | 'old') => `substr(${row}.created_at, 1, 10), ${row}.status, ${riskBandSql(`${row}.risklevel`)}`;
const match = (row: 'new' | 'old') =>
  `day = substr(${row}.created_at, 1, 10) AND status = ${row}.status AND risk = ${riskBandSql(`${row}.risklevel`)}`;

const add = `INSERT INTO ${DAY_COUNTS} (day, status, risk, n) VALUES (${key('new')}, 1) ON CONFLICT (day, status, risk) DO UPDATE SET n = n + 1;`;
const remove = `UPDATE ${DAY_COUNTS} SET n = n - 1 WHERE ${match('old')}; DELETE FROM ${DAY_COUNTS} WHERE ${match('old')} AND n <= 0;`;

/** The table, its triggers on the incidents, and its filling from existing rows. */
export function dayCountsDdl(): string[] {
  return [
    `CREATE TABLE ${DAY_COUNTS} (day TEXT NOT NULL, status TEXT NOT NULL, risk TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (day, status, risk)) WITHOUT ROWID`,
    `CREATE TRIGGER ${T}_days_ai AFTER INSERT ON ${T} BEGIN ${add} END`,
    `CREATE TRIGGER ${T}_days_ad AFTER DELETE ON ${T} BEGIN ${remove} END`,
    `CREATE TRIGGER ${T}_days_au AFTER UPDATE OF created_at, status, risklevel ON ${T}
       WHEN substr(old.created_at, 1, 10) IS NOT substr(new.created_at, 1, 10) OR old.status IS NOT new.status
         OR ${riskBandSql('old.risklevel')} IS NOT ${riskBandSql('new.risklevel')}
       BEGIN ${remove} ${add} END`,
    `INSERT INTO ${DAY_COUNTS} (day, status, risk, n)
       SELECT substr(t.created_at, 1, 10), t.status, ${riskBandSql('t.risklevel')}, COUNT(*) FROM ${T} t GROUP BY 1, 2, 3`,
  ];
}

/**
 * The per-owner and per-group tables, their triggers and their filling from existing rows;
 * whatever of them a database already has is replaced (the counts are recounted).
 */
export function dimensionCountsDdl(): string[] {
  return replaceKept(Object.values(KEPT_DIMENSIONS));
}

/** The per-finding-type and per-asset tables, their triggers and their filling (replaced if present). */
export function valueCountsDdl(): string[] {
  return replaceKept(Object.values(KEPT_VALUE_COUNTS));
}

function replaceKept(dims: readonly KeptDimension[]): string[] {
  return dims.flatMap((d) => [
    ...['ai', 'ad', 'au'].map((w) => `DROP TRIGGER IF EXISTS ${T}_${d.name}_${w}`),
    `DROP TABLE IF EXISTS ${d.table}`,
    ...dimensionDdl(d),
  ]);
}

/**
 * Incidents whose stored band (`risk`) is not their risklevel's band: a partial index holding
 * only those (none while every write lets `risk` follow risklevel, as the write path does unless
 * a band is given), so that whether a condition on the stored band equals the same condition on
 * risklevel's band is one index probe. SQLite keeps it in step with every write, whichever
 * connection or process makes it, with no trigger.
 */
export const RISK_APART_INDEX = `ix_${T}_risk_apart`;

/** The condition of RISK_APART_INDEX on a row of the incidents (its text is the index's, so the planner takes it). */
export const RISK_APART_SQL = `risk IS NOT (${riskBandSql('risklevel')})`;

export function riskApartDdl(): string[] {
  return [`CREATE INDEX IF NOT EXISTS ${RISK_APART_INDEX} ON ${T} (risk) WHERE ${RISK_APART_SQL}`];
}

/** One bound on created_at: a normalised timestamp, strict (`>`, `<`) or not (`>=`, `<=`). */
export interface TimeBound {
  ts: string;
  strict: boolean;
}

/** Values of an owner or group column (null: none); `values` null: any value. */
export interface KeyCondition {
  column: KeptColumn;
  values: readonly (string | null)[] | null;
}

/**
 * Incidents created within the bounds (either open) whose status is one of `statuses` (null:
 * any), whose risk band is one of `risks` (absent or null: any) and, with `key`, whose owner or
 * group is one of its values (the slice is then read from that column's kept table).
 */
export interface DaySlice {
  lower?: TimeBound;
  upper?: TimeBound;
  statuses: readonly string[] | null;
  risks?: readonly string[] | null;
  /**
   * Whether a condition on the stored band (`risk`) narrowed `risks`: the kept counts are by
   * risklevel's band, so the slice holds only while no incident's stored band differs from it
   * (RISK_APART_INDEX; days.ts, keptSliceHolds).
   */
  storedRisk?: boolean;
  key?: KeyCondition;
  /**
   * Values of the finding type or asset column (null: none): the slice is then read from that
   * column's kept counts by status and risk band (KEPT_VALUE_COUNTS, no day), so it has no time
   * bound and no owner or group condition, and answers counts and groupings, not counts per day.
   */
  value?: ValueCondition;
}

/** Values of the finding type or asset column (null: none). */
export interface ValueCondition {
  column: KeptValueColumn;
  values: readonly (string | null)[];
}

/**
 * One condition of a query as both compilers (the v2 search and the public standard filters)
 * normalise it for the kept counts: a field compared with values; `not` negates it (a risk band
 * bound only).
 */
export interface Condition {
  field: string;
  op: 'eq' | 'in' | 'isnull' | 'ge' | 'gt' | 'le' | 'lt';
  values: readonly unknown[];
  not?: boolean;
}

/** Where each risk band starts (its lowest risklevel, inclusive), as riskBandSql bands them. */
const BAND_STARTS: readonly [number, number][] = [
  [4, RISK_BANDS.indexOf('medium')],
  [7, RISK_BANDS.indexOf('high')],
  [9, RISK_BANDS.indexOf('critical')],
];

/**
 * The bands a risklevel bound holds exactly (risklevel is never null): `ge x` with x a band's
 * start, `le 0` (band none), either negated; undefined for any other bound.
 */
function bandsOf(c: Condition): string[] | undefined {
  const v = c.values[0];
  let inside: string[] | undefined;
  if (c.op === 'ge' && typeof v === 'number') {
    const start = BAND_STARTS.find(([x]) => x === v);
    if (start) inside = RISK_BANDS.slice(start[1]);
  } else if (c.op === 'le' && v === 0) {
    inside = ['none'];
  }
  if (!inside) return undefined;
  return c.not ? RISK_BANDS.filter((b) => !inside.includes(b)) : inside;
}

const KEPT_COLUMNS: readonly string[] = Object.keys(KEPT_DIMENSIONS);
const VALUE_COLUMNS: readonly string[] = Object.keys(KEPT_VALUE_COUNTS);

const asText = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);

/**
 * A query's matches as a slice of the kept counts, when its conditions (each as its compiler
 * takes it, values already checked) are at most creation-time bounds, status values, risklevel
 * bounds at the bands' starts, stored bands (`risk`, see DaySlice.storedRisk), and values (or
 * none) of one of the owner or group columns, or, with no time bound, owner or group, of the
 * finding type or asset column (DaySlice.value);
 * undefined for any other condition or resource. The one rule of "only these conditions" for
 * the totals of searches and lists, the statistics and the groupings.
 */
export function sliceOf(r: { table: string }, conds: readonly Condition[]): DaySlice | undefined {
  if (r.table !== COUNTED.table) return undefined;
  const slice: DaySlice = { statuses: null };
  const keepStatuses = (values: string[]) => {
    slice.statuses = slice.statuses === null ? [...new Set(values)] : slice.statuses.filter((x) => values.includes(x));
  };
  const keepKey = (column: KeptColumn, values: (string | null)[]): boolean => {
    if (slice.key && slice.key.column !== column) return false;
    const was = slice.key?.values;
    slice.key = { column, values: was ? was.filter((x) => values.includes(x)) : [...new Set(values)] };
    return true;
  };
  const tighter = (was: TimeBound | undefined, b: TimeBound, lower: boolean): TimeBound => {
    if (!was) return b;
    if (b.ts === was.ts) return { ts: b.ts, strict: b.strict || was.strict };
    return (lower ? b.ts > was.ts : b.ts < was.ts) ? b : was;
  };
  for (const c of conds) {
    if (c.field === 'risklevel') {
      const bands = bandsOf(c);
      if (!bands) return undefined;
      slice.risks = slice.risks ? slice.risks.filter((x) => bands.includes(x)) : bands;
      continue;
    }
    if (c.not) return undefined;
    if (c.field === 'risk' && ((c.op === 'eq' && c.values.length === 1) || c.op === 'in')) {
      const values = c.values.map(asText);
      if (values.some((v) => v === undefined)) return undefined;
      slice.risks = slice.risks ? slice.risks.filter((x) => values.includes(x)) : [...new Set(values as string[])];
      slice.storedRisk = true;
      continue;
    }
    if (c.field === 'status' && ((c.op === 'eq' && c.values.length === 1) || c.op === 'in')) {
      const values = c.values.map(asText);
      if (values.some((v) => v === undefined)) return undefined;
      keepStatuses(values as string[]);
    } else if (KEPT_COLUMNS.includes(c.field) && (c.op === 'eq' || c.op === 'in' || c.op === 'isnull')) {
      if (c.op === 'eq' && c.values.length !== 1) return undefined;
      if (c.op !== 'isnull' && !c.values.every((v) => typeof v === 'string')) return undefined;
      if (!keepKey(c.field as KeptColumn, c.op === 'isnull' ? [null] : (c.values as string[]))) return undefined;
    } else if (VALUE_COLUMNS.includes(c.field) && (c.op === 'eq' || c.op === 'in' || c.op === 'isnull')) {
      if (c.op === 'eq' && c.values.length !== 1) return undefined;
      if (c.op !== 'isnull' && !c.values.every((v) => typeof v === 'string')) return undefined;
      const values: (string | null)[] = c.op === 'isnull' ? [null] : (c.values as string[]);
      if (slice.value && slice.value.column !== c.field) return undefined;
      slice.value = { column: c.field as KeptValueColumn, values: slice.value ? slice.value.values.filter((x) => values.includes(x)) : [...new Set(values)] };
    } else if (c.field === 'created_at' && (c.op === 'ge' || c.op === 'gt' || c.op === 'le' || c.op === 'lt')) {
      const ts = typeof c.values[0] === 'string' ? normalizeTs(c.values[0]) : null;
      if (ts === null) return undefined;
      const b: TimeBound = { ts, strict: c.op === 'gt' || c.op === 'lt' };
      if (c.op === 'ge' || c.op === 'gt') slice.lower = tighter(slice.lower, b, true);
      else slice.upper = tighter(slice.upper, b, false);
    } else {
      return undefined;
    }
  }
  // The per-value counts have no day, owner or group.
  if (slice.value && (slice.lower || slice.upper || slice.key)) return undefined;
  return slice;
}

/**
 * The kept counts of incidents inserted in bulk, added once per batch instead of row by row:
 * for each kept table, the trigger that adds an inserted incident's count (dropped by the
 * batch for its transaction) and the statement adding the counts of every incident whose _rid
 * is above its one parameter (the largest _rid before the batch), set-wise (grouped, then
 * added to what the table holds). The tables stay equal to counting the incidents: the batch
 * runs the statements before it puts the triggers back, in the same transaction.
 */
export interface KeptInsertCount {
  trigger: string;
  addSql: string;
  /**
   * The same, for a batch that filled an empty table (every row is new): the rows are read
   * from the smallest index holding the columns counted, where there is one, instead of by row
   * id from the table (200,000 incidents: the finding type and asset counts in half the time).
   */
  addAllSql: string;
}

function bulkAdd(table: string, keyCols: readonly string[], vals: readonly string[], all = false): string {
  // `+` keeps the planner from reading by row id, so that it may take a covering index.
  return `INSERT INTO ${table} (${keyCols.join(', ')}, n)
       SELECT ${vals.join(', ')}, COUNT(*) FROM ${T} t WHERE ${all ? '+' : ''}t._rid > ? GROUP BY ${keyCols.map((_c, i) => i + 1).join(', ')}
       ON CONFLICT (${keyCols.join(', ')}) DO UPDATE SET n = n + excluded.n`;
}

export function keptInsertCounts(): KeptInsertCount[] {
  const dims: KeptDimension[] = [...Object.values(KEPT_DIMENSIONS), ...Object.values(KEPT_VALUE_COUNTS)];
  return [
    {
      trigger: `${T}_days_ai`,
      addSql: bulkAdd(DAY_COUNTS, ['day', 'status', 'risk'], ['substr(t.created_at, 1, 10)', 't.status', riskBandSql('t.risklevel')]),
      addAllSql: bulkAdd(DAY_COUNTS, ['day', 'status', 'risk'], ['substr(t.created_at, 1, 10)', 't.status', riskBandSql('t.risklevel')], true),
    },
    ...dims.map((dim) => {
      const byDay = dim.byDay !== false;
      const keyCols = byDay ? ['k', 'day', 'status', 'risk'] : ['k', 'status', 'risk'];
      const vals = [keySql(`t.${dim.column}`), ...(byDay ? ['substr(t.created_at, 1, 10)'] : []), 't.status', riskBandSql('t.risklevel')];
      return { trigger: `${T}_${dim.name}_ai`, addSql: bulkAdd(dim.table, keyCols, vals), addAllSql: bulkAdd(dim.table, keyCols, vals, true) };
    }),
  ];
}
