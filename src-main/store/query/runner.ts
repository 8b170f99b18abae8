// The query runner: every read of a compiled plan goes through it. A page (the plan's full-text
// matches materialised, the page's row ids read in order and then their rows, the total proven
// by the page, reused while the data has not changed, read from the kept per-day counts when the
// plan is a tally of them, or counted; records decoded, relations attached), the count of the
// matches, a resource's whole count, a v2 search, the incident statistics, the group operation,
// an export's stream and delete_all: each resolves the plan's resource once for its run.
import { ApiError, badRequest, ERR } from '../../../src-shared/errors';
import { fieldOf, RESOURCES, type FieldInfo, type ResourceDef } from '../../../src-shared/resources/index';
import { emptySearch, type SearchFilter, type SearchRequest } from '../../../src-shared/schemas/search';
import { decodeRow } from '../codec';
import { and, columnExpr, orderSqlOf, selectByRids, whereClause } from '../search';
import { trackDeletes } from '../outbox';
import { isForeignKeyError } from '../write/constraints';
import { q } from '../sql';
import { Anchors, fromAnchor, keyColumns, keysetUsable } from './keyset';
import type { Rec, WriteContext } from '../api';
import { attachRelations } from '../relations';
import type { Statements } from '../statements';
import { countOf, keptSliceHolds } from './days';
import { byValue, EVERY_GROUP, indexLedBy, keptGroups, oneStatus, statusValueIndex, walkIndex, type Group, type GroupPage, type GroupResult } from './groups';
import { compileSearchPlan, countSqlOf, idsSqlOf, materialise, matchKey, planResource, type Plan } from './plan';
import { incidentStats, textMatchCount, type IncidentStats, type StatBucket } from './stats';
import { openStream, type Stream } from './stream';

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

export class Runner {
  constructor(readonly store: Statements) {}

  /** A page of the plan's matches with their total (the plan's resource resolved once for the run). */
  page(plan: Plan, opts: RunOptions = {}): PlanResult {
    const store = this.store;
    const r = planResource(plan.resource);
    const version = opts.version === undefined ? store.version() : opts.version;
    return store.withHits((hits) => {
      const { fill, fillCount, exact } = materialise(hits, plan);
      const fields = plan.fields.map((n) => fieldOf(r, n)!);
      const hidden = plan.hidden.map((n): FieldInfo => fieldOf(r, n)!);
      const rows = store.rowsByRids(selectByRids(r, [...fields, ...hidden]), this.pageIds(plan, r, version, fill));
      let total = exact ?? provenTotal(plan, rows.length) ?? opts.total;
      if (total === undefined) {
        const key = matchKey(plan);
        total = store.totals.get(key, version);
        if (total === undefined) {
          total = this.keptTally(plan) ? countOf(store, plan.tally!) : this.countMatches(plan, r, fillCount, version);
          store.totals.set(key, version, total);
        }
      }
      const items = rows.map((row) => decodeRow(row, fields));
      attachRelations(store, r, rows, items, plan.load, plan.idRels, plan.relatedComputed);
      return { items, total };
    }, version);
  }

  /** The number of a plan's matches: reused while the data has not changed, else counted. */
  count(plan: Plan, version: string | null = this.store.version()): number {
    const store = this.store;
    const key = matchKey(plan);
    const known = store.totals.get(key, version);
    if (known !== undefined) return known;
    return store.withHits((hits) => {
      const { fillCount, exact } = materialise(hits, plan);
      const total = exact ?? (this.keptTally(plan) ? countOf(store, plan.tally!) : this.countMatches(plan, planResource(plan.resource), fillCount, version));
      store.totals.set(key, version, total);
      return total;
    }, version);
  }

  /**
   * A plan's matches streamed from a read transaction of its own on `dbFile` (stream.ts, for
   * exports): counted first as count() counts them, then read row by row; `json`: the fields of
   * each record's JSON text written by SQLite (null: rows as arrays).
   */
  static stream(dbFile: string, plan: Plan, o: { json?: readonly string[] | null } = {}): Stream {
    return openStream(dbFile, plan, o.json ?? null, (st, p) => new Runner(st).count(p));
  }

  /** Every record of a resource (no filter). */
  countAll(r: ResourceDef): number {
    return this.store.get1<{ n: number }>(`SELECT COUNT(*) AS n FROM ${q(r.table)}`)?.n ?? 0;
  }

  /** The incident statistics of a plan's matches (the per-day kept counts when the plan is a tally of them). */
  stats(plan: Plan, bucket: StatBucket | 'auto', version: string | null = this.store.version()): IncidentStats {
    return incidentStats(this.store, plan, bucket, version);
  }

  /** A v2 search request answered as `{items, total}`. */
  search(r: ResourceDef, req: SearchRequest): PlanResult {
    return this.page(compileSearchPlan(r, req));
  }

  /** The group operation of a request: each value of a field with its count, the most frequent first, or a page of them (`page`). */
  group(r: ResourceDef, groupField: string | undefined, filters: readonly SearchFilter[] = [], page: GroupPage = EVERY_GROUP): GroupResult {
    const g = compileGroup(r, groupField, filters);
    return this.groupPlan(g.plan, g.field, this.store.version(), page);
  }

  /**
   * A plan's matches grouped by a field (its page and order ignored): from the kept counts when
   * the plan is a tally of them and the field is one they are kept by, else grouped in SQL with
   * the plan's full-text matches and widening. The groups come in the page's order from its
   * offset, at most its limit: in value order, a field with an index is read in the index's
   * order and the read stops after the page. A paged answer carries the number of groups (kept
   * per data version) and of records.
   */
  groupPlan(plan: Plan, field: string, version: string | null = this.store.version(), page: GroupPage = EVERY_GROUP): GroupResult {
    const r = planResource(plan.resource);
    const f = groupFieldOf(r, field);
    const decode = (rows: readonly Group[]) => rows.map((row) => ({ value: decodeRow({ [f.name]: row.value }, [f])[f.name], count: row.count }));
    const kept = f.source === 'stored' && this.keptTally(plan) ? keptGroups(this.store, f.name, plan.tally!) : undefined;
    if (kept) {
      const all = page.order === 'value' ? [...kept].sort(byValue) : kept;
      const items = decode(page.offset === 0 && page.limit === undefined ? all : all.slice(page.offset, page.limit === undefined ? undefined : page.offset + page.limit));
      return page.paged ? { items, groups: all.length, total: all.reduce((n, g) => n + g.count, 0) } : { items };
    }
    const store = this.store;
    const value = columnExpr(r, f);
    // A page by value under one status: the (status, field) index's range of that status holds
    // the page in order. Under other conditions that match many records: the field's index
    // walked in order.
    let from = `${q(r.table)} t`;
    if (page.order === 'value' && page.limit !== undefined && plan.where.sql !== '1' && !plan.fts.length && !plan.cte && f.source === 'stored') {
      const statusIndex = oneStatus(plan) ? indexLedBy(store, r.table, 'status', f.name) : null;
      const index = statusIndex ?? indexLedBy(store, r.table, f.name);
      if (statusIndex) from += ` INDEXED BY ${q(statusIndex)}`;
      else if (index && walkIndex(page, this.count(plan, version), this.count(compileSearchPlan(r, emptySearch(-1, 0)), version))) from += ` INDEXED BY ${q(index)}`;
    }
    const grouped = `SELECT ${value} AS value, COUNT(*) AS count FROM ${from} ${whereClause(plan.where)} GROUP BY 1`;
    const order = page.order === 'value' ? 'value ASC' : 'count DESC, value ASC';
    const rows = store.withHits((hits) => {
      const { fillCount } = materialise(hits, plan);
      if (page.offset === 0 && page.limit === undefined) return store.all<Group>(fillCount(`${plan.cte}${grouped} ORDER BY ${order}`), plan.where.params);
      return store.all<Group>(fillCount(`${plan.cte}${grouped} ORDER BY ${order} LIMIT ? OFFSET ?`), [...plan.where.params, page.limit ?? -1, page.offset]);
    }, version);
    if (!page.paged) return { items: decode(rows) };
    // The number of groups: the distinct values, and one more when some records have none.
    const key = `${matchKey(plan)}|groups|${f.name}`;
    let groups = store.totals.get(key, version);
    if (groups === undefined) {
      groups = store.withHits((hits) => {
        const { fillCount } = materialise(hits, plan);
        // Two statements: COUNT(DISTINCT) alone reads a field's index in order, without a temporary B-tree.
        const covering = f.source === 'stored' ? statusValueIndex(store, r.table, f.name, plan) : null;
        const distinct = `${plan.cte}SELECT COUNT(DISTINCT ${value}) AS n FROM ${q(r.table)} t${covering ? ` INDEXED BY ${q(covering)}` : ''} ${whereClause(plan.where)}`;
        const none = `${plan.cte}SELECT EXISTS (SELECT 1 FROM ${q(r.table)} t WHERE (${plan.where.sql}) AND ${value} IS NULL) AS n`;
        const n = (sql: string) => store.get1<{ n: number }>(fillCount(sql), plan.where.params)?.n ?? 0;
        return n(distinct) + n(none);
      }, version);
      store.totals.set(key, version, groups);
    }
    return { items: decode(rows), groups, total: this.count(plan, version) };
  }

  /** delete_all over a request's filters (deleteMatches of its plan). */
  deleteAll(r: ResourceDef, filters: readonly SearchFilter[] = [], ctx: WriteContext = {}): { deleted: number } {
    return this.deleteMatches(compileSearchPlan(r, { ...emptySearch(-1, 0), filters: [...filters] }), ctx);
  }

  /**
   * Deletes every match of a plan in one transaction (its page ignored): refused whole (409)
   * when another resource's restricting reference names one of them; each deletion recorded in
   * a snapshot's outbox like a single delete.
   */
  deleteMatches(plan: Plan, ctx: WriteContext = {}): { deleted: number } {
    const store = this.store;
    const r = planResource(plan.resource);
    return store.tx(() =>
      store.withHits((hits) => {
        const { fill } = materialise(hits, plan);
        store.db.exec('CREATE TEMP TABLE IF NOT EXISTS rc_matched_ids (id TEXT PRIMARY KEY) WITHOUT ROWID');
        store.scratch('DELETE FROM temp.rc_matched_ids');
        try {
          store.scratch(fill(`${plan.cte}INSERT INTO temp.rc_matched_ids (id) SELECT t.id FROM ${q(r.table)} t ${whereClause(plan.where)}`), plan.where.params);
          const matched = 'SELECT id FROM temp.rc_matched_ids';
          const blocking: string[] = [];
          for (const other of RESOURCES) {
            for (const [fname, def] of Object.entries(other.fields)) {
              if (def.ref !== r.name || def.onDelete !== 'restrict') continue;
              if (store.get1(`SELECT 1 AS x FROM ${q(other.table)} WHERE ${q(fname)} IN (${matched}) LIMIT 1`)) blocking.push(other.name);
            }
          }
          if (blocking.length) throw new ApiError(409, ERR.relatedData, { fields: [...new Set(blocking)] });
          trackDeletes(store, r, () => store.all<{ id: string }>(matched).map((x) => x.id), ctx);
          try {
            return { deleted: store.run(`DELETE FROM ${q(r.table)} WHERE id IN (${matched})`).changes };
          } catch (e) {
            if (isForeignKeyError(e)) throw new ApiError(409, ERR.relatedData, { fields: [r.name] });
            throw e;
          }
        } finally {
          store.scratch('DELETE FROM temp.rc_matched_ids');
        }
      }),
    );
  }

  /**
   * The page's row ids in order. Where the order allows keyset paging, the sort keys come along,
   * the page starts from the nearest row noted at or before its offset, and its first and last
   * rows are noted for the pages after it (keyset.ts).
   */
  private pageIds(plan: Plan, r: ResourceDef, version: string | null, fill: (sql: string) => string): { _rid: number }[] {
    const store = this.store;
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

  /** Whether the plan's matches are read from the kept counts on the data as it is (days.ts, keptSliceHolds). */
  private keptTally(plan: Plan): boolean {
    return plan.tally !== undefined && keptSliceHolds(this.store, plan.tally);
  }

  /** The number of the plan's matches: COUNT(*) in SQL, or a text search within statuses, bands and a range from every incident's cell (stats.ts, textMatchCount). */
  private countMatches(plan: Plan, r: ResourceDef, fill: (sql: string) => string, version: string | null): number {
    const viaCells = textMatchCount(this.store, plan, version);
    if (viaCells !== null) return viaCells;
    const count = countSqlOf(r, plan);
    return this.store.get1<{ n: number }>(fill(count.sql), count.params)?.n ?? 0;
  }
}

/** A group request as a plan and the field it groups by (400 for a bad field, then for a bad filter). */
export function compileGroup(r: ResourceDef, groupField: string | undefined, filters: readonly SearchFilter[] = []): { plan: Plan; field: string } {
  const f = groupFieldOf(r, groupField);
  return { plan: compileSearchPlan(r, { ...emptySearch(-1, 0), filters: [...filters] }), field: f.name };
}

/** The field a grouping is by: 400 when absent, unknown, JSON or secret. */
function groupFieldOf(r: ResourceDef, name: string | undefined): FieldInfo {
  if (!name) throw badRequest(ERR.groupFieldEmpty);
  const f = fieldOf(r, name);
  if (!f || f.kind === 'json' || f.def?.secret) throw badRequest(ERR.invalidField);
  return f;
}
