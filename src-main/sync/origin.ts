// Reaching the origin of a snapshot: its key from the key store the snapshot names, a client
// for it, and the lock that keeps one push or pull at a time.
import { KeyVault, type KeyCipher } from '../instances/vault';
import { RemoteClient } from '../instances/remote';
import { inTransaction, type Db } from '../store/connection';
import { clearOriginLock, readOrigin, setOriginLock, type OriginRow } from '../store/origin';
import { SyncError } from './errors';

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
  inTransaction(
    db,
    () => {
      const o = readOrigin(db)!;
      if (o.lock_pid !== null && alive(o.lock_pid)) {
        const who = o.lock_pid === process.pid ? 'this server' : `process ${o.lock_pid}`;
        throw new SyncError(`a ${o.lock_kind ?? 'sync'} of this snapshot is already running (${who}, since ${o.lock_at}); wait for it to finish`, 3);
      }
      setOriginLock(db, kind, process.pid);
    },
    'immediate',
  );
  return () => clearOriginLock(db, process.pid);
}
