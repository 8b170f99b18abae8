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

/**
 * How many materialised matches a connection keeps for later reads of the same data (each the
 * row ids of one match: a few MB for hundreds of thousands of matches).
 */
export const KEPT_MATCHES = 4;

/** The register of kept matches: a temporary table, so that a rolled-back transaction rolls it back with the tables it names. */
const KEPT_REGISTER = 'rc_kept_matches';

/**
 * Full-text matches materialised into temporary tables. With the data version the read is at,
 * a match is kept for the reads after it while the data does not change (the page, its total,
 * the aggregates and the groupings of one view each ask the same match): the connection keeps
 * the last KEPT_MATCHES matches in tables of their own, registered in a temporary table. Without
 * one (inside a write's transaction), it is materialised for this run alone.
 */
export class FtsHits {
  private used = 0;
  constructor(
    private readonly store: Statements,
    private readonly version: string | null = null,
  ) {}

  /** The rows of one match in a temporary table, and a condition on `t._rid` naming it. */
  materialise(table: string, match: string): { sql: string; count: number } {
    const kept = this.version === null ? undefined : this.kept(table, match, this.version);
    const { name, count } = kept ?? this.once(table, match);
    return { sql: `${count > DENSE_HITS ? '+' : ''}t._rid IN temp.${name}`, count };
  }

  private once(table: string, match: string): { name: string; count: number } {
    const name = `rc_hits_${this.used++}`;
    this.store.db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${name} (rid INTEGER PRIMARY KEY)`);
    this.store.scratch(`DELETE FROM temp.${name}`);
    const count = this.store.scratch(`INSERT INTO temp.${name} (rid) SELECT rowid FROM ${q(table)} WHERE ${q(table)} MATCH ?`, [match]);
    return { name, count };
  }

  /** The match kept at this data version, materialised into the least recently used slot if not kept. */
  private kept(table: string, match: string, version: string): { name: string; count: number } {
    const store = this.store;
    store.db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${KEPT_REGISTER} (slot INTEGER PRIMARY KEY, key TEXT NOT NULL, version TEXT NOT NULL, n INTEGER NOT NULL, used INTEGER NOT NULL)`);
    const key = JSON.stringify([table, match]);
    const stamp = store.nextUse();
    const hit = store.get1<{ slot: number; n: number }>(`SELECT slot, n FROM temp.${KEPT_REGISTER} WHERE key = ? AND version = ?`, [key, version]);
    if (hit) {
      store.scratch(`UPDATE temp.${KEPT_REGISTER} SET used = ? WHERE slot = ?`, [stamp, hit.slot]);
      return { name: `rc_match_${hit.slot}`, count: hit.n };
    }
    const taken = store.all<{ slot: number; used: number; version: string }>(`SELECT slot, used, version FROM temp.${KEPT_REGISTER}`);
    const free = Array.from({ length: KEPT_MATCHES }, (_, i) => i).find((i) => !taken.some((x) => x.slot === i));
    // A free slot, else one kept at another data version (never read again), else the least recently used.
    const slot = free ?? [...taken].sort((a, b) => Number(a.version === version) - Number(b.version === version) || a.used - b.used)[0]!.slot;
    const name = `rc_match_${slot}`;
    store.db.exec(`DROP TABLE IF EXISTS temp.${name}`);
    store.db.exec(`CREATE TEMP TABLE ${name} (rid INTEGER PRIMARY KEY)`);
    const count = store.scratch(`INSERT INTO temp.${name} (rid) SELECT rowid FROM ${q(table)} WHERE ${q(table)} MATCH ?`, [match]);
    store.scratch(`INSERT OR REPLACE INTO temp.${KEPT_REGISTER} (slot, key, version, n, used) VALUES (?, ?, ?, ?, ?)`, [slot, key, version, count, stamp]);
    return { name, count };
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

  private uses = 0;

  /** A stamp of use, increasing (which kept match was read last). */
  nextUse(): number {
    return ++this.uses;
  }

  /**
   * Runs fn with full-text matches materialised once (see FtsHits): kept for later reads while
   * the data stays at `version` (null: for this run alone, cleaned up afterwards).
   */
  withHits<T>(fn: (hits: FtsHits) => T, version: string | null = null): T {
    const hits = new FtsHits(this, version);
    try {
      return fn(hits);
    } finally {
      hits.clear();
    }
  }

  /**
   * The temporary table keeping a full-text match at `version` on this connection (FtsHits), if
   * it keeps it; nothing is materialised.
   */
  keptMatch(table: string, match: string, version: string | null): string | undefined {
    if (version === null || !this.get1(`SELECT 1 AS x FROM sqlite_temp_master WHERE name = ?`, [KEPT_REGISTER])) return undefined;
    const hit = this.get1<{ slot: number }>(`SELECT slot FROM temp.${KEPT_REGISTER} WHERE key = ? AND version = ?`, [JSON.stringify([table, match]), version]);
    return hit ? `temp.rc_match_${hit.slot}` : undefined;
  }

  /** Rows for ids in the ids' order (the deferred join of a page: sort ids, then read rows). */
  rowsByRids(select: string, ids: readonly { _rid: number }[]): Rec[] {
    if (!ids.length) return [];
    const rows = this.all(select, [JSON.stringify(ids.map((x) => x._rid))]);
    const byRid = new Map(rows.map((row) => [row._rid as number, row]));
    return ids.map((x) => byRid.get(x._rid)!).filter(Boolean);
  }
}
