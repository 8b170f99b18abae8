// The bulk mode of the store's write path: imports, snapshots and pulls write records through
// it, one transaction per import (per page for a snapshot or a pull), the rows written through
// prepared statements inside it. The same pieces as every write (field checks by the caller
// through write/checks.ts, declaration hooks, encoding and defaults, sequences, constraint
// mapping, link SQL, the outbox rule of its source); what makes it fast is how it writes:
//
// - a new record is a plain INSERT (the fast path); an INSERT refused by a UNIQUE constraint goes
//   the slow path, which tells a new record from a record already in the database (updated when
//   its content differs, untouched when equal) and from a record already written by this batch
//   (an identical copy is counted as repeated; a different one is a duplicate id, refused);
// - references are checked once, at the end, set-wise: the connection's per-row foreign-key
//   probes are off for the transaction, and before COMMIT every distinct value of every
//   reference column among the rows written (walking the column's index for a bulk import) is
//   looked up in its target. So files and kinds may come in any order and a reference may point
//   at a record further on. Optional references (declared `on delete set null`: the link may
//   lose its target) that resolve nowhere are cleared, as deleting the target would, and
//   counted; any other unresolved reference refuses the batch and everything is rolled back;
// - the search index: each touched table's AFTER INSERT trigger is dropped for the transaction
//   and the new rows (rowid above the table's maximum before the batch) are indexed in bulk at
//   the end with INSERT ... SELECT, then the trigger is put back. Rows that existed before are
//   updated with their UPDATE trigger in place; rows written by this batch are never updated,
//   so the bulk pass indexes each exactly once (with bulk settings of the FTS5 table, put back
//   after). An empty table's secondary indexes are likewise made once at the end. Any failure
//   rolls the DDL back with the data;
// - kept counts (a kind's module names them, kinds/types.ts KindKept): the per-row insert
//   triggers are dropped for the transaction and the new rows' counts added set-wise at the
//   end (grouped, ON CONFLICT adding to what is kept), before the references are checked (a
//   cleared reference is an UPDATE of a new row, whose update triggers then find its counts
//   in place) and the triggers put back. Rows that existed before keep their update triggers.
//
// Refusals are data (WriteRefusal, MissingReferences, BulkCancelled): the caller words them.
import type Database from 'better-sqlite3';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { ApiError } from '../../../src-shared/errors';
import { getResource, type ResourceDef } from '../../../src-shared/resources/index';
import { nowTs } from '../../../src-shared/time';
import type { WriteSource } from '../api';
import { encodeValue } from '../codec';
import type { Db } from '../db';
import { ftsTable, searchableFields } from '../ddl';
import { kindOf } from '../kinds/index';
import { RemoteVersions } from '../origin';
import { isTracked, OutboxBatch } from '../outbox';
import { placeholders, q } from '../sql';
import type { Statements } from '../statements';
import { columnPlanOf, type ColumnsPlan } from './checks';
import { parseConstraint } from './constraints';
import { manyToManySql } from './links';
import { highestSql } from './sequences';

export interface Counts {
  inserted: number;
  updated: number;
  unchanged: number;
  repeated: number;
}

export interface BulkOptions {
  /** `import`: records read from files; `origin`: records as a snapshot's origin has them. */
  source: Extract<WriteSource, 'import' | 'origin'>;
  /**
   * An import into a snapshot: the records created or changed are recorded as changes to push
   * (its outbox), as every write of a client is. Rows are then written one by one.
   */
  record?: boolean;
  /** Refuse unresolved optional references too, instead of clearing them. */
  strictReferences?: boolean;
}

/** A record or value the bulk write refuses; `loc` is the caller's place of the record. */
export class WriteRefusal extends Error {
  constructor(
    message: string,
    readonly loc?: unknown,
    readonly id?: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'WriteRefusal';
  }
}

/** A reference of written records that resolves neither in the batch nor in the database. */
export interface MissingReference {
  /** The resource referred to (findings). */
  kind: string;
  /** The resource and field that refer to it (service_asset_findings.finding_id). */
  from: string;
  field: string;
  /** One value that does not resolve, and a record holding it. */
  value: unknown;
  id?: string;
  /** How many distinct values do not resolve. */
  ids: number;
  /** An optional reference, refused only because of strictReferences. */
  optional: boolean;
}

/** The batch refers to records it does not hold: nothing is written. */
export class MissingReferences extends Error {
  constructor(readonly list: MissingReference[]) {
    super(`${JSON.stringify(list[0]?.value)} refers to a missing ${list[0]?.kind} record`);
    this.name = 'MissingReferences';
  }
}

/** The commit was cancelled through its signal: nothing is written. */
export class BulkCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'BulkCancelled';
  }
}

type Statement = Database.Statement<unknown[], unknown>;

interface TableState {
  plan: ColumnsPlan;
  table: string;
  /** id, the stored fields, created_at, updated_at. */
  cols: string[];
  width: number;
  rowsPerStmt: number;
  /** Largest _rid before this transaction: rows above it were written by it. */
  before: number;
  trigger: { name: string; sql: string } | null;
  /** Secondary indexes set aside while an empty table is filled, made again at the end. */
  indexes: { name: string; sql: string }[];
  /** The kind's kept-count insert triggers set aside, and what adds the new rows' counts at the end. */
  kept: { name: string; sql: string; addSql: string; addAllSql?: string }[];
  seq: number | null;
  flat: unknown[];
  present: Uint8Array;
  /** The caller's place of each queued record. */
  locs: unknown[];
  n: number;
  stmts: Map<number, Statement>;
  selectById: Statement;
  updates: Map<string, Statement>;
}

const FTS_CHUNK = 100_000;
/** From this many new rows, the search index is built with bulk settings (see tuneFts). */
const BULK_FTS_ROWS = 10_000;
const FTS_BULK_HASHSIZE = 16 * 1024 * 1024;
/** FTS5's own defaults, put back when a table had no setting of its own. */
const FTS5_DEFAULTS = { automerge: 4, hashsize: 1024 * 1024 } as const;
/**
 * Rows per INSERT. Measured on 100,000 incidents: one row per statement is the fastest
 * (4.8 s against 5.4 s for 16 and 7.1 s for 100 rows per VALUES list).
 */
const ROWS_PER_STATEMENT = 1;
const MAX_PARAMS = 30_000;

export class BulkWrite {
  readonly db: Db;
  private readonly states = new Map<string, TableState>();
  private readonly linkTables = new Set<string>();
  private readonly linkStmts = new Map<string, [Statement, Statement]>();
  private seenGet: Statement | null = null;
  private seenAdd: Statement | null = null;
  private inTx = false;
  /** Whether a transaction of this session has been committed. */
  committed = false;
  private now = nowTs();
  counts: Record<string, Counts> = {};
  linkLists = 0;
  clearedReferences: Record<string, number> = {};
  /** recordChanges: the entries of the outbox once the import's changes are in it. */
  outboxEntries: number | null = null;
  private changes: OutboxBatch | null = null;
  /** Source origin: the origin's version of each record written (sync_remote), by the path itself. */
  private versions: RemoteVersions | null = null;

  constructor(
    private readonly store: Statements,
    private readonly opts: BulkOptions,
    /** The database was made for this batch: pages go straight to the file, WAL again at close. */
    private readonly created: boolean,
  ) {
    this.db = store.db;
  }

  begin(): void {
    this.db.pragma('foreign_keys = OFF');
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      this.db.pragma('foreign_keys = ON');
      throw e;
    }
    this.inTx = true;
    this.changes = null;
    if (this.opts.record) {
      if (!isTracked(this.store)) {
        this.rollback();
        throw new WriteRefusal(`${this.db.name} is not a snapshot of a platform: it has no outbox to record the import's changes in`);
      }
      this.changes = new OutboxBatch(this.store, { source: this.opts.source, record: true });
    }
    this.db.exec('DELETE FROM temp.import_seen');
    this.states.clear();
    this.linkTables.clear();
    this.linkStmts.clear();
    this.seenGet = this.db.prepare('SELECT 1 FROM temp.import_seen WHERE t = ? AND id = ?');
    this.seenAdd = this.db.prepare('INSERT INTO temp.import_seen (t, id) VALUES (?, ?)');
    this.versions = this.opts.source === 'origin' ? new RemoteVersions(this.db) : null;
    this.now = nowTs();
  }

  countsOf(name: string): Counts {
    return (this.counts[name] ??= { inserted: 0, updated: 0, unchanged: 0, repeated: 0 });
  }

  private state(plan: ColumnsPlan): TableState {
    let s = this.states.get(plan.r.name);
    if (s) return s;
    const r = plan.r;
    const table = r.table;
    const cols = ['id', ...plan.columns.map((c) => c.name), 'created_at', 'updated_at'];
    const width = cols.length;
    // Recording changes: each row on its own (its values before it are read first).
    const rowsPerStmt = this.changes ? 1 : Math.max(1, Math.min(ROWS_PER_STATEMENT, Math.floor(MAX_PARAMS / width)));
    const before = (this.db.prepare(`SELECT COALESCE(MAX(_rid), 0) AS n FROM ${q(table)}`).get() as { n: number }).n;
    let trigger: TableState['trigger'] = null;
    if (searchableFields(r).length) {
      const name = `${table}_fts_ai`;
      const row = this.db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`).get(name) as { sql: string } | undefined;
      if (row) {
        this.db.exec(`DROP TRIGGER ${q(name)}`);
        trigger = { name, sql: row.sql };
      }
    }
    // Filling an empty table: its secondary (not unique) indexes are made once at the end, from
    // sorted keys, instead of being kept up to date row by row (500,000 incidents: 19.0 s against
    // 29.6 s). Unique indexes stay: they are the upsert's and the check's.
    const indexes =
      before === 0
        ? (this.db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(table) as { name: string; sql: string }[]).filter(
            (ix) => !/^CREATE\s+UNIQUE\b/i.test(ix.sql),
          )
        : [];
    for (const ix of indexes) this.db.exec(`DROP INDEX ${q(ix.name)}`);
    // The kind's kept counts: the per-row insert triggers are set aside and the new rows'
    // counts added set-wise at the end (200,000 incidents: five upserts fewer per row).
    const kept: TableState['kept'] = [];
    for (const k of kindOf(r)?.kept?.insertCounts() ?? []) {
      const row = this.db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`).get(k.trigger) as { sql: string } | undefined;
      if (!row) continue;
      this.db.exec(`DROP TRIGGER ${q(k.trigger)}`);
      kept.push({ name: k.trigger, sql: row.sql, addSql: k.addSql, addAllSql: k.addAllSql });
    }
    s = {
      plan,
      table,
      cols,
      width,
      rowsPerStmt,
      before,
      trigger,
      indexes,
      kept,
      seq: null,
      flat: new Array(rowsPerStmt * width),
      present: new Uint8Array(rowsPerStmt * width),
      locs: new Array(rowsPerStmt),
      n: 0,
      stmts: new Map(),
      selectById: this.db.prepare(`SELECT _rid, ${cols.map(q).join(', ')} FROM ${q(table)} WHERE id = ?`).raw(true),
      updates: new Map(),
    };
    this.states.set(r.name, s);
    return s;
  }

  private insertStmt(s: TableState, rows: number): Statement {
    let st = s.stmts.get(rows);
    if (!st) {
      const tuple = `(${placeholders(s.width)})`;
      st = this.db.prepare(`INSERT INTO ${q(s.table)} (${s.cols.map(q).join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`);
      s.stmts.set(rows, st);
    }
    return st;
  }

  /**
   * Writes (queues) one record of `r` whose values the caller checked (write/checks.ts): the
   * declaration's hook, encoding and defaults, the sequence, then the fast INSERT or the slow
   * upsert. `loc` is the caller's place of the record, handed back in a refusal.
   */
  put(r: ResourceDef, id: string, vals: Record<string, unknown>, createdAt: string | null, updatedAt: string | null, loc: unknown): void {
    if (r.hooks?.beforeWrite) {
      try {
        r.hooks.beforeWrite(vals, { op: 'create' });
      } catch (e) {
        if (e instanceof ApiError) throw new WriteRefusal(e.message, loc, id);
        throw e;
      }
    }
    const plan = columnPlanOf(r);
    const s = this.state(plan);
    // From the origin: its version of the record, in the same transaction as the record.
    if (this.versions && updatedAt !== null) this.versions.seen(r.name, { id, updated_at: updatedAt });
    const base = s.n * s.width;
    const flat = s.flat;
    const present = s.present;
    flat[base] = id;
    present[base] = 1;
    const columns = plan.columns;
    for (let i = 0; i < columns.length; i++) {
      const col = columns[i]!;
      const v = vals[col.name];
      const at = base + 1 + i;
      if (v === undefined) {
        flat[at] = col.insertDefault;
        present[at] = 0;
      } else {
        flat[at] = encodeValue(col.def.kind, v);
        present[at] = 1;
      }
    }
    if (plan.sequence) {
      const si = base + 1 + plan.index.get(plan.sequence)!;
      if (s.seq === null) {
        s.seq = (this.db.prepare(highestSql(plan.r, plan.sequence)).get() as { n: number }).n;
      }
      const v = flat[si];
      if (typeof v === 'number') {
        if (v > s.seq) s.seq = v;
      } else {
        flat[si] = ++s.seq;
      }
    }
    flat[base + s.width - 2] = createdAt ?? updatedAt ?? this.now;
    present[base + s.width - 2] = createdAt === null ? 0 : 1;
    flat[base + s.width - 1] = updatedAt ?? createdAt ?? this.now;
    present[base + s.width - 1] = updatedAt === null ? 0 : 1;
    s.locs[s.n] = loc;
    if (++s.n === s.rowsPerStmt) this.flush(s);
  }

  private flush(s: TableState): void {
    const n = s.n;
    if (!n) return;
    if (this.changes) {
      for (let i = 0; i < n; i++) this.slowRow(s, i);
      s.n = 0;
      return;
    }
    const params = n === s.rowsPerStmt ? s.flat : s.flat.slice(0, n * s.width);
    try {
      this.insertStmt(s, n).run(params);
      this.countsOf(s.plan.r.name).inserted += n;
    } catch (e) {
      if (!parseConstraint(e)) throw e;
      for (let i = 0; i < n; i++) this.slowRow(s, i);
    }
    s.n = 0;
  }

  /** One row of a batch refused as a whole: insert, update, leave, or refuse it. */
  private slowRow(s: TableState, i: number): void {
    const row = s.flat.slice(i * s.width, (i + 1) * s.width);
    const present = s.present.subarray(i * s.width, (i + 1) * s.width);
    const loc = s.locs[i];
    const id = row[0] as string;
    const name = s.plan.r.name;
    const existing = s.selectById.get(id) as unknown[] | undefined;
    if (!existing) {
      try {
        this.insertStmt(s, 1).run(row);
        this.countsOf(name).inserted++;
      } catch (e) {
        throw this.constraintError(s, e, row, loc, id);
      }
      this.changes?.created(s.plan.r, id);
      return;
    }
    let differs: string | null = null;
    const diffs: number[] = [];
    for (let j = 1; j < s.width; j++) {
      if (present[j] && existing[j + 1] !== row[j]) {
        differs ??= s.cols[j]!;
        diffs.push(j);
      }
    }
    const ownRow = (existing[0] as number) > s.before || !!this.seenGet!.get(s.table, id);
    if (ownRow) {
      if (differs === null) {
        this.countsOf(name).repeated++;
        return;
      }
      throw new WriteRefusal(`duplicate id: this ${name} record appeared earlier in the import with different content (first difference: ${differs})`, loc, id, differs);
    }
    this.seenAdd!.run(s.table, id);
    if (differs === null) {
      this.countsOf(name).unchanged++;
      return;
    }
    const set: number[] = [];
    for (let j = 1; j < s.width; j++) if (present[j]) set.push(j);
    const updatedIdx = s.width - 1;
    if (!present[updatedIdx]) set.push(updatedIdx);
    const key = set.join(',');
    let st = s.updates.get(key);
    if (!st) {
      st = this.db.prepare(`UPDATE ${q(s.table)} SET ${set.map((j) => `${q(s.cols[j]!)} = ?`).join(', ')} WHERE id = ?`);
      s.updates.set(key, st);
    }
    const params = set.map((j) => (j === updatedIdx && !present[j] ? this.now : row[j]));
    this.trackUpdate(s.plan.r, id, set.map((j) => s.cols[j]!));
    try {
      st.run([...params, id]);
    } catch (e) {
      throw this.constraintError(s, e, row, loc, id);
    }
    this.countsOf(name).updated++;
    // A record that differs only in optional references the database holds cleared (their
    // targets were missing) is unchanged if they are cleared again: checkReferences decides.
    if (present[updatedIdx] && diffs.every((j) => existing[j + 1] === null && this.clearable(s.plan, s.cols[j]!))) {
      this.maybeUnchanged.push({ s, id, cols: diffs.map((j) => s.cols[j]!) });
    }
  }

  /** Records updated only in optional references, counted unchanged when those are cleared again. */
  private maybeUnchanged: { s: TableState; id: string; cols: string[] }[] = [];

  /** An optional reference: cleared (not refused) when its target is missing. */
  private clearable(plan: ColumnsPlan, column: string): boolean {
    const d = plan.columns.find((c) => c.name === column)?.def;
    return !!d?.ref && !d.notNull && (d.onDelete ?? 'set null') === 'set null' && !this.opts.strictReferences;
  }

  private constraintError(s: TableState, e: unknown, row: unknown[], loc: unknown, id: string): Error {
    const v = parseConstraint(e);
    if (!v) return e as Error;
    const field = v.fields[0];
    if (v.kind === 'unique' && field) {
      const j = s.cols.indexOf(field);
      return new WriteRefusal(`${field} ${j >= 0 ? JSON.stringify(row[j]) : ''} is already used by another ${s.plan.r.name} record`, loc, id, field);
    }
    if (v.kind === 'notNull' && field) return new WriteRefusal(`${field} is required`, loc, id, field);
    return new WriteRefusal(v.message, loc, id);
  }

  /** Recording changes: the values of a record that existed before the import, at its first write by it. */
  private trackUpdate(r: ResourceDef, id: string, columns: readonly string[], relation?: string): void {
    this.changes?.changing(r, id, columns, relation);
  }

  /** Recording changes: the outbox entries of every record created or changed, as they are now. */
  private recordChanges(): void {
    if (!this.changes) return;
    this.outboxEntries = this.changes.done();
    this.changes = null;
  }

  /** Makes the record's links of a many-to-many relation equal to `ids` (spec: _relations). */
  links(r: ResourceDef, id: string, name: string, ids: string[]): void {
    const rel = r.relations?.[name];
    if (rel?.kind !== 'manyToMany') return;
    this.trackUpdate(r, id, [], name);
    const json = JSON.stringify([...new Set(ids)]);
    const key = `${rel.link}:${rel.self}`;
    let st = this.linkStmts.get(key);
    if (!st) {
      const [remove, add] = manyToManySql(rel);
      st = [this.db.prepare(remove), this.db.prepare(add)];
      this.linkStmts.set(key, st);
    }
    st[0].run(id, json);
    st[1].run(id, json);
    this.linkTables.add(rel.link);
    this.linkLists++;
  }

  // ------------------------------------------------------------------------------ ending

  flushAll(): void {
    for (const s of this.states.values()) this.flush(s);
  }

  /**
   * Flushes, indexes the new rows for search, puts the triggers back and commits. A refused
   * commit (a reference that resolves nowhere) is explained and rolled back.
   */
  async commit(opts: { signal?: AbortSignal; onPhase?: (phase: string, done: number, total: number) => void } = {}): Promise<void> {
    this.flushAll();
    const states = [...this.states.values()];
    for (const s of states) {
      if (!s.indexes.length) continue;
      opts.onPhase?.('indexing', 0, 0);
      for (const ix of s.indexes) {
        if (opts.signal?.aborted) throw new BulkCancelled();
        this.db.exec(ix.sql);
        await yieldToLoop();
      }
      s.indexes = [];
    }
    // Kept counts before anything else changes the new rows (clearing an unresolved optional
    // reference updates them, and their update triggers then move counts already added).
    for (const s of states) {
      for (const k of s.kept) {
        if (opts.signal?.aborted) throw new BulkCancelled();
        // A table this batch filled from empty: every row is new, read from an index where one holds the columns.
        this.db.prepare(s.before === 0 && k.addAllSql ? k.addAllSql : k.addSql).run(s.before);
        this.db.exec(k.sql);
      }
      s.kept = [];
    }
    const toIndex = states.filter((s) => s.trigger);
    let total = 0;
    const tops = new Map<TableState, number>();
    for (const s of toIndex) {
      const top = (this.db.prepare(`SELECT COALESCE(MAX(_rid), 0) AS n FROM ${q(s.table)}`).get() as { n: number }).n;
      tops.set(s, top);
      total += Math.max(0, top - s.before);
    }
    let done = 0;
    opts.onPhase?.('indexing', 0, total);
    for (const s of toIndex) {
      const r = s.plan.r;
      const fts = q(ftsTable(r));
      const cols = searchableFields(r).map(q).join(', ');
      const st = this.db.prepare(`INSERT INTO ${fts} (rowid, ${cols}) SELECT _rid, ${cols} FROM ${q(s.table)} WHERE _rid > ? AND _rid <= ?`);
      const top = tops.get(s)!;
      const restore = top - s.before >= BULK_FTS_ROWS ? this.tuneFts(r) : () => {};
      for (let from = s.before; from < top; from += FTS_CHUNK) {
        if (opts.signal?.aborted) throw new BulkCancelled();
        const to = Math.min(top, from + FTS_CHUNK);
        st.run(from, to);
        done += to - from;
        opts.onPhase?.('indexing', done, total);
        if (to < top) await yieldToLoop();
      }
      restore();
      this.db.exec(s.trigger!.sql);
    }
    opts.onPhase?.('checking', total, total);
    this.checkReferences(states);
    this.recordChanges();
    opts.onPhase?.('committing', total, total);
    this.db.exec('COMMIT');
    this.inTx = false;
    this.committed = true;
    this.db.pragma('foreign_keys = ON');
  }

  /**
   * Settings of the search index for a bulk pass: a larger in-memory buffer before each flush
   * (hashsize) and no incremental merging (automerge 0; FTS5's crisis merges still bound the
   * segments). Measured on 1,000,000 incidents: 25.6 s against 44.0 s with the defaults, and
   * searches as fast. Answers a function putting the table's settings back as they were.
   */
  private tuneFts(r: { table: string }): () => void {
    const table = `${r.table}_fts`;
    const fts = q(table);
    const config = q(`${table}_config`);
    const before = new Map(
      (this.db.prepare(`SELECT k, v FROM ${config} WHERE k IN ('automerge', 'hashsize')`).all() as { k: string; v: unknown }[]).map((row) => [row.k, row.v]),
    );
    // FTS5 takes these settings as SQL integers (a bound JS number is a REAL): constants here.
    const set = (k: keyof typeof FTS5_DEFAULTS, v: unknown) => this.db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('${k}', ${Math.trunc(Number(v))})`);
    set('automerge', 0);
    set('hashsize', FTS_BULK_HASHSIZE);
    return () => {
      for (const [k, dflt] of Object.entries(FTS5_DEFAULTS) as [keyof typeof FTS5_DEFAULTS, number][]) {
        if (before.has(k)) {
          set(k, before.get(k));
        } else {
          set(k, dflt);
          // The shadow table is written directly (SQLite's defensive mode is lifted for it), so
          // that the table is left without a setting of its own, as it was.
          this.db.unsafeMode(true);
          try {
            this.db.prepare(`DELETE FROM ${config} WHERE k = ?`).run(k);
          } finally {
            this.db.unsafeMode(false);
          }
        }
      }
    };
  }

  /** The index on a reference column, when the declaration made one. */
  private indexOn(table: string, column: string): string | null {
    const name = `ix_${table}_${column}`;
    return this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`).get(name) ? name : null;
  }

  /**
   * Every reference written by this transaction must resolve: optional ones (on delete set
   * null) that do not are cleared and counted; any other refuses the import.
   */
  private checkReferences(states: TableState[]): void {
    const missingRefs: MissingReference[] = [];
    for (const s of states) {
      const t = q(s.table);
      const top = (this.db.prepare(`SELECT COALESCE(MAX(_rid), 0) AS n FROM ${t}`).get() as { n: number }).n;
      const added = top - s.before;
      const seen = (this.db.prepare('SELECT COUNT(*) AS n FROM temp.import_seen WHERE t = ?').get(s.table) as { n: number }).n;
      for (const col of s.plan.columns) {
        const d = col.def;
        if (!d.ref) continue;
        const c = q(col.name);
        const target = q(getResource(d.ref).table);
        const missing = `NOT EXISTS (SELECT 1 FROM ${target} x WHERE x.id = d.v)`;
        const sources: { sql: string; params: unknown[] }[] = [];
        if (added > 0) {
          // A bulk import walks the column's index (values in order, row ids inside); a small one the new rows.
          const index = added > 10_000 && added * 4 > top ? this.indexOn(s.table, col.name) : null;
          sources.push({
            sql: index
              ? `SELECT DISTINCT ${c} AS v FROM ${t} INDEXED BY ${q(index)} WHERE ${c} IS NOT NULL AND +_rid > ?`
              : `SELECT DISTINCT ${c} AS v FROM ${t} WHERE _rid > ? AND ${c} IS NOT NULL`,
            params: [s.before],
          });
        }
        if (seen > 0) {
          sources.push({ sql: `SELECT DISTINCT r.${c} AS v FROM temp.import_seen m JOIN ${t} r ON r.id = m.id WHERE m.t = ? AND r.${c} IS NOT NULL`, params: [s.table] });
        }
        for (const src of sources) {
          const bad = this.db.prepare(`SELECT d.v AS v FROM (${src.sql}) d WHERE ${missing} LIMIT 1`).get(...src.params) as { v: unknown } | undefined;
          if (!bad) continue;
          const written = `(_rid > ? OR id IN (SELECT id FROM temp.import_seen WHERE t = ?))`;
          if (!d.notNull && (d.onDelete ?? 'set null') === 'set null' && !this.opts.strictReferences) {
            const res = this.db
              .prepare(`UPDATE ${t} SET ${c} = NULL WHERE ${written} AND ${c} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${target} x WHERE x.id = ${t}.${c})`)
              .run(s.before, s.table);
            const k = `${s.plan.r.name}.${col.name}`;
            this.clearedReferences[k] = (this.clearedReferences[k] ?? 0) + res.changes;
            break;
          }
          const row = this.db.prepare(`SELECT id FROM ${t} WHERE ${c} = ? AND ${written} LIMIT 1`).get(bad.v, s.before, s.table) as { id: string } | undefined;
          const ids = (this.db.prepare(`SELECT COUNT(*) AS n FROM (${src.sql}) d WHERE ${missing}`).get(...src.params) as { n: number }).n;
          missingRefs.push({ kind: d.ref, from: s.plan.r.name, field: col.name, value: bad.v, id: row?.id, ids, optional: !d.notNull && (d.onDelete ?? 'set null') === 'set null' });
          break;
        }
      }
    }
    if (missingRefs.length) throw new MissingReferences(missingRefs);
    for (const m of this.maybeUnchanged) {
      const row = this.db.prepare(`SELECT ${m.cols.map((c) => `${q(c)} IS NULL`).join(' AND ')} AS cleared FROM ${q(m.s.table)} WHERE id = ?`).get(m.id) as { cleared: number } | undefined;
      if (!row?.cleared) continue;
      const counts = this.countsOf(m.s.plan.r.name);
      counts.updated--;
      counts.unchanged++;
    }
    this.maybeUnchanged = [];
    for (const link of this.linkTables) {
      const bad = this.db.prepare(`PRAGMA foreign_key_check(${q(link)})`).get() as { parent: string; fkid: number } | undefined;
      if (!bad) continue;
      const fks = this.db.prepare(`PRAGMA foreign_key_list(${q(link)})`).all() as { id: number; from: string }[];
      const column = fks.find((f) => f.id === bad.fkid)?.from ?? '?';
      throw new WriteRefusal(`link table ${link}: ${column} refers to a missing ${bad.parent} record (neither in the import nor in the database)`);
    }
  }

  rollback(): void {
    this.maybeUnchanged = [];
    this.changes = null;
    if (this.inTx && this.db.inTransaction) this.db.exec('ROLLBACK');
    this.inTx = false;
    if (this.db.open) this.db.pragma('foreign_keys = ON');
  }

  close(): void {
    this.rollback();
    if (!this.db.open) return;
    if (this.created && this.committed) this.db.pragma('journal_mode = WAL');
    this.db.close();
  }
}

