// compile(request) -> plan, with no side effects: a plan is plain data (SQL text from registry
// identifiers, bound values, the full-text matches to materialise, the fields and relations of
// the answer), so it can be cached, compared, and run on any connection to the database, in
// this thread or a reader's. runner.ts runs them (page, count, group, stats, stream, delete_all).
// A plan's `tally` is its conditions as a slice of the kept counts, worked out once when it is
// compiled (kinds/incidents/kept.ts, sliceOf).
import { publicEntity, publicResource } from '../../../src-shared/public/entities';
import { fieldOf, fieldsOf, getResource, type RelationDef, type ResourceDef } from '../../../src-shared/resources/index';
import { WITH_NAMES, withNameFields } from '../../../src-shared/resources/names';
import type { SearchFilter, SearchRequest } from '../../../src-shared/schemas/search';
import { sliceOf, type Condition, type DaySlice } from '../kinds/incidents/kept';
import { countSql, idsSql, pageSql, searchParts, type OrderKey, type SqlContext } from '../search';
import { q } from '../sql';
import type { FtsHits } from '../statements';
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
  /**
   * The matches as one full-text match (the plan's only slot, the text searched) within a slice of
   * the kept counts (the other conditions: statuses, bands, a range, an owner...), so that their
   * aggregates can be worked out from the match's row ids (match-days.ts); absent otherwise.
   */
  textTally?: DaySlice;
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
    tally: sliceOfFilters(r, req.filters, req.virtual_search.value, p.cte),
    textTally: textSliceOf(slots.slots, req.virtual_search.value !== '' && !req.virtual_search.strict, () => sliceOfFilters(r, req.filters, '', p.cte)),
  };
}

/**
 * A plan's textTally: when its one full-text slot is the text searched (not strict: the match
 * alone stands for the text) and the other conditions are a slice of the kept counts (those
 * conditions never make a full-text slot of their own).
 */
export function textSliceOf(slots: readonly FtsSlot[], textAlone: boolean, rest: () => DaySlice | undefined): DaySlice | undefined {
  if (!textAlone || slots.length !== 1) return undefined;
  return rest();
}

/**
 * A v2 search's conditions as the kept counts take them (kinds/incidents/kept.ts: sliceOf),
 * each as the compiler takes it; undefined when one has no such form (text search, widening,
 * extension parameters, a range open at both ends or a negated range closed at both).
 */
export function conditionsOfFilters(filters: readonly SearchFilter[], text: string, cte: string): Condition[] | undefined {
  if (cte !== '' || text !== '') return undefined;
  const out: Condition[] = [];
  const not = (f: SearchFilter) => (f.negation ? { not: true } : {});
  for (const f of filters) {
    if (f.extension_params) return undefined;
    if (f.filter_type === 'equal') out.push({ field: f.field, op: 'eq', values: [f.value], ...not(f) });
    else if (f.filter_type === 'intersection' && Array.isArray(f.value)) out.push({ field: f.field, op: 'in', values: f.value, ...not(f) });
    else if (f.filter_type === 'exists') out.push({ field: f.field, op: 'isnull', values: [], ...not(f) });
    else if (f.filter_type === 'range' && Array.isArray(f.value) && f.value.length === 2) {
      const [from, to] = f.value as unknown[];
      const open = (v: unknown) => v === null || v === undefined;
      if (open(from) && open(to)) {
        // No bound at all: nothing to keep for created_at, a condition of another kind otherwise.
        if (f.field === 'created_at' && !f.negation) continue;
        return undefined;
      }
      // A negated range closed at both ends is not one bound; risklevel takes one bound only.
      if ((f.negation || f.field === 'risklevel') && !open(from) && !open(to)) return undefined;
      if (!open(from)) out.push({ field: f.field, op: 'ge', values: [from], ...not(f) });
      if (!open(to)) out.push({ field: f.field, op: 'le', values: [to], ...not(f) });
    } else return undefined;
  }
  return out;
}

/**
 * A search's matches as a slice of the kept counts (sliceOf over its conditions), for its total
 * and its groupings; undefined when any other condition applies. Called after the request
 * compiled, so its values are known to be valid.
 */
export function sliceOfFilters(r: ResourceDef, filters: readonly SearchFilter[], text: string, cte: string): DaySlice | undefined {
  const conds = conditionsOfFilters(filters, text, cte);
  return conds && sliceOf(r, conds);
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
export function materialise(hits: FtsHits, plan: Plan): { fill: (sql: string) => string; fillCount: (sql: string) => string; exact: number | undefined } {
  const slots = plan.fts.map((s) => hits.materialise(s.table, s.match));
  return {
    fill: (sql) => fillSlots(sql, (i) => slots[i]!.sql),
    fillCount: (sql) => fillSlots(sql, (i) => (slots[i]!.count <= DRIVEN_COUNT_HITS ? slots[i]!.sql.replace(/^\+/, '') : slots[i]!.sql)),
    exact: plan.fts.length === 1 && !plan.cte && plan.where.sql === '{{fts:0}}' ? slots[0]!.count : undefined,
  };
}

/**
 * Up to this many matches, a count over a full-text match and other conditions reads the
 * matches by row id (the match drives the read) instead of walking an index of the other
 * conditions and probing the match, as a page in an index's order does above DENSE_HITS: a
 * count reads every match, and reading 100,000 rows by id costs less than a walk of a
 * 1,000,000-entry index or table (about the same from a third of the table up).
 */
export const DRIVEN_COUNT_HITS = 100_000;
