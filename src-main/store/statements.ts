// A connection's statements: the cache of prepared statements (keyed by SQL text, which never
// holds input), reads and runs, transactions, the data version and what is kept while it holds
// (totals of matched sets, keyset anchors), full-text matches materialised per request, and rows
// read by row id in a page's order. The store's write path (store.ts) and the query runner
// (query/runner.ts) both work on it.
import { DataVersion, VersionedCache } from './data-version';
import type { Db } from './db';
import type { Rec } from './api';
import type { Anchors } from './query/anchors';
import { q } from './sql';

const STATEMENT_CACHE_SIZE = 512;

/**
 * Above this many full-text matches the page query walks the ordering's index and probes the
 * matches (`+t._rid IN hits`) instead of looking every match up and sorting them all.
 */
export const DENSE_HITS = 3000;

/** Full-text matches materialised once per request into temporary tables. */
export class FtsHits {
  private used = 0;
  constructor(private readonly store: Statements) {}

  /** The rows of one match in a temporary table, and a condition on `t._rid` naming it. */
  materialise(table: string, match: string): { sql: string; count: number } {
    const name = `rc_hits_${this.used++}`;
    this.store.db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${name} (rid INTEGER PRIMARY KEY)`);
    this.store.scratch(`DELETE FROM temp.${name}`);
    const count = this.store.scratch(`INSERT INTO temp.${name} (rid) SELECT rowid FROM ${q(table)} WHERE ${q(table)} MATCH ?`, [match]);
    return { sql: `${count > DENSE_HITS ? '+' : ''}t._rid IN temp.${name}`, count };
  }

  clear(): void {
    for (let i = 0; i < this.used; i++) this.store.scratch(`DELETE FROM temp.rc_hits_${i}`);
  }
}

type Statement = ReturnType<Db['prepare']> & { all(...p: unknown[]): unknown[]; get(...p: unknown[]): unknown; run(...p: unknown[]): { changes: number } };

export class Statements {
  private readonly stmts = new Map<string, Statement>();
  private readonly dataVersion: DataVersion;
  /** Totals of matched sets, reused while the data has not changed (see DataVersion). */
  readonly totals = new VersionedCache<number>(512);
  /** Rows noted per matched set and order, for keyset paging (query/keyset.ts). */
  readonly anchors = new VersionedCache<Anchors>(256);

  constructor(readonly db: Db) {
    this.dataVersion = new DataVersion(db);
  }

  /** Moves the write-ahead log into the database file and empties it. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** A token of the data's state: changes with every write, by this connection or another. */
  version(): string | null {
    return this.dataVersion.current();
  }

  /** A write to this connection's scratch tables (not data); answers the rows changed. */
  scratch(sql: string, params: readonly unknown[] = []): number {
    const n = this.run(sql, params).changes;
    this.dataVersion.noteScratch(n);
    return n;
  }

  /** A prepared statement, cached by its SQL text (which never contains input). */
  stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql) as Statement;
      if (this.stmts.size >= STATEMENT_CACHE_SIZE) this.stmts.delete(this.stmts.keys().next().value!);
      this.stmts.set(sql, s);
    }
    return s;
  }

  all<T = Rec>(sql: string, params: readonly unknown[] = []): T[] {
    return this.stmt(sql).all(...(params as unknown[])) as T[];
  }

  get1<T = Rec>(sql: string, params: readonly unknown[] = []): T | undefined {
    return this.stmt(sql).get(...(params as unknown[])) as T | undefined;
  }

  run(sql: string, params: readonly unknown[] = []) {
    return this.stmt(sql).run(...(params as unknown[]));
  }

  /** Runs fn in a transaction (a savepoint when already inside one). */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Runs fn with full-text matches materialised once (see FtsHits), cleaned up afterwards. */
  withHits<T>(fn: (hits: FtsHits) => T): T {
    const hits = new FtsHits(this);
    try {
      return fn(hits);
    } finally {
      hits.clear();
    }
  }

  /** Rows for ids in the ids' order (the deferred join of a page: sort ids, then read rows). */
  rowsByRids(select: string, ids: readonly { _rid: number }[]): Rec[] {
    if (!ids.length) return [];
    const rows = this.all(select, [JSON.stringify(ids.map((x) => x._rid))]);
    const byRid = new Map(rows.map((row) => [row._rid as number, row]));
    return ids.map((x) => byRid.get(x._rid)!).filter(Boolean);
  }
}
