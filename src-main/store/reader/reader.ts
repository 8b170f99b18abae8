// A reader thread: read-only connections (one per database file, opened on first use) that
// run read tasks off the server's thread, each in one read transaction (a consistent snapshot:
// page, total and relations agree), and send back the answer's UTF-8 bytes (transferred, not
// copied). WAL lets any number of these read while the server's connection writes.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db';
import { prepareMatchDays } from '../query/match-days';
import { Store } from '../store';
import { executeRead, toFailure, type ReadTask } from './execute';

export interface ReaderRequest {
  id: number;
  db: string;
  task: ReadTask;
}

export type ReaderAnswer = { id: number; body: Uint8Array } | { id: number; failure: ReturnType<typeof toFailure> } | Prepared;

/** A preparation done (`prepare`): the database and the data version it was made at (null: it could not be). */
export interface Prepared {
  prepared: string;
  version: string | null;
  /** Whether anything was read (false: kept already, or not needed on so few incidents). */
  read: boolean;
}

const stores = new Map<string, Store>();
const encoder = new TextEncoder();
const cacheKiB = (workerData as { cacheKiB?: number } | undefined)?.cacheKiB;
const prepareMinRows = (workerData as { prepareMinRows?: number } | undefined)?.prepareMinRows;

function storeFor(file: string): Store {
  let store = stores.get(file);
  if (!store) {
    const { db } = openDatabase(file, { readonly: true, create: false, cacheKiB });
    stores.set(file, (store = new Store(db)));
  }
  return store;
}

/** `fn` in one read transaction of `store` (a consistent snapshot). */
function inSnapshot<T>(store: Store, fn: () => T): T {
  store.db.exec('BEGIN');
  try {
    return fn();
  } finally {
    store.db.exec('COMMIT');
  }
}

function answer(req: ReaderRequest): ReaderAnswer {
  try {
    const store = storeFor(req.db);
    const version = store.version();
    return { id: req.id, body: inSnapshot(store, () => encoder.encode(executeRead(store, req.task, version))) };
  } catch (e) {
    return { id: req.id, failure: toFailure(e) };
  }
}

/** What a reader keeps ahead of the reads while it has nothing to do (pool.ts): every incident's cell (query/match-days.ts). */
function prepare(file: string): Prepared {
  try {
    const store = storeFor(file);
    const version = store.version();
    if (version === null) return { prepared: file, version, read: false };
    return { prepared: file, version, read: inSnapshot(store, () => prepareMatchDays(store, version, prepareMinRows)) };
  } catch {
    // the reads that need the database report why it cannot be read
    return { prepared: file, version: null, read: false };
  }
}


parentPort!.on('message', (req: ReaderRequest | { forget: string } | { open: string } | { prepare: string }) => {
  if ('prepare' in req) return void parentPort!.postMessage(prepare(req.prepare));
  if ('open' in req) {
    // Opened ahead of the reads (a console is in use); a failure is the first read's to report.
    try {
      storeFor(req.open);
    } catch {
      // the read that needs the database answers why it cannot be opened
    }
    return;
  }
  if ('forget' in req) {
    stores.get(req.forget)?.db.close();
    stores.delete(req.forget);
    return;
  }
  const a = answer(req);
  if ('body' in a) parentPort!.postMessage(a, [a.body.buffer as ArrayBuffer]);
  else parentPort!.postMessage(a);
});
