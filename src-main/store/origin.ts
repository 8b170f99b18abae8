// The origin of a snapshot as its database keeps it: where it was copied from (sync_origin;
// the key is never here: key_store names the key vault file, key_id its entry), the origin's
// version of each record the copy holds (sync_remote) and the pull cursors (sync_cursors).
// Written by the snapshot and the sync engine on their own connections.
import { normalizeTs } from '../../src-shared/time';
import type { Db } from './db';

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
