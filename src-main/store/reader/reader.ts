// A reader thread: read-only connections (one per database file, opened on first use) that
// run read tasks off the server's thread, each in one read transaction (a consistent snapshot:
// page, total and relations agree), and send back the answer's UTF-8 bytes (transferred, not
// copied). WAL lets any number of these read while the server's connection writes.
import fs from 'node:fs';
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

export type ReaderAnswer = { id: number; body: Uint8Array } | { id: number; failure: ReturnType<typeof toFailure> } | Prepared | Warmed;

/** A slice of a database file read into the system's file cache (`warm`). */
export interface WarmRequest {
  warm: string;
  /** Where the slice starts in the file, and its most bytes. */
  at: number;
  bytes: number;
}

/** A slice read (`warm`): the bytes read (fewer than asked at the file's end; 0 when it could not be read). */
export interface Warmed {
  warmed: string;
  at: number;
  read: number;
  /** How long reading it took (ms). */
  ms: number;
}

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

/** Reused by every slice: the bytes read go nowhere, reading them is the point. */
let warmBuffer: Buffer | null = null;
const WARM_CHUNK = 1024 * 1024;

/**
 * A slice of the database file read through (pool.ts, the file's warming): its pages are then in
 * the system's file cache, so that the reads after it find them there instead of on the disk.
 */
function warm(req: WarmRequest): Warmed {
  const started = performance.now();
  let fd: number | null = null;
  let read = 0;
  try {
    fd = fs.openSync(req.warm, 'r');
    warmBuffer ??= Buffer.allocUnsafe(WARM_CHUNK);
    while (read < req.bytes) {
      const n = fs.readSync(fd, warmBuffer, 0, Math.min(WARM_CHUNK, req.bytes - read), req.at + read);
      if (n === 0) break;
      read += n;
    }
  } catch {
    // a file that cannot be read is not warmed; its reads report why
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  return { warmed: req.warm, at: req.at, read, ms: performance.now() - started };
}

parentPort!.on('message', (req: ReaderRequest | { forget: string } | { open: string } | { prepare: string } | WarmRequest) => {
  if ('prepare' in req) return void parentPort!.postMessage(prepare(req.prepare));
  if ('warm' in req) return void parentPort!.postMessage(warm(req));
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
