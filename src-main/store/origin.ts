// The origin of a snapshot as its database keeps it: where it was copied from (sync_origin;
// the key is never here: key_store names the key vault file, key_id its entry), the origin's
// version of each record the copy holds (sync_remote) and the pull cursors (sync_cursors).
// Written by the snapshot and the sync engine on their own connections.
import { normalizeTs } from '../../src-shared/time';
import { inTransaction } from './connection';
import type { Db } from './db';
import { platformMadeOf, platformMadeReferrers, platformMadeRefs } from './kinds/index';
import { q } from './sql';

export interface OriginRow {
  url: string;
  remote_instance_id: string | null;
  ca_file: string | null;
  pinned_sha256: string | null;
  timeout_ms: number | null;
  key_store: string;
  key_id: string;
  snapshot_at: string;
  pulled_at: string | null;
  pushed_at: string | null;
  lock_pid: number | null;
  lock_kind: string | null;
  lock_at: string | null;
}

export type OriginInput = Pick<OriginRow, 'url' | 'remote_instance_id' | 'ca_file' | 'pinned_sha256' | 'timeout_ms' | 'key_store' | 'key_id' | 'snapshot_at'>;

export function readOrigin(db: Db): OriginRow | undefined {
  return db.prepare('SELECT * FROM sync_origin WHERE id = 1').get() as OriginRow | undefined;
}

/** Remembers the origin (kept when already set: a resumed snapshot). */
export function setOrigin(db: Db, o: OriginInput): void {
  db.prepare(
    `INSERT INTO sync_origin (id, url, remote_instance_id, ca_file, pinned_sha256, timeout_ms, key_store, key_id, snapshot_at)
     VALUES (1, @url, @remote_instance_id, @ca_file, @pinned_sha256, @timeout_ms, @key_store, @key_id, @snapshot_at)
     ON CONFLICT (id) DO NOTHING`,
  ).run(o);
}

/** Notes the process holding the lock of the snapshot's one push or pull at a time. */
export function setOriginLock(db: Db, kind: 'push' | 'pull', pid: number): void {
  db.prepare('UPDATE sync_origin SET lock_pid = ?, lock_kind = ?, lock_at = ? WHERE id = 1').run(pid, kind, new Date().toISOString());
}

/** Releases the lock when this process holds it. */
export function clearOriginLock(db: Db, pid: number): void {
  if (db.open) db.prepare('UPDATE sync_origin SET lock_pid = NULL, lock_kind = NULL, lock_at = NULL WHERE id = 1 AND lock_pid = ?').run(pid);
}

/** When a push ended with everything it could send sent. */
export function markPushed(db: Db): void {
  db.prepare('UPDATE sync_origin SET pushed_at = ? WHERE id = 1').run(new Date().toISOString());
}

/** When a pull ended (not cancelled). */
export function markPulled(db: Db): void {
  db.prepare('UPDATE sync_origin SET pulled_at = ? WHERE id = 1').run(new Date().toISOString());
}

/** Records marked stale (read again from the origin by id). */
export function staleRecords(db: Db): { resource: string; id: string }[] {
  return db.prepare(`SELECT resource, id FROM sync_remote WHERE updated_at = ''`).all() as { resource: string; id: string }[];
}

/**
 * Ids of records of a resource the copy got from the origin, walked in id order against pages
 * of the origin's ids: those in (after, upTo] (upTo null: to the end) not in `ids`.
 */
export function copiedIdsMissing(db: Db, resource: string): (after: string, upTo: string | null, ids: readonly string[]) => string[] {
  const st = db
    .prepare(`SELECT id FROM sync_remote WHERE resource = ? AND id > ? AND (? IS NULL OR id <= ?) AND id NOT IN (SELECT value FROM json_each(?)) AND updated_at <> ''`)
    .pluck();
  return (after, upTo, ids) => st.all(resource, after, upTo, upTo, JSON.stringify(ids)) as string[];
}

/** A timestamp from the origin in the stored form, or null. */
export const remoteTs = (v: unknown): string | null => (typeof v === 'string' ? normalizeTs(v) : null);

/** Prepared writes of the origin's versions and cursors on one connection. */
export class RemoteVersions {
  private readonly upsert;
  private readonly drop;
  private readonly get_;
  private readonly cursorIfNone;
  private readonly cursorSet;

  constructor(private readonly db: Db) {
    this.upsert = db.prepare(
      'INSERT INTO sync_remote (resource, id, updated_at) VALUES (?, ?, ?) ON CONFLICT (resource, id) DO UPDATE SET updated_at = excluded.updated_at',
    );
    this.drop = db.prepare('DELETE FROM sync_remote WHERE resource = ? AND id = ?');
    this.get_ = db.prepare('SELECT updated_at FROM sync_remote WHERE resource = ? AND id = ?').pluck();
    this.cursorIfNone = db.prepare('INSERT INTO sync_cursors (list, updated_at) VALUES (?, ?) ON CONFLICT (list) DO NOTHING');
    this.cursorSet = db.prepare('INSERT INTO sync_cursors (list, updated_at) VALUES (?, ?) ON CONFLICT (list) DO UPDATE SET updated_at = excluded.updated_at');
  }

  /** Records the origin's version of a record it sent (ignored without an id or updated_at). */
  seen(resource: string, rec: Record<string, unknown>): void {
    const ts = remoteTs(rec.updated_at);
    if (typeof rec.id === 'string' && ts) this.upsert.run(resource, rec.id.toLowerCase(), ts);
  }

  forget(resource: string, id: string): void {
    this.drop.run(resource, id);
  }

  of(resource: string, id: string): string | undefined {
    return this.get_.get(resource, id) as string | undefined;
  }

  /** The first cursor of a list (a resumed snapshot keeps the one of its first run). */
  startCursor(list: string, ts: string): void {
    this.cursorIfNone.run(list, ts);
  }

  setCursor(list: string, ts: string): void {
    this.cursorSet.run(list, ts);
  }

  cursor(list: string): string | undefined {
    return (this.db.prepare('SELECT updated_at FROM sync_cursors WHERE list = ?').pluck().get(list) as string | undefined) ?? undefined;
  }
}

/**
 * A row made here (local_id) that the platform makes itself, with its parent, the value of the
 * change, the platform's rows read before the change was sent (probe) and, once found, the
 * platform's row for it (remote_id; '' when it made none; null while not looked for).
 */
export interface SyncIdRow {
  resource: string;
  local_id: string;
  parent_id: string;
  value: string | null;
  probe: string;
  remote_id: string | null;
}

/** The copy's rows matched to the platform's own rows for the same change (sync_ids), and which rows the copy got from the origin. */
export class SyncIds {
  private readonly st;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      id: p('SELECT * FROM sync_ids WHERE resource = ? AND local_id = ?'),
      put: p('INSERT OR REPLACE INTO sync_ids (resource, local_id, parent_id, value, probe, remote_id) VALUES (?, ?, ?, ?, ?, NULL)'),
      resolve: p('UPDATE sync_ids SET remote_id = ? WHERE resource = ? AND local_id = ?'),
      open: p('SELECT * FROM sync_ids WHERE remote_id IS NULL'),
      copied: p('SELECT 1 FROM sync_remote WHERE resource = ? AND id = ?'),
    };
  }

  get(resource: string, localId: string): SyncIdRow | undefined {
    return this.st.id.get(resource, localId) as SyncIdRow | undefined;
  }

  /** Rows whose platform row has not been looked for yet. */
  open(): SyncIdRow[] {
    return this.st.open.all() as SyncIdRow[];
  }

  /** Notes a row with its probe (remote_id '' at once when the platform's rows could not be read). */
  put(x: SyncIdRow): void {
    this.st.put.run(x.resource, x.local_id, x.parent_id, x.value, x.probe);
    if (x.remote_id === '') this.st.resolve.run('', x.resource, x.local_id);
  }

  /** The platform's rows found (or '' for none), in one transaction. */
  resolveAll(found: readonly { resource: string; local_id: string; remote_id: string }[]): void {
    inTransaction(this.db, () => {
      for (const x of found) this.st.resolve.run(x.remote_id, x.resource, x.local_id);
    });
  }

  /** Whether the copy got this record from the origin (it is the platform's own). */
  copied(resource: string, id: string): boolean {
    return this.st.copied.get(resource, id) !== undefined;
  }
}

/** Pull: references to rows made here re-pointed to the platform's rows found by push, before those rows are dropped. */
export function repointMadeRows(db: Db, resource: string, parent: string): void {
  const made = platformMadeOf(resource);
  if (!made) return;
  for (const r of platformMadeReferrers()) {
    for (const { field } of platformMadeRefs(r).filter((x) => x.made === made)) {
      db.prepare(
        `UPDATE ${q(r.table)} SET ${q(field)} = (SELECT NULLIF(i.remote_id, '') FROM sync_ids i WHERE i.resource = ? AND i.local_id = ${q(r.table)}.${q(field)})
         WHERE ${q(field)} IN (SELECT local_id FROM sync_ids WHERE resource = ? AND parent_id = ? AND remote_id IS NOT NULL)`,
      ).run(resource, resource, parent);
    }
  }
  db.prepare('DELETE FROM sync_ids WHERE resource = ? AND parent_id = ? AND remote_id IS NOT NULL').run(resource, parent);
}
