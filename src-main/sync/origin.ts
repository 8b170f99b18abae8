// The origin of a snapshot (the platform it was copied from), the origin's version of each
// record the copy holds, and the pull cursors, as kept in the snapshot database itself. The
// origin's key is never here: key_store is the key vault file and key_id its entry.
import { normalizeTs } from '../../src-shared/time';
import { KeyVault, type KeyCipher } from '../instances/vault';
import { RemoteClient } from '../instances/remote';
import type { Db } from '../store/db';
import { SyncError } from './errors';

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

export function requireOrigin(db: Db, file: string): OriginRow {
  const o = readOrigin(db);
  if (!o) throw new SyncError(`${file} is not a snapshot of a platform (it has no origin): nothing to sync`, 2);
  return o;
}

/** The origin's key, from the key store it names. */
export function originKey(o: OriginRow, cipher?: KeyCipher): string {
  let key: string | undefined;
  try {
    key = new KeyVault(o.key_store, cipher).get(o.key_id);
  } catch (e) {
    throw new SyncError(`cannot read the key of ${o.url} from ${o.key_store}: ${(e as Error).message}`);
  }
  if (!key) throw new SyncError(`the key store ${o.key_store} has no key for ${o.url} (entry ${o.key_id}); add it again with the instance or snapshot commands`);
  return key;
}

export function hasOriginKey(o: OriginRow, cipher?: KeyCipher): boolean {
  try {
    return new KeyVault(o.key_store, cipher).has(o.key_id);
  } catch {
    return false;
  }
}

/** A client for the origin: TLS verified, the snapshot's CA and pin, bounded in time and size. */
export function originClient(o: OriginRow, cipher?: KeyCipher, timeoutMs?: number): RemoteClient {
  return new RemoteClient({
    url: o.url,
    apiKey: originKey(o, cipher),
    remoteInstanceId: o.remote_instance_id,
    caFile: o.ca_file,
    pinnedSha256: o.pinned_sha256,
    timeoutMs: timeoutMs ?? Math.max(o.timeout_ms ?? 0, 30_000),
    maxBytes: 512 * 1024 * 1024,
  });
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

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
};

/**
 * One push or pull at a time per snapshot, across processes (the console's server and the
 * command line): the lock names the process holding it; a lock left by a process that no
 * longer runs (killed) is taken over.
 */
export function acquireLock(db: Db, kind: 'push' | 'pull'): () => void {
  db.transaction(() => {
    const o = readOrigin(db)!;
    if (o.lock_pid !== null && alive(o.lock_pid)) {
      const who = o.lock_pid === process.pid ? 'this server' : `process ${o.lock_pid}`;
      throw new SyncError(`a ${o.lock_kind ?? 'sync'} of this snapshot is already running (${who}, since ${o.lock_at}); wait for it to finish`, 3);
    }
    db.prepare('UPDATE sync_origin SET lock_pid = ?, lock_kind = ?, lock_at = ? WHERE id = 1').run(process.pid, kind, new Date().toISOString());
  }).immediate();
  return () => {
    if (db.open) db.prepare('UPDATE sync_origin SET lock_pid = NULL, lock_kind = NULL, lock_at = NULL WHERE id = 1 AND lock_pid = ?').run(process.pid);
  };
}
