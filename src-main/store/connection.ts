// A connection to a database file: WAL, foreign keys, the Unicode case-folding function; no
// migrations (db.ts adds them). The server's start opens the file with this and loads the
// migrations, with the registry they are made from, only when the file needs them.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { COUNTED } from './kinds/incidents/kept';
import { q } from './sql';

export type Db = Database.Database;

/** Unicode lower-casing for substring matches SQLite's ASCII-only lower() cannot do. */
export const fold = (s: string): string => s.toLowerCase();

/**
 * Whether an error is SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended
 * codes, SQLITE_LOCKED): the client did nothing wrong, it may try again.
 */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_'));
}

export interface OpenOptions {
  /** Create the file (and its folder) when missing; default true. */
  create?: boolean;
  readonly?: boolean;
  /** How long a write waits for another writer's lock (ms). */
  busyTimeoutMs?: number;
  /** SQLite's page cache of this connection (KiB; default 64 MiB). */
  cacheKiB?: number;
}

/** Opens (creates) the file and sets the connection up; the schema is left as it is. */
export function openConnection(file: string, opts: OpenOptions = {}): { db: Db; created: boolean } {
  const memory = file === ':memory:';
  const existed = memory ? false : fs.existsSync(file);
  if (!memory && !existed) {
    if (opts.create === false) throw new Error(`database ${file} does not exist`);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  }
  const db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.create === false });
  try {
    if (!memory && !opts.readonly) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    // A writer waits this long for another (an import) before the request is refused with 503;
    // better-sqlite3 waits synchronously, so the wait is kept short.
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 1000}`);
    db.pragma('temp_store = MEMORY');
    db.pragma(`cache_size = -${Math.max(256, Math.round(opts.cacheKiB ?? 65536))}`);
    db.function('rc_fold', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? fold(v) : v === null ? null : fold(String(v))));
  } catch (e) {
    db.close();
    throw e;
  }
  return { db, created: !existed };
}

/**
 * Runs `fn` in one transaction on `db` (nested in a caller's transaction as a savepoint);
 * `immediate` takes the write lock at the start, so a check and the write after it see the same data.
 */
export function inTransaction<T>(db: Db, fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
  const t = db.transaction(fn);
  return mode === 'immediate' ? t.immediate() : t();
}

/**
 * The schema version this build brings a database to: the version of the last migration
 * (migrations.ts refuses to load when they differ). Kept here so that a start can tell whether
 * the migrations are needed without loading them.
 */
export const SCHEMA_VERSION = 14;

/** The schema version the file is at (PRAGMA user_version; 0 for a new file). */
export const schemaVersionOf = (db: Db): number => db.pragma('user_version', { simple: true }) as number;

/** Whether the database holds at least one incident (a migrated database). */
export const hasIncidents = (db: Db): boolean => db.prepare(`SELECT 1 FROM ${q(COUNTED.table)} LIMIT 1`).get() !== undefined;
