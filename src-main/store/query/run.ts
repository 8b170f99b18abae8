// run(plan): materialises the plan's full-text matches, reads the page's row ids in order and
// then their rows, takes the total (proven by the page, reused while the data has not changed,
// read from the kept per-day counts when the plan is a tally of them, or counted), decodes the
// records and attaches their relations.
import { fieldOf, type FieldInfo } from '../../../src-shared/resources/index';
import { decodeRow } from '../codec';
import { and, orderSqlOf, selectByRids, whereClause } from '../search';
import { q } from '../sql';
import { Anchors, fromAnchor, keyColumns, keysetUsable } from './keyset';
import type { FtsHits, Rec, Store } from '../store';
import { countOf } from './days';
import { countSqlOf, fillSlots, idsSqlOf, matchKey, planResource, type Plan } from './plan';

export interface PlanResult {
  items: Rec[];
  total: number;
}

export interface RunOptions {
  /** A total already known for this plan's matches on the current data (skips the count). */
  total?: number;
  /** The data version the run reads (read before a read transaction began); default: now. */
  version?: string | null;
}

/** The total without a COUNT when the page proves it: a short page, or nothing on the first. */
export function provenTotal(plan: Plan, got: number): number | undefined {
  if (got > 0 && (plan.limit < 0 || got < plan.limit)) return plan.offset + got;
  if (got === 0 && plan.offset === 0 && plan.limit !== 0) return 0;
  return undefined;
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

export function runPlan(store: Store, plan: Plan, opts: RunOptions = {}): PlanResult {
  const r = planResource(plan.resource);
  const version = opts.version === undefined ? store.version() : opts.version;
  return store.withHits((hits) => {
    const { fill, exact } = materialise(hits, plan);
    const fields = plan.fields.map((n) => fieldOf(r, n)!);
    const hidden = plan.hidden.map((n): FieldInfo => fieldOf(r, n)!);
    const rows = store.rowsByRids(selectByRids(r, [...fields, ...hidden]), pageIds(store, plan, version, fill));
    let total = exact ?? provenTotal(plan, rows.length) ?? opts.total;
    if (total === undefined) {
      const key = matchKey(plan);
      total = store.totals.get(key, version);
      if (total === undefined) {
        total = plan.tally ? countOf(store, plan.tally) : countMatches(store, plan, fill);
        store.totals.set(key, version, total);
      }
    }
    const items = rows.map((row) => decodeRow(row, fields));
    store.attachRelations(r, rows, items, plan.load, plan.idRels, plan.relatedComputed);
    return { items, total };
  });
}

/**
 * The page's row ids in order. Where the order allows keyset paging, the sort keys come along,
 * the page starts from the nearest row noted at or before its offset, and its first and last
 * rows are noted for the pages after it (keyset.ts).
 */
function pageIds(store: Store, plan: Plan, version: string | null, fill: (sql: string) => string): { _rid: number }[] {
  const r = planResource(plan.resource);
  if (!keysetUsable(plan)) {
    const ids = idsSqlOf(r, plan);
    return store.all<{ _rid: number }>(fill(ids.sql), ids.params);
  }
  const key = `${matchKey(plan)}|${orderSqlOf(plan.order)}`;
  const anchors = store.anchors.get(key, version) ?? new Anchors();
  const anchor = plan.offset > 0 ? anchors.nearest(plan.offset) : undefined;
  const where = anchor ? and([plan.where, fromAnchor(plan.order, anchor.key)]) : plan.where;
  const rows = store.all<{ _rid: number } & Record<string, unknown>>(
    fill(`SELECT t._rid AS _rid, ${keyColumns(plan.order)} FROM ${q(r.table)} t ${whereClause(where)} ORDER BY ${orderSqlOf(plan.order)} LIMIT ? OFFSET ?`),
    [...where.params, plan.limit, plan.offset - (anchor?.pos ?? 0)],
  );
  if (rows.length) {
    const keyOf = (row: Record<string, unknown>) => plan.order.map((_k, i) => row[`k${i}`]);
    anchors.note(plan.offset, keyOf(rows[0]!));
    anchors.note(plan.offset + rows.length - 1, keyOf(rows[rows.length - 1]!));
    store.anchors.set(key, version, anchors);
  }
  return rows;
}

/** The number of a plan's matches: reused while the data has not changed, else counted. */
export function countPlan(store: Store, plan: Plan): number {
  const version = store.version();
  const key = matchKey(plan);
  const known = store.totals.get(key, version);
  if (known !== undefined) return known;
  return store.withHits((hits) => {
    const { fill, exact } = materialise(hits, plan);
    const total = exact ?? (plan.tally ? countOf(store, plan.tally) : countMatches(store, plan, fill));
    store.totals.set(key, version, total);
    return total;
  });
}

/** COUNT(*) of the plan's matches. */
function countMatches(store: Store, plan: Plan, fill: (sql: string) => string): number {
  const count = countSqlOf(planResource(plan.resource), plan);
  return store.get1<{ n: number }>(fill(count.sql), count.params)?.n ?? 0;
}
