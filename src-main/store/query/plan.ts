// compile(request) -> plan, with no side effects: a plan is plain data (SQL text from registry
// identifiers, bound values, the full-text matches to materialise, the fields and relations of
// the answer), so it can be cached, compared, and run on any connection to the database, in
// this thread or a reader's. run.ts executes plans.
import { publicEntity, publicResource } from '../../../src-shared/public/entities';
import { fieldOf, fieldsOf, getResource, type RelationDef, type ResourceDef } from '../../../src-shared/resources/index';
import { WITH_NAMES, withNameFields } from '../../../src-shared/resources/names';
import type { SearchFilter, SearchRequest } from '../../../src-shared/schemas/search';
import { RISK_BANDS } from '../../../src-shared/resources/fields';
import { COUNTED, KEPT_DIMENSIONS, type KeptColumn } from '../kinds/incidents/kept';
import { countSql, idsSql, pageSql, searchParts, type OrderKey, type SqlContext } from '../search';
import { q } from '../sql';
import { normalizeTs } from '../../../src-shared/time';
import type { FtsHits } from '../statements';
import type { DaySlice } from './days';
import type { Sql } from './operators';

export type { OrderKey };

/** A full-text match the plan needs: its rows are materialised once per run. */
export interface FtsSlot {
  table: string;
  match: string;
}

export interface Plan {
  /** Registry name, or `public:<path>` for a public list. */
  resource: string;
  /** Full-text matches named in `where` as {{fts:N}}. */
  fts: FtsSlot[];
  /** A WITH prefix (tree widening), or ''. */
  cte: string;
  where: Sql;
  order: OrderKey[];
  /** -1: every match. */
  limit: number;
  offset: number;
  /** Fields of the answer, in answer order. */
  fields: string[];
  /** Belongs-to keys read only to load relations (not in the answer). */
  hidden: string[];
  /** Relations loaded into each record. */
  load: string[];
  /** Relations whose ids go in `_relations`. */
  idRels: string[];
  /** Whether related records carry their computed fields (the public API's do not). */
  relatedComputed: boolean;
  /**
   * The matches as incidents of some statuses created within a range and nothing else, so that
   * their number is read from the kept per-day counts (days.ts) instead of counted; absent
   * whenever any other condition applies.
   */
  tally?: DaySlice;
}

/** The resource a plan reads: a registry resource or a public list's view of one. */
export function planResource(name: string): ResourceDef {
  if (name.endsWith(WITH_NAMES)) return withNameFields(planResource(name.slice(0, -WITH_NAMES.length)));
  if (name.startsWith('public:')) {
    const e = publicEntity(name.slice('public:'.length));
    if (e) return publicResource(e);
  }
  return getResource(name);
}

/** Records full-text matches as numbered slots instead of touching the database. */
export class SlotContext implements SqlContext {
  readonly slots: FtsSlot[] = [];

  fts(table: string, match: string): Sql {
    const i = this.slots.push({ table, match }) - 1;
    return { sql: `{{fts:${i}}}`, params: [] };
  }
}

const SLOT = /\{\{fts:(\d+)\}\}/g;

/** The plan's SQL with each full-text slot replaced by the given condition text. */
export const fillSlots = (sql: string, slotSql: (i: number) => string): string => sql.replace(SLOT, (_m, i: string) => slotSql(Number(i)));

/** Slots as subqueries (for callers that run the SQL as one statement, e.g. exports). */
export function inlineSlots(plan: Plan, sql: string, params: readonly unknown[]): Sql {
  // Slot conditions carry their own parameter, which must be bound where the slot stands.
  const out: unknown[] = [];
  let p = 0;
  const parts = sql.split(/(\{\{fts:\d+\}\}|\?)/);
  const text = parts
    .map((part) => {
      if (part === '?') {
        out.push(params[p++]);
        return part;
      }
      const m = /^\{\{fts:(\d+)\}\}$/.exec(part);
      if (!m) return part;
      const slot = plan.fts[Number(m[1])]!;
      out.push(slot.match);
      return `t._rid IN (SELECT rowid FROM ${q(slot.table)} WHERE ${q(slot.table)} MATCH ?)`;
    })
    .join('');
  return { sql: text, params: out };
}

/** The COUNT of a plan's matches (slots unresolved). */
export const countSqlOf = (r: ResourceDef, plan: Plan): Sql => countSql(r, plan);

/** The page's row ids, in order (slots unresolved). */
export const idsSqlOf = (r: ResourceDef, plan: Plan): Sql => idsSql(r, plan, plan.limit, plan.offset);

/** Every selected column of the page in one statement (slots unresolved): for streaming. */
export const pageSqlOf = (r: ResourceDef, plan: Plan): Sql =>
  pageSql(
    r,
    plan,
    [...plan.fields, ...plan.hidden].map((n) => fieldOf(r, n)!),
    plan.limit,
    plan.offset,
  );

/** Identifies the matched set: plans with equal keys have equal totals on the same data. */
export const matchKey = (plan: Plan): string => JSON.stringify([plan.resource, plan.cte, plan.where.sql, plan.where.params, plan.fts]);

const belongsToKeys = (r: ResourceDef, names: readonly string[]): string[] =>
  names
    .map((n) => r.relations![n]!)
    .filter((rel): rel is Extract<RelationDef, { kind: 'belongsTo' }> => rel.kind === 'belongsTo')
    .map((rel) => rel.fk);

/** A v2 search request (already validated by its schema) as a plan; 400 for a bad field or value. */
export function compileSearchPlan(r: ResourceDef, req: SearchRequest): Plan {
  const slots = new SlotContext();
  const p = searchParts(r, req, slots);
  return {
    resource: r.name,
    fts: slots.slots,
    cte: p.cte,
    where: p.where,
    order: p.order,
    limit: req.limit,
    offset: req.offset,
    fields: p.fields.map((f) => f.name),
    hidden: p.hidden.map((f) => f.name),
    load: p.load,
    idRels: p.idRels,
    relatedComputed: true,
    tally: tallyOf(r, req, p.cte),
  };
}

/** Where each risk band starts (its lowest risklevel, inclusive), as riskBandSql bands them. */
const BAND_STARTS: readonly [number, number][] = [
  [4, RISK_BANDS.indexOf('medium')],
  [7, RISK_BANDS.indexOf('high')],
  [9, RISK_BANDS.indexOf('critical')],
];

/**
 * The bands a risklevel range holds exactly (risklevel is never null): `[x, null]` with x a
 * band's start, `[null, 0]` (band none), and either negated; undefined for any other range.
 */
function bandsOfRange(from: unknown, to: unknown, negation: boolean): string[] | undefined {
  let inside: string[] | undefined;
  if ((to === null || to === undefined) && typeof from === 'number') {
    const start = BAND_STARTS.find(([x]) => x === from);
    if (start) inside = RISK_BANDS.slice(start[1]);
  } else if ((from === null || from === undefined) && to === 0) {
    inside = ['none'];
  }
  if (!inside) return undefined;
  return negation ? RISK_BANDS.filter((b) => !inside.includes(b)) : inside;
}

const KEPT_COLUMNS: readonly string[] = Object.keys(KEPT_DIMENSIONS);

/**
 * A search's matches as a slice of the kept counts, when its conditions are at most a
 * creation-time range, status lists or values, risklevel ranges at the bounds of the risk
 * bands, and values of one of the owner or group columns (or none: `exists`), each taken as the
 * compiler takes it; undefined otherwise (negation, text search, widening, any other field).
 * Called after the request compiled, so its values are known to be valid.
 */
export function sliceOfFilters(r: ResourceDef, filters: readonly SearchFilter[], text: string, cte: string): DaySlice | undefined {
  if (r.table !== COUNTED.table || cte !== '' || text !== '') return undefined;
  const slice: DaySlice = { statuses: null };
  const keep = (values: string[]) => {
    slice.statuses = slice.statuses === null ? [...new Set(values)] : slice.statuses.filter((x) => values.includes(x));
  };
  const keepRisks = (bands: string[]) => {
    slice.risks = slice.risks ? slice.risks.filter((x) => bands.includes(x)) : bands;
  };
  const keepKey = (column: KeptColumn, values: (string | null)[]) => {
    if (slice.key && slice.key.column !== column) return false;
    const was = slice.key?.values;
    slice.key = { column, values: was ? was.filter((x) => values.includes(x)) : [...new Set(values)] };
    return true;
  };
  const asText = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);
  for (const f of filters) {
    if (f.extension_params) return undefined;
    if (f.field === 'risklevel' && f.filter_type === 'range' && Array.isArray(f.value) && f.value.length === 2) {
      const bands = bandsOfRange(f.value[0], f.value[1], f.negation === true);
      if (!bands) return undefined;
      keepRisks(bands);
      continue;
    }
    if (f.negation) return undefined;
    if (f.field === 'status' && f.filter_type === 'equal') {
      const v = asText(f.value);
      if (v === undefined) return undefined;
      keep([v]);
    } else if (f.field === 'status' && f.filter_type === 'intersection' && Array.isArray(f.value)) {
      const values = f.value.map(asText);
      if (values.some((v) => v === undefined)) return undefined;
      keep(values as string[]);
    } else if (KEPT_COLUMNS.includes(f.field) && f.filter_type === 'equal' && typeof f.value === 'string') {
      if (!keepKey(f.field as KeptColumn, [f.value])) return undefined;
    } else if (KEPT_COLUMNS.includes(f.field) && f.filter_type === 'intersection' && Array.isArray(f.value) && f.value.every((v) => typeof v === 'string')) {
      if (!keepKey(f.field as KeptColumn, f.value as string[])) return undefined;
    } else if (KEPT_COLUMNS.includes(f.field) && f.filter_type === 'exists') {
      if (!keepKey(f.field as KeptColumn, [null])) return undefined;
    } else if (f.field === 'created_at' && f.filter_type === 'range' && Array.isArray(f.value) && f.value.length === 2) {
      const [from, to] = f.value as unknown[];
      const bound = (v: unknown): string | null | undefined => (v === null || v === undefined ? null : typeof v === 'string' ? (normalizeTs(v) ?? undefined) : undefined);
      const lo = bound(from);
      const hi = bound(to);
      if (lo === undefined || hi === undefined) return undefined;
      if (lo !== null && (!slice.lower || lo > slice.lower.ts)) slice.lower = { ts: lo, strict: false };
      if (hi !== null && (!slice.upper || hi < slice.upper.ts)) slice.upper = { ts: hi, strict: false };
    } else {
      return undefined;
    }
  }
  return slice;
}

/** A search's matches as a slice of the kept counts (sliceOfFilters), for its total. */
export function tallyOf(r: ResourceDef, req: SearchRequest, cte: string): DaySlice | undefined {
  return sliceOfFilters(r, req.filters, req.virtual_search.value, cte);
}

/** A plan over a condition compiled elsewhere (the public standard filters): every field. */
export function listPlan(r: ResourceDef, o: { fts: FtsSlot[]; where: Sql; order: OrderKey[]; limit: number; offset: number; load: readonly string[]; relatedComputed: boolean }): Plan {
  const fields = fieldsOf(r);
  return {
    resource: r.name,
    fts: o.fts,
    cte: '',
    where: o.where,
    order: o.order,
    limit: o.limit,
    offset: o.offset,
    fields: fields.map((f) => f.name),
    hidden: belongsToKeys(r, o.load).filter((n) => !fields.some((f) => f.name === n)),
    load: [...o.load],
    idRels: [],
    relatedComputed: o.relatedComputed,
  };
}

/**
 * The plan's full-text matches materialised: `fill` puts their conditions into the plan's SQL;
 * `exact` is the number of matches when the condition is that one match alone.
 */
export function materialise(hits: FtsHits, plan: Plan): { fill: (sql: string) => string; exact: number | undefined } {
  const slots = plan.fts.map((s) => hits.materialise(s.table, s.match));
  return {
    fill: (sql) => fillSlots(sql, (i) => slots[i]!.sql),
    exact: plan.fts.length === 1 && !plan.cte && plan.where.sql === '{{fts:0}}' ? slots[0]!.count : undefined,
  };
}
