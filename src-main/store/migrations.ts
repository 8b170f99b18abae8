// Versioned migrations, tracked in PRAGMA user_version. Version 1 is the registry's schema
// as first released; every later change to a declaration adds a migration here, and the
// schema test compares a migrated database with the registry so that none is forgotten.
import type Database from 'better-sqlite3';
import { dayCountsDdl, dimensionCountsDdl, riskApartDdl, valueCountsDdl } from './kinds/incidents/kept';
import { SCHEMA_VERSION } from './connection';
import { registryDdl, registryIndexDdl, supersededIndexes } from './ddl';
import { q } from './sql';

export interface Migration {
  version: number;
  name: string;
  up: (db: Database.Database) => void;
}

/**
 * Creates the registry's indexes a database lacks. A database whose planner statistics were
 * gathered gets them for the new indexes too (without them the planner would weigh the new
 * indexes by guesses against measured ones).
 */
function addRegistryIndexes(db: Database.Database): void {
  const had = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).all() as { name: string }[]).map((x) => x.name));
  for (const stmt of registryIndexDdl()) db.exec(stmt);
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'`).get()) {
    const added = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`).all() as { name: string }[]).filter((x) => !had.has(x.name));
    for (const { name } of added) db.exec(`ANALYZE ${q(name)}`);
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'resource tables, link tables, indexes and search indexes',
    up: (db) => {
      for (const stmt of registryDdl()) db.exec(stmt);
    },
  },
  {
    version: 2,
    name: 'instance settings (key/value)',
    up: (db) => {
      db.exec(`CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
    },
  },
  {
    version: 3,
    name: 'instances this server routes to (local databases and remote platforms)',
    up: (db) => {
      db.exec(`CREATE TABLE console_instances (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('local', 'remote')),
        sort_order INTEGER NOT NULL,
        db_file TEXT,
        url TEXT,
        remote_instance_id TEXT,
        ca_file TEXT,
        pinned_sha256 TEXT,
        timeout_ms INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) WITHOUT ROWID`);
    },
  },
  {
    version: 4,
    name: 'incident indexes for triage (status, time, risk) and per-asset counts',
    up: (db) => {
      for (const stmt of registryIndexDdl()) db.exec(stmt);
      db.exec('DROP INDEX IF EXISTS "ix_service_asset_findings_status_created_at"');
    },
  },
  {
    version: 5,
    name: 'sync with the origin of a snapshot: origin, remote versions, pull cursors, outbox, push log',
    up: (db) => {
      // The platform a snapshot was copied from. The key is never here: key_store names the
      // key vault file and key_id the entry in it.
      db.exec(`CREATE TABLE sync_origin (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        url TEXT NOT NULL,
        remote_instance_id TEXT,
        ca_file TEXT,
        pinned_sha256 TEXT,
        timeout_ms INTEGER,
        key_store TEXT NOT NULL,
        key_id TEXT NOT NULL,
        snapshot_at TEXT NOT NULL,
        pulled_at TEXT,
        pushed_at TEXT,
        lock_pid INTEGER,
        lock_kind TEXT,
        lock_at TEXT
      )`);
      // The origin's updated_at of each record as the copy last received it.
      db.exec(`CREATE TABLE sync_remote (resource TEXT NOT NULL, id TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (resource, id)) WITHOUT ROWID`);
      // The newest origin updated_at received per pulled list.
      db.exec(`CREATE TABLE sync_cursors (list TEXT PRIMARY KEY, updated_at TEXT NOT NULL) WITHOUT ROWID`);
      // Local changes waiting to be pushed: one row per record and field (field '' for a
      // record created or deleted here), values as JSON.
      db.exec(`CREATE TABLE sync_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        resource TEXT NOT NULL,
        record_id TEXT NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('create', 'update', 'delete')),
        field TEXT NOT NULL,
        before TEXT,
        after TEXT,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'conflict', 'failed')),
        theirs TEXT,
        theirs_at TEXT,
        resolution TEXT CHECK (resolution IN ('mine')),
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        sent TEXT,
        first_at TEXT NOT NULL,
        changed_at TEXT NOT NULL,
        user_id TEXT,
        sent_at TEXT,
        UNIQUE (resource, record_id, field)
      )`);
      db.exec(`CREATE INDEX ix_sync_outbox_state ON sync_outbox (state, seq)`);
      db.exec(`CREATE TABLE sync_log (
        seq INTEGER PRIMARY KEY,
        resource TEXT NOT NULL,
        record_id TEXT NOT NULL,
        op TEXT NOT NULL,
        field TEXT NOT NULL,
        before TEXT,
        after TEXT,
        user_id TEXT,
        changed_at TEXT NOT NULL,
        pushed_at TEXT NOT NULL,
        note TEXT
      )`);
    },
  },
  {
    version: 6,
    name: 'incident counts per day, status and risk band, kept by triggers (counts and charts)',
    up: (db) => {
      for (const stmt of dayCountsDdl()) db.exec(stmt);
    },
  },
  {
    version: 7,
    name: 'people: names for the user uuids of this database',
    up: (db) => {
      db.exec(`CREATE TABLE console_people (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        short_name TEXT NOT NULL,
        login TEXT,
        email TEXT,
        role TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) WITHOUT ROWID`);
    },
  },
  {
    version: 8,
    name: 'incident index for sorting by status in workflow order (status_rank), then by time',
    up: (db) => {
      for (const stmt of registryIndexDdl()) db.exec(stmt);
    },
  },
  {
    version: 9,
    name: 'push: the platform’s own rows for status changes made here (sync_ids), so what names them is pushed linked',
    up: (db) => {
      // local_id: a row made here that the platform makes itself when the change reaches it (a
      // status-change row); parent_id/value: the change that makes it (incident, status); probe:
      // the platform's rows of that parent read before the change was sent (JSON ids); remote_id:
      // the platform's row for it once found ('' when the platform made none).
      db.exec(`CREATE TABLE IF NOT EXISTS sync_ids (
        resource TEXT NOT NULL,
        local_id TEXT NOT NULL,
        parent_id TEXT NOT NULL,
        value TEXT,
        probe TEXT NOT NULL,
        remote_id TEXT,
        PRIMARY KEY (resource, local_id)
      ) WITHOUT ROWID`);
    },
  },
  {
    version: 10,
    name: 'incident counts per owner and per responsible group (by day, status and risk band), kept by triggers; incident indexes by asset and by finding type in time order',
    up: (db) => {
      for (const stmt of dimensionCountsDdl()) db.exec(stmt);
      for (const name of supersededIndexes()) db.exec(`DROP INDEX IF EXISTS ${q(name)}`);
      for (const stmt of registryIndexDdl()) db.exec(stmt);
    },
  },
  {
    version: 11,
    name: 'incident indexes by owner and by responsible group in time order, and by title',
    up: addRegistryIndexes,
  },
  {
    version: 12,
    name: 'incident counts per finding type and per asset (by status and risk band), kept by triggers',
    up: (db) => {
      for (const stmt of valueCountsDdl()) db.exec(stmt);
    },
  },
  {
    version: 13,
    name: 'incidents whose stored risk band is not their risklevel\'s band (a partial index, empty while the band follows risklevel), so that a band condition is read from the kept counts',
    up: (db) => {
      for (const stmt of riskApartDdl()) db.exec(stmt);
    },
  },
  {
    version: 14,
    name: 'incident index by status, title and risklevel: the number of titles of a status (and band) read from one range of it, a status\'s titles in order, a band\'s titles without reading the table',
    up: addRegistryIndexes,
  },
];

export { SCHEMA_VERSION };
if (MIGRATIONS[MIGRATIONS.length - 1]!.version !== SCHEMA_VERSION) {
  throw new Error(`SCHEMA_VERSION (${SCHEMA_VERSION}) is not the last migration's version (${MIGRATIONS[MIGRATIONS.length - 1]!.version})`);
}

/** Brings the database up to SCHEMA_VERSION, each step in its own transaction. */
export function migrate(db: Database.Database): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new Error(`database schema version ${from} is newer than this build supports (${SCHEMA_VERSION})`);
  }
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return { from, to: SCHEMA_VERSION };
}
