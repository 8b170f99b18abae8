// A change over every incident a query matches, as ONE transaction: the query (the filters and
// text search of a v2 search, compiled by the search plan as any search is) is read inside the
// transaction, then each incident is written through the store's one write path (store.update,
// or changeStatus for a status with its reason), so status-change rows, the kinds' hooks and a
// snapshot's outbox entries are made exactly as for a single change. The caller writes it in
// steps (progress and cancel between them) and ends it with commit or rollback: nothing of it
// is visible to other connections before the commit, and a rollback leaves nothing behind.
//
// The search index (FTS5) is kept in step once, at the end, not per incident: FTS5 writes its
// pending changes out at every savepoint, and the write path makes one per incident, so a change
// over 3,000 incidents took 51 s with the index's triggers against 4.4 s without them (measured
// in one run on a busy machine). For the transaction the triggers of the tables it writes are
// dropped: the changed incidents' index entries are taken out before and put back after, the rows
// it adds (status-change rows, messages) indexed after; then the triggers are put back. A
// rollback takes all of it back with the rest.
//
// On a database file the transaction runs on a connection of its own (BEGIN IMMEDIATE: it holds
// SQLite's write lock from the start, and the server's connection keeps reading what was last
// committed); an in-memory database has one connection only, and the change runs on it.
import { ApiError, MASS } from '../../../../src-shared/errors';
import { getResource } from '../../../../src-shared/resources/index';
import { K } from '../../../../src-shared/resources/kinds';
import type { IncidentStatus } from '../../../../src-shared/resources/fields';
import type { BulkChange, BulkQuery } from '../../../../src-shared/schemas/incident-bulk';
import { emptySearch } from '../../../../src-shared/schemas/search';
import { openConnection } from '../../connection';
import { ftsTable, searchableFields } from '../../ddl';
import { q } from '../../sql';
import type { WriteContext } from '../../api';
import { compileSearchPlan } from '../../query/plan';
import { Runner } from '../../query/runner';
import { Store } from '../../store';
import { changeStatus } from './status';

export type BulkField = 'status' | 'risklevel' | 'user_id' | 'group_id';

/** Milliseconds the bulk connection waits for another writer (an import) before it gives up (503). */
const BUSY_TIMEOUT_MS = 5000;

/** Tables a change adds rows to (a status change's row and its reason). */
const ADDED_TO = [K.statusChange, K.message] as const;

/** The search index's triggers, dropped for the transaction and put back at its end (see above). */
class IndexPause {
  private readonly triggers: { name: string; sql: string }[] = [];
  private readonly added: { table: string; fts: string; cols: string; before: number }[] = [];
  private readonly changed: { table: string; fts: string; cols: string } | null;

  constructor(
    private readonly store: Store,
    private readonly idsJson: string,
  ) {
    const incidents = getResource('service_asset_findings');
    this.changed = this.drop(`${incidents.table}_fts_au`) ? indexOf(incidents) : null;
    if (this.changed) {
      const { table, fts, cols } = this.changed;
      store.run(`INSERT INTO ${fts} (${fts}, rowid, ${cols}) SELECT 'delete', _rid, ${cols} FROM ${q(table)} WHERE id IN (SELECT value FROM json_each(?))`, [idsJson]);
    }
    for (const name of ADDED_TO) {
      const r = getResource(name);
      if (!this.drop(`${r.table}_fts_ai`)) continue;
      const before = store.get1<{ n: number }>(`SELECT COALESCE(MAX(_rid), 0) AS n FROM ${q(r.table)}`)!.n;
      this.added.push({ ...indexOf(r), before });
    }
  }

  private drop(name: string): boolean {
    const row = this.store.get1<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`, [name]);
    if (!row) return false;
    this.store.db.exec(`DROP TRIGGER ${q(name)}`);
    this.triggers.push({ name, sql: row.sql });
    return true;
  }

  /** Indexes the changed incidents and the added rows, and puts the triggers back (before the commit). */
  resume(): void {
    if (this.changed) {
      const { table, fts, cols } = this.changed;
      this.store.run(`INSERT INTO ${fts} (rowid, ${cols}) SELECT _rid, ${cols} FROM ${q(table)} WHERE id IN (SELECT value FROM json_each(?))`, [this.idsJson]);
    }
    for (const a of this.added) this.store.run(`INSERT INTO ${a.fts} (rowid, ${a.cols}) SELECT _rid, ${a.cols} FROM ${q(a.table)} WHERE _rid > ?`, [a.before]);
    for (const t of this.triggers) this.store.db.exec(t.sql);
  }
}

function indexOf(r: ReturnType<typeof getResource>): { table: string; fts: string; cols: string } {
  return { table: r.table, fts: q(ftsTable(r)), cols: searchableFields(r).map(q).join(', ') };
}

export const fieldOfChange = (c: BulkChange): BulkField =>
  'status' in c ? 'status' : 'risklevel' in c ? 'risklevel' : 'user_id' in c ? 'user_id' : 'group_id';

export class IncidentBulk {
  /** The matched incidents, in display order, with their value of the field before the change. */
  readonly items: { id: string; before: unknown }[];
  readonly field: BulkField;
  done = 0;
  changed = 0;
  private ended = false;
  private readonly value: Record<string, unknown>;
  private readonly index: IndexPause;

  private constructor(
    private readonly store: Store,
    private readonly own: boolean,
    private readonly change: BulkChange,
    private readonly ctx: WriteContext,
    items: { id: string; before: unknown }[],
  ) {
    this.items = items;
    this.field = fieldOfChange(change);
    this.value = 'status' in change ? {} : store.parseFieldValues(getResource('service_asset_findings'), change);
    this.index = new IndexPause(store, JSON.stringify(items.map((x) => x.id)));
  }

  /**
   * Opens the transaction and reads the query's incidents. 400 for a query or value the search
   * or the field refuses; SQLITE_BUSY (503) when another writer holds the database.
   */
  static begin(server: Store, query: BulkQuery, change: BulkChange, ctx: WriteContext): IncidentBulk {
    const incidents = getResource('service_asset_findings');
    const field = fieldOfChange(change);
    // Checked before anything is opened: the same checks a single change makes.
    if (!('status' in change)) server.parseFieldValues(incidents, change);
    const plan = compileSearchPlan(incidents, {
      ...emptySearch(1),
      include_fields: ['id', field],
      filters: query.filters,
      ordering: [{ field: 'display_id', direction: 'asc' }],
      ...(query.virtual_search ? { virtual_search: query.virtual_search } : {}),
    });
    const file = server.db.name;
    const own = !server.db.memory && !!file && file !== ':memory:';
    const store = own ? new Store(openConnection(file, { create: false, busyTimeoutMs: BUSY_TIMEOUT_MS }).db) : server;
    try {
      store.db.exec('BEGIN IMMEDIATE');
      try {
        const { items } = new Runner(store).page({ ...plan, limit: -1, offset: 0 });
        return new IncidentBulk(
          store,
          own,
          change,
          ctx,
          items.map((r) => ({ id: r.id as string, before: r[field] ?? null })),
        );
      } catch (e) {
        store.db.exec('ROLLBACK');
        throw e;
      }
    } catch (e) {
      if (own) store.db.close();
      throw e;
    }
  }

  get total(): number {
    return this.items.length;
  }

  get finished(): boolean {
    return this.done >= this.items.length;
  }

  /** Writes the next `n` incidents (in the open transaction); an incident that cannot be written fails the whole change. */
  step(n: number): void {
    if (this.ended) throw new Error('the bulk change has ended');
    const part = this.items.slice(this.done, this.done + n);
    if (!part.length) return;
    const incidents = getResource('service_asset_findings');
    if ('status' in this.change) {
      const c = this.change;
      const answer = changeStatus(this.store, part.map((x) => x.id), c.status as IncidentStatus, { note: c.note, senderId: c.sender_id }, this.ctx);
      const failed = answer.results.find((r) => r.error_code !== MASS.ok);
      if (failed) throw new ApiError(500, `incident ${failed.id} could not be written (code ${failed.error_code}): nothing was changed`);
      this.changed += answer.changed;
    } else {
      for (const x of part) {
        if (sameValue(x.before, this.value[this.field])) continue;
        this.store.update(incidents, { id: x.id, ...this.value }, this.ctx);
        this.changed++;
      }
    }
    this.done += part.length;
  }

  commit(): void {
    if (!this.finished) throw new Error('the bulk change is not finished');
    this.index.resume();
    this.end('COMMIT');
  }

  rollback(): void {
    this.end('ROLLBACK');
  }

  private end(how: 'COMMIT' | 'ROLLBACK'): void {
    if (this.ended) return;
    this.ended = true;
    try {
      if (this.store.db.inTransaction) this.store.db.exec(how);
    } finally {
      if (this.own) this.store.db.close();
    }
  }
}

const sameValue = (a: unknown, b: unknown): boolean => (a === null || a === undefined ? b === null || b === undefined : typeof a === 'number' ? Number(b) === a : a === b);

