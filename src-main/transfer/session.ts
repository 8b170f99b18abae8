// Writing imported records: one transaction per import (per page for a snapshot), the rows
// written through prepared statements inside it. Records are upserted by id:
//
// - a new record is a plain INSERT (the fast path); an INSERT refused by a UNIQUE constraint goes
//   the slow path, which tells a new record from a record already in the database (updated when
//   its content differs, untouched when equal) and from a record already written by this import
//   (an identical copy is counted as repeated; a different one is a duplicate id, refused);
// - references are checked once, at the end, set-wise: the connection's per-row foreign-key
//   probes are off for the transaction, and before COMMIT every distinct value of every
//   reference column among the rows written (walking the column's index for a bulk import) is
//   looked up in its target. So files and kinds may come in any order and a reference may point
//   at a record further on. Optional references (declared `on delete set null`: the link may
//   lose its target) that resolve nowhere are cleared, as deleting the target would, and
//   counted; any other unresolved reference refuses the import and everything is rolled back;
// - the search index: each touched table's AFTER INSERT trigger is dropped for the transaction
//   and the new rows (rowid above the table's maximum before the import) are indexed in bulk at
//   the end with INSERT ... SELECT, then the trigger is put back. Rows that existed before are
//   updated with their UPDATE trigger in place; rows written by this import are never updated,
//   so the bulk pass indexes each exactly once (with bulk settings of the FTS5 table, put back
//   after). An empty table's secondary indexes are likewise made once at the end. Any failure
//   rolls the DDL back with the data.
import type Database from 'better-sqlite3';
import crypto from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { ApiError } from '../../src-shared/errors';
import { getResource, type RelationDef } from '../../src-shared/resources/index';
import { nowTs } from '../../src-shared/time';
import { isBusy, openDatabase, type Db } from '../store/db';
import { ftsTable, searchableFields } from '../store/ddl';
import { beginChange, isTracked, type TrackedChange } from '../store/outbox';
import { placeholders, q } from '../store/sql';
import { Store } from '../store/store';
import { CancelledError, TransferError, type Where } from './errors';
import { checkField, fastTs, FieldInvalid, ID_RE, isMasked, missingReferencesMessage, planOf, type ImportInvocation, type KindPlan, type MissingReference } from './validate';

export interface Counts {
  inserted: number;
  updated: number;
  unchanged: number;
  repeated: number;
}

export interface SessionOptions {
  /** Skip fields the registry does not know (counted in ignoredFields) instead of refusing. */
  ignoreUnknown?: boolean;
  /** Refuse unresolved optional references too, instead of clearing them. */
  strictReferences?: boolean;
  /** SQLite page cache of the import connection, in KiB. */
  cacheKiB?: number;
  /**
   * Into a snapshot: record the records created or changed as changes to push (its outbox), as
   * the store's write path does. Rows are then written one by one.
   */
  recordChanges?: boolean;
  /** How the import was asked for (its refusals suggest commands to run as printed). */
  invocation?: ImportInvocation;
}

/** The outbox entries of an import that records its changes, written just before it commits. */
interface ChangeLog {
  store: Store;
  /** Records that existed before the import, their values before it taken. */
  updates: Map<string, TrackedChange>;
  /** Records the import created, with the link lists it set on them. */
  creates: Map<string, { r: KindPlan['r']; id: string; relations: Set<string> }>;
}

type Statement = Database.Statement<unknown[], unknown>;

/** Where a record is, worked out only when a message needs it. */
export interface At {
  where(): Where;
}

export const at = (w: Where): At => ({ where: () => w });

/** The place of a record nested in another (`objects[3].occurrences[0]`). */
function nestedAt(parent: At, name: string): At {
  return {
    where: () => {
      const w = parent.where();
      return { ...w, record: `${w.record ?? (w.line !== undefined ? `line ${w.line}` : '')}.${name}` };
    },
  };
}

interface TableState {
  plan: KindPlan;
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
  seq: number | null;
  flat: unknown[];
  present: Uint8Array;
  wheres: At[];
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
 * Page cache of the import connection: bounded memory whatever the size of the import (96 MiB
 * measured no faster on 1,000,000 incidents).
 */
const DEFAULT_CACHE_KIB = 32 * 1024;
/**
 * Rows per INSERT. Measured on 100,000 incidents: one row per statement is the fastest
 * (4.8 s against 5.4 s for 16 and 7.1 s for 100 rows per VALUES list).
 */
const ROWS_PER_STATEMENT = 1;
const MAX_PARAMS = 30_000;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function constraintCode(e: unknown): string | null {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CONSTRAINT') ? code : null;
}

export class ImportSession {
  readonly db: Db;
  readonly created: boolean;
  private readonly states = new Map<string, TableState>();
  private readonly links = new Set<string>();
  private readonly nestedSeen = new Map<string, string>();
  private readonly linkStmts = new Map<string, [Statement, Statement]>();
  private seenGet: Statement | null = null;
  private seenAdd: Statement | null = null;
  private inTx = false;
  /** Whether a transaction of this session has been committed. */
  committed = false;
  private now = nowTs();
  counts: Record<string, Counts> = {};
  records = 0;
  linkLists = 0;
  generatedIds = 0;
  ignoredFields: Record<string, number> = {};
  clearedReferences: Record<string, number> = {};
  /** recordChanges: the entries of the outbox once the import's changes are in it. */
  outboxEntries: number | null = null;
  private changes: ChangeLog | null = null;

  constructor(
    readonly file: string,
    private readonly opts: SessionOptions = {},
  ) {
    const { db, created } = openDatabase(file, { busyTimeoutMs: 5000 });
    this.db = db;
    this.created = created;
    db.pragma(`cache_size = -${Math.round(opts.cacheKiB ?? DEFAULT_CACHE_KIB)}`);
    // A database made for this import has no other reader: pages are written once, straight
    // to the file (a rollback journal holds the few pages that existed), not to the log and
    // again at a checkpoint. WAL again once done (close()).
    if (created) db.pragma('journal_mode = DELETE');
    db.exec('CREATE TEMP TABLE IF NOT EXISTS import_seen (t TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (t, id)) WITHOUT ROWID');
  }

  begin(): void {
    this.db.pragma('foreign_keys = OFF');
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      this.db.pragma('foreign_keys = ON');
      if (isBusy(e)) {
        throw new TransferError(`${this.file} is busy: another import or a long write holds it; try again when it has finished`, {}, 503);
      }
      throw e;
    }
    this.inTx = true;
    this.changes = null;
    if (this.opts.recordChanges) {
      const store = new Store(this.db);
      if (!isTracked(store)) {
        this.rollback();
        throw new TransferError(`${this.file} is not a snapshot of a platform: it has no outbox to record the import's changes in`);
      }
      this.changes = { store, updates: new Map(), creates: new Map() };
    }
    this.db.exec('DELETE FROM temp.import_seen');
    this.states.clear();
    this.links.clear();
    this.nestedSeen.clear();
    this.linkStmts.clear();
    this.seenGet = this.db.prepare('SELECT 1 FROM temp.import_seen WHERE t = ? AND id = ?');
    this.seenAdd = this.db.prepare('INSERT INTO temp.import_seen (t, id) VALUES (?, ?)');
    this.now = nowTs();
  }

  private countsOf(name: string): Counts {
    return (this.counts[name] ??= { inserted: 0, updated: 0, unchanged: 0, repeated: 0 });
  }

  private state(plan: KindPlan): TableState {
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
    s = {
      plan,
      table,
      cols,
      width,
      rowsPerStmt,
      before,
      trigger,
      indexes,
      seq: null,
      flat: new Array(rowsPerStmt * width),
      present: new Uint8Array(rowsPerStmt * width),
      wheres: new Array(rowsPerStmt),
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

  // ------------------------------------------------------------------------------ records

  /**
   * Checks a record of `plan`'s resource and queues it; nested records (loaded relations: the
   * public incident's service_asset and occurrences, v2 `relations`) are imported with it.
   */
  add(plan: KindPlan, rec: Record<string, unknown>, loc: At): string {
    const r = plan.r;
    this.records++;
    let id: string;
    const rawId = rec.id;
    if (rawId === undefined || rawId === null) {
      id = crypto.randomUUID();
      this.generatedIds++;
    } else if (typeof rawId === 'string' && ID_RE.test(rawId)) {
      id = rawId.toLowerCase();
    } else {
      throw new TransferError('id should be uuid format', { ...loc.where(), field: 'id' });
    }
    const w = (field?: string): Where => ({ ...loc.where(), id, ...(field ? { field } : {}) });
    const vals: Record<string, unknown> = {};
    let createdAt: string | null = null;
    let updatedAt: string | null = null;
    let nested: [string, RelationDef, unknown][] | null = null;
    let relIds: Record<string, unknown> | null = null;
    for (const key in rec) {
      const v = rec[key];
      const ci = plan.index.get(key);
      if (ci !== undefined) {
        const col = plan.columns[ci]!;
        if (v === undefined || isMasked(col, v)) continue;
        try {
          vals[key] = checkField(plan, col, v);
        } catch (e) {
          if (e instanceof FieldInvalid) throw new TransferError(e.message, w(key));
          throw e;
        }
        continue;
      }
      switch (key) {
        case 'id':
          continue;
        case 'created_at':
        case 'updated_at': {
          if (v === null || v === undefined) continue;
          const t = typeof v === 'string' ? fastTs(v) : null;
          if (t === null) throw new TransferError('expected an ISO 8601 timestamp', w(key));
          if (key === 'created_at') createdAt = t;
          else updatedAt = t;
          continue;
        }
        case '_relations':
          if (v === null || v === undefined) continue;
          if (!isPlainObject(v)) throw new TransferError('_relations should be an object of id lists', w(key));
          relIds = v;
          continue;
        default:
          break;
      }
      const rel = plan.relations.get(key);
      if (rel) {
        // The public incident's `last_occurrence` is a computed time, the v2 one a loaded relation.
        if (plan.computed.has(key) && (typeof v !== 'object' || v === null)) continue;
        if (v !== null && v !== undefined) (nested ??= []).push([key, rel, v]);
        continue;
      }
      if (plan.computed.has(key)) continue;
      if (this.opts.ignoreUnknown) {
        const k = `${r.name}.${key}`;
        this.ignoredFields[k] = (this.ignoredFields[k] ?? 0) + 1;
        continue;
      }
      throw new TransferError(`unknown field for ${r.name}`, w(key));
    }
    for (const name of plan.required) {
      if (!(name in vals)) throw new TransferError(`${name} is required`, w(name));
    }
    if (r.hooks?.beforeWrite) {
      try {
        r.hooks.beforeWrite(vals, { op: 'create' });
      } catch (e) {
        if (e instanceof ApiError) throw new TransferError(e.message, w());
        throw e;
      }
    }
    // One-to-one relations loaded in the record: the related record is imported and referenced.
    const later: [string, RelationDef, unknown][] = [];
    if (nested) {
      for (const [name, rel, v] of nested) {
        if (rel.kind !== 'belongsTo') {
          later.push([name, rel, v]);
          continue;
        }
        if (!isPlainObject(v)) throw new TransferError(`expected the related ${rel.target} record (an object)`, w(name));
        const childAt = nestedAt(loc, name);
        const childId = this.addNested(planOf(getResource(rel.target)), v, childAt);
        const fk = vals[rel.fk];
        if (fk === undefined || fk === null) vals[rel.fk] = childId;
        else if (fk !== childId) throw new TransferError(`${rel.fk} ${String(fk)} is not the id of the ${name} given with it (${childId})`, w(rel.fk));
      }
    }
    this.queue(plan, id, vals, createdAt, updatedAt, loc);
    // Has-many and many-to-many relations loaded in the record.
    const linkLists = new Map<string, string[]>();
    for (const [name, rel, v] of later) {
      if (!Array.isArray(v)) throw new TransferError(`expected a list of related ${rel.target} records`, w(name));
      const target = planOf(getResource(rel.target));
      const ids: string[] = [];
      v.forEach((child, i) => {
        if (!isPlainObject(child)) throw new TransferError(`expected a related ${rel.target} record (an object)`, w(`${name}[${i}]`));
        const childAt = nestedAt(loc, `${name}[${i}]`);
        if (rel.kind === 'hasMany') {
          const fk = child[rel.fk];
          if (fk === undefined || fk === null) child = { ...child, [rel.fk]: id };
          else if (typeof fk !== 'string' || fk.toLowerCase() !== id) {
            throw new TransferError(`${rel.fk} should be the id of the record it is listed in (${id})`, { ...childAt.where(), field: rel.fk });
          }
          this.add(target, child, childAt);
        } else {
          ids.push(this.addNested(target, child, childAt));
        }
      });
      if (rel.kind === 'manyToMany') linkLists.set(name, ids);
    }
    if (relIds) {
      for (const [name, list] of Object.entries(relIds)) {
        const rel = plan.relations.get(name);
        if (!rel || rel.kind === 'belongsTo') throw new TransferError(`unknown relation in _relations: ${name}`, w('_relations'));
        if (rel.kind === 'hasMany') continue; // the related records carry their own reference
        if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || !ID_RE.test(x))) {
          throw new TransferError(`_relations.${name} should be a list of uuids`, w('_relations'));
        }
        linkLists.set(name, (list as string[]).map((x) => x.toLowerCase()));
      }
    }
    for (const [name, ids] of linkLists) this.setLinks(plan, id, name, ids);
    return id;
  }

  /** A record met inside another; identical repeats (an asset in many incidents) are skipped early. */
  private addNested(plan: KindPlan, rec: Record<string, unknown>, where: At): string {
    const rawId = rec.id;
    if (typeof rawId === 'string' && ID_RE.test(rawId)) {
      const key = `${plan.r.name}:${rawId.toLowerCase()}`;
      const sig = JSON.stringify(rec);
      const seen = this.nestedSeen.get(key);
      if (seen === sig) {
        this.records++;
        this.countsOf(plan.r.name).repeated++;
        return rawId.toLowerCase();
      }
      if (this.nestedSeen.size >= 50_000) this.nestedSeen.delete(this.nestedSeen.keys().next().value!);
      if (seen === undefined) this.nestedSeen.set(key, sig);
    }
    return this.add(plan, rec, where);
  }

  private queue(plan: KindPlan, id: string, vals: Record<string, unknown>, createdAt: string | null, updatedAt: string | null, where: At): void {
    const s = this.state(plan);
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
        flat[at] = v === null ? null : col.def.kind === 'bool' ? (v ? 1 : 0) : col.def.kind === 'json' ? JSON.stringify(v) : v;
        present[at] = 1;
      }
    }
    if (plan.sequence) {
      const si = base + 1 + plan.index.get(plan.sequence)!;
      if (s.seq === null) {
        s.seq = (this.db.prepare(`SELECT COALESCE(MAX(${q(plan.sequence)}), 0) AS n FROM ${q(s.table)}`).get() as { n: number }).n;
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
    // Batches of one are written at once, while the reader's position is still current.
    s.wheres[s.n] = s.rowsPerStmt === 1 ? where : at(where.where());
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
      if (!constraintCode(e)) throw e;
      for (let i = 0; i < n; i++) this.slowRow(s, i);
    }
    s.n = 0;
  }

  /** One row of a batch refused as a whole: insert, update, leave, or refuse it. */
  private slowRow(s: TableState, i: number): void {
    const row = s.flat.slice(i * s.width, (i + 1) * s.width);
    const present = s.present.subarray(i * s.width, (i + 1) * s.width);
    const where = { ...s.wheres[i]!.where(), id: s.flat[i * s.width] as string };
    const id = row[0] as string;
    const name = s.plan.r.name;
    const existing = s.selectById.get(id) as unknown[] | undefined;
    if (!existing) {
      try {
        this.insertStmt(s, 1).run(row);
        this.countsOf(name).inserted++;
      } catch (e) {
        throw this.constraintError(s, e, row, where);
      }
      this.changes?.creates.set(`${name}:${id}`, { r: s.plan.r, id, relations: new Set() });
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
      throw new TransferError(`duplicate id: this ${name} record appeared earlier in the import with different content (first difference: ${differs})`, { ...where, field: differs });
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
      throw this.constraintError(s, e, row, where);
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
  private clearable(plan: KindPlan, column: string): boolean {
    const d = plan.columns.find((c) => c.name === column)?.def;
    return !!d?.ref && !d.notNull && (d.onDelete ?? 'set null') === 'set null' && !this.opts.strictReferences;
  }

  private constraintError(s: TableState, e: unknown, row: unknown[], where: Where): Error {
    if (!constraintCode(e)) return e as Error;
    const msg = (e as Error).message;
    const unique = /UNIQUE constraint failed: ([^\s]+)/.exec(msg);
    if (unique) {
      const field = unique[1]!.split(',')[0]!.split('.').pop()!;
      const j = s.cols.indexOf(field);
      return new TransferError(`${field} ${j >= 0 ? JSON.stringify(row[j]) : ''} is already used by another ${s.plan.r.name} record`, { ...where, field });
    }
    const notNull = /NOT NULL constraint failed: ([^\s]+)/.exec(msg);
    if (notNull) {
      const field = notNull[1]!.split('.').pop()!;
      return new TransferError(`${field} is required`, { ...where, field });
    }
    return new TransferError(msg, where);
  }

  /**
   * Recording changes: takes the values of a record that existed before the import, before its
   * first write by it (fields set by the import, link lists); the entries are written at commit.
   */
  private trackUpdate(r: KindPlan['r'], id: string, columns: readonly string[], relation?: string): void {
    const c = this.changes;
    if (!c) return;
    const key = `${r.name}:${id}`;
    const created = c.creates.get(key);
    if (created) {
      if (relation) created.relations.add(relation);
      return;
    }
    if (c.updates.has(key)) return;
    const fields = columns.filter((n) => r.fields[n] && n !== 'updated_at' && n !== 'created_at');
    // All the record's link lists: a later link list of the same record is then compared too.
    const relations = Object.entries(r.relations ?? {})
      .filter(([, rel]) => rel.kind === 'manyToMany')
      .map(([n]) => n);
    const change = beginChange(c.store, r, 'update', id, {}, relation ? Object.keys(r.fields) : fields, relations);
    if (change) c.updates.set(key, change);
  }

  /** Recording changes: the outbox entries of every record created or changed, as they are now. */
  private recordChanges(): void {
    const c = this.changes;
    if (!c) return;
    for (const change of c.updates.values()) change.done();
    for (const { r, id, relations } of c.creates.values()) beginChange(c.store, r, 'create', id, {}, [], [...relations])?.done();
    this.outboxEntries = (c.store.get1<{ n: number }>('SELECT COUNT(*) AS n FROM sync_outbox') ?? { n: 0 }).n;
    this.changes = null;
  }

  /** Makes the record's links of a many-to-many relation equal to `ids` (spec: _relations). */
  private setLinks(plan: KindPlan, id: string, name: string, ids: string[]): void {
    const rel = plan.relations.get(name)!;
    if (rel.kind !== 'manyToMany') return;
    this.trackUpdate(plan.r, id, [], name);
    const json = JSON.stringify([...new Set(ids)]);
    const key = `${rel.link}:${rel.self}`;
    let st = this.linkStmts.get(key);
    if (!st) {
      st = [
        this.db.prepare(`DELETE FROM ${q(rel.link)} WHERE ${q(rel.self)} = ? AND ${q(rel.other)} NOT IN (SELECT value FROM json_each(?))`),
        this.db.prepare(`INSERT OR IGNORE INTO ${q(rel.link)} (${q(rel.self)}, ${q(rel.other)}) SELECT ?, value FROM json_each(?)`),
      ];
      this.linkStmts.set(key, st);
    }
    st[0].run(id, json);
    st[1].run(id, json);
    this.links.add(rel.link);
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
        if (opts.signal?.aborted) throw new CancelledError();
        this.db.exec(ix.sql);
        await yieldToLoop();
      }
      s.indexes = [];
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
        if (opts.signal?.aborted) throw new CancelledError();
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
    if (missingRefs.length) {
      const first = missingRefs[0]!;
      throw new TransferError(missingReferencesMessage(missingRefs, this.opts.invocation), { record: first.from, id: first.id, field: first.field });
    }
    for (const m of this.maybeUnchanged) {
      const row = this.db.prepare(`SELECT ${m.cols.map((c) => `${q(c)} IS NULL`).join(' AND ')} AS cleared FROM ${q(m.s.table)} WHERE id = ?`).get(m.id) as { cleared: number } | undefined;
      if (!row?.cleared) continue;
      const counts = this.countsOf(m.s.plan.r.name);
      counts.updated--;
      counts.unchanged++;
    }
    this.maybeUnchanged = [];
    for (const link of this.links) {
      const bad = this.db.prepare(`PRAGMA foreign_key_check(${q(link)})`).get() as { parent: string; fkid: number } | undefined;
      if (!bad) continue;
      const fks = this.db.prepare(`PRAGMA foreign_key_list(${q(link)})`).all() as { id: number; from: string }[];
      const column = fks.find((f) => f.id === bad.fkid)?.from ?? '?';
      throw new TransferError(`link table ${link}: ${column} refers to a missing ${bad.parent} record (neither in the import nor in the database)`);
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

