// Reads off the server's thread: a small pool of reader threads (reader.ts), started when the
// first read needs one and grown to `size` while reads wait, so a long count or full-text match
// never holds up other clients' requests, writes or the tiny routes. Waiting reads queue in
// two lanes, the console's (requests a browser makes) and every other client's, served in
// turn: a script hammering the API cannot starve the console. Identical reads in flight on the
// same data share one run. A waiting read whose every requester has gone (the request closed:
// the console abandoned the view) is dropped before it runs. Readers above the first are
// stopped after a while without work, but not while a console is in use: its first read starts
// every reader, each with its connection open, so that the reads a view sends together (the page,
// the read-ahead, the aggregates) never wait for a thread or a connection to start. While a
// console is in use, a reader with nothing to do for a while reads ahead what the first large
// text search's aggregates would otherwise read (every incident's cell: query/match-days.ts), one
// reader at a time, so that the analyst's first frequent word does not pay for it. Before that,
// the database file itself is read through, a slice at a time, into the system's file cache (as
// PostgreSQL's pg_prewarm does): on a disk the system has not read lately (after a restart, or
// on a machine that gives cached pages back) a view's first rows, counts and groupings otherwise
// wait for thousands of scattered disk reads.
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../../workers/entry';
import { cellsAnswer } from '../query/match-days';
import type { Store } from '../store';
import { executeRead, fromFailure, type ReadTask } from './execute';
import type { ReaderAnswer, ReaderRequest } from './reader';

export type Lane = 'console' | 'api';

export interface ReaderPoolOptions {
  /** Most reader threads (0: every read runs on the caller's thread). */
  size: number;
  /** SQLite page cache of each reader's connection, KiB. */
  cacheKiB?: number;
  /** A reader beyond the first stops after this long without work (ms). */
  idleMs?: number;
  /** Readers stay while the console's lane had a read within this long (ms). */
  consoleKeepMs?: number;
  /** The rest of the readers start this long after a console's first read (ms; 0: with it). */
  consoleSpreadMs?: number;
  /**
   * While a console is in use, a reader with nothing to do for this long reads ahead what the
   * first large text search's aggregates would otherwise read (query/match-days.ts; ms; null: never).
   */
  prepareIdleMs?: number | null;
  /** Fewer incidents than this are not read ahead (their cells are read in tens of ms when first needed). */
  prepareMinRows?: number;
  /**
   * While a console is in use, its database file is read through into the system's file cache
   * first, and again this long after (ms; null: never).
   */
  warmEveryMs?: number | null;
  /** Bytes of the file read at a time (a read that comes meanwhile waits for at most one slice). */
  warmSliceBytes?: number;
  /** A file larger than this is not read through (bytes; a quarter of the machine's memory). */
  warmMaxBytes?: number;
}

interface Job {
  db: string;
  task: ReadTask;
  lane: Lane;
  /** Reads of the same matches go to the same reader when it is free (its kept totals and noted rows). */
  affinity: number;
  /** The database and full-text matches the read enumerates ('' for none). */
  matchKey: string;
  /** Requesters still waiting for the answer (a requester without a signal never leaves). */
  waiting: number;
  answer: Promise<Buffer>;
  resolve: (body: Buffer) => void;
  reject: (e: Error) => void;
}

/** The error of a read whose requester left before it was answered. */
export class ReadAbandoned extends Error {
  readonly code = 'READ_ABANDONED';
  constructor() {
    super('the request closed before its read was answered');
  }
}

interface Reader {
  worker: Worker;
  job: Job | null;
  idle: NodeJS.Timeout | null;
  /** Reading ahead (prepare, or a slice of the file: warm): busy as with a job; the database and the server's data version it is for. */
  preparing: { db: string; version: string | null } | null;
  /** The reading ahead due once the reader has had nothing to do for a while. */
  prep: NodeJS.Timeout | null;
  /** What it last read ahead: the database and the server's data version then, and the text aggregates asked by then. */
  prepared: { db: string; version: string | null; tallies: number } | null;
}

const busy = (r: Reader): boolean => r.job !== null || r.preparing !== null;

/** Each reader's young generation, MiB (see spawn). */
const READER_YOUNG_MB = 4;

/** How long readers stay started after the console's last read. */
const CONSOLE_KEEP_MS = 10 * 60_000;

/**
 * How long after a console's first read the rest of the readers start: not while the console is
 * opening (its code, its first render and the server's own start share the cores), but before its
 * analyst does anything. A read that finds every started reader busy meanwhile starts one at once.
 */
const CONSOLE_SPREAD_MS = 1500;

/**
 * How long a reader has nothing to do before it reads ahead (prepareIdleMs): after the console's
 * opening, before its analyst's first search, and never while reads wait.
 */
const PREPARE_IDLE_MS = 2000;

/**
 * How often the console's database file is read through again while a console is in use: the
 * system keeps what was read lately, and this is what the console reads.
 */
const WARM_EVERY_MS = 10 * 60_000;

/**
 * A slice of the file read at a time: some 12 ms from a disk, 2 from the file cache (a read that
 * comes meanwhile waits at most that long, and a view's own disk reads queue behind little).
 */
const WARM_SLICE_BYTES = 8 * 1024 * 1024;

/** Where a database file's reading through stands: the next slice, the file's size, when it was last read through (performance.now()). */
interface Warmth {
  next: number;
  size: number;
  done: number | null;
}

/** Where the reader thread's code is: beside the bundle when built, the source under tsx. */
const readerEntry = () => workerEntry(__filename, 'reader.ts', 'reader');

export class ReaderPool {
  private readonly readers: Reader[] = [];
  private readonly lanes: Record<Lane, Job[]> = { console: [], api: [] };
  private turn: Lane = 'console';
  private readonly inflight = new Map<string, Job>();
  private seq = 0;
  private closed = false;
  private droppedReads = 0;
  /** When the console's lane last had a read (performance.now()); -Infinity: never. */
  private consoleAt = Number.NEGATIVE_INFINITY;
  /** When the console in use had its first read (after none for consoleKeepMs). */
  private consoleSince = Number.NEGATIVE_INFINITY;
  /** The rest of the readers, started once a console is in use (consoleSeen). */
  private spread: NodeJS.Timeout | null = null;
  /** The database the console reads, and the last data version each database was read at. */
  private consoleDb: string | null = null;
  private readonly versions = new Map<string, string>();
  /** The console's reads of a text search's aggregates from the match's row ids so far. */
  private tallies = 0;
  private preparations = 0;
  private readonly warmth = new Map<string, Warmth>();
  /** The file's next slice not before (performance.now()): a pause as long as the last slice took. */
  private warmResumeAt = 0;
  private warmedBytes = 0;

  constructor(private readonly o: ReaderPoolOptions) {}

  get size(): number {
    return this.o.size;
  }

  /** Reader threads running now. */
  get running(): number {
    return this.readers.length;
  }

  /** Reads dropped before they ran because every requester had gone. */
  get dropped(): number {
    return this.droppedReads;
  }

  /** Readings ahead done (prepare): each one a reader read every incident's cell. */
  get prepared(): number {
    return this.preparations;
  }

  /** Bytes of database files read through into the system's file cache (warm). */
  get warmed(): number {
    return this.warmedBytes;
  }

  /** Reads waiting for a reader. */
  get queued(): number {
    return this.lanes.console.length + this.lanes.api.length;
  }

  /**
   * The answer of a read on the database file `db`. `version` is the data version the caller
   * sees (null: unknown), so that only reads of the same data share a run. `signal`: the
   * requester has gone when it aborts; the read then rejects with ReadAbandoned, and is dropped
   * if it has not started and nobody else waits for it.
   */
  read(db: string, task: ReadTask, version: string | null, lane: Lane, signal?: AbortSignal): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the server is closing'));
    if (signal?.aborted) return Promise.reject(new ReadAbandoned());
    if (version !== null) this.versions.set(db, version);
    if (lane === 'console' && tallied(task)) this.tallies++;
    if (lane === 'console') this.consoleSeen(db);
    const key = version === null ? null : JSON.stringify([db, version, task]);
    let job = key === null ? undefined : this.inflight.get(key);
    if (!job) {
      let resolve!: (body: Buffer) => void;
      let reject!: (e: Error) => void;
      const answer = new Promise<Buffer>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const created: Job = { db, task, lane, affinity: affinityOf(db, task), matchKey: task.plan.fts.length ? `${db}|${JSON.stringify(task.plan.fts)}` : '', waiting: 0, answer, resolve, reject };
      job = created;
      if (key !== null) {
        this.inflight.set(key, created);
        const done = () => {
          if (this.inflight.get(key) === created) this.inflight.delete(key);
        };
        answer.then(done, done);
      }
      this.lanes[lane].push(created);
      this.pump();
    }
    job.waiting++;
    if (!signal) return job.answer;
    const waited = job;
    return new Promise<Buffer>((resolve, reject) => {
      const leave = () => {
        reject(new ReadAbandoned());
        this.leave(waited);
      };
      signal.addEventListener('abort', leave, { once: true });
      waited.answer.then(
        (body) => {
          signal.removeEventListener('abort', leave);
          resolve(body);
        },
        (e: Error) => {
          signal.removeEventListener('abort', leave);
          reject(e);
        },
      );
    });
  }

  /** A requester of `job` has gone: the job is dropped if nobody waits for it and it has not started. */
  private leave(job: Job): void {
    job.waiting--;
    if (job.waiting > 0) return;
    const lane = this.lanes[job.lane];
    const i = lane.indexOf(job);
    if (i < 0) return;
    lane.splice(i, 1);
    this.droppedReads++;
    job.reject(new ReadAbandoned());
  }

  /** Starts one reader now, so the first read does not wait for its start-up; with `db`, its
   * connection to that database is opened too (the first read finds it open). */
  warm(db?: string): void {
    if (this.closed || this.o.size === 0 || this.readers.length > 0) return;
    const r = this.spawn();
    if (db) r.worker.postMessage({ open: db });
  }

  /**
   * A console is in use: every reader is started, each with its connection to `db` open, the
   * first at once (the read needs one) and the others consoleSpreadMs later.
   */
  private consoleSeen(db: string): void {
    const now = performance.now();
    if (now - this.consoleAt >= this.keepMs) this.consoleSince = now;
    this.consoleAt = now;
    this.consoleDb = db;
    // Readers with nothing to do may have something to read ahead at the data the console now reads.
    for (const r of this.readers) if (!busy(r) && !r.prep) this.prepareLater(r);
    if (this.spread || this.readers.length >= this.o.size) return;
    const startRest = () => {
      this.spread = null;
      if (this.closed) return;
      while (this.readers.length < this.o.size) {
        const r = this.spawn();
        r.worker.postMessage({ open: db });
        this.rest(r);
      }
    };
    const delay = this.o.consoleSpreadMs ?? CONSOLE_SPREAD_MS;
    if (delay <= 0) return startRest();
    this.spread = setTimeout(startRest, delay);
    this.spread.unref();
  }

  /**
   * Where a job can run now: its reader of choice when free; a read of a full-text match waits
   * for that reader while it reads the same match (it will then keep the match and what was
   * worked out from it: a second reader would enumerate the match again, on the same cores); any
   * other read takes any free reader, or a new one. null: it waits.
   */
  private readerFor(job: Job): Reader | 'new' | null {
    const at = job.affinity % this.o.size;
    const preferred = this.readers[at];
    if (preferred && !busy(preferred)) return preferred;
    const bound = job.matchKey !== '';
    if (bound && preferred && preferred.job?.matchKey === job.matchKey) return null;
    // A read of a match before its reader has started: that reader is started for it.
    if (bound && at === this.readers.length) return 'new';
    const idle = this.readers.find((x) => !busy(x));
    if (idle) return idle;
    return this.readers.length < this.o.size ? 'new' : null;
  }

  /** The next job that can run now, its lane's turn first, and where. */
  private next(): { job: Job; reader: Reader | 'new' } | undefined {
    const other: Lane = this.turn === 'console' ? 'api' : 'console';
    for (const lane of [this.turn, other]) {
      const jobs = this.lanes[lane];
      for (let i = 0; i < jobs.length; i++) {
        const reader = this.readerFor(jobs[i]!);
        if (reader === null) continue;
        const [job] = jobs.splice(i, 1);
        this.turn = lane === 'console' ? 'api' : 'console';
        return { job: job!, reader };
      }
    }
    return undefined;
  }

  private pump(): void {
    for (;;) {
      const next = this.next();
      if (!next) return;
      this.start(next.reader === 'new' ? this.spawn() : next.reader, next.job);
    }
  }

  private spawn(): Reader {
    const entry = readerEntry();
    // A reader's garbage is short-lived (rows becoming one answer): a small young generation keeps
    // its memory low (1,000,000 incidents, 2,000 public list requests: the server's RSS after them
    // 137-142 MiB with 4 MiB against 143-147 MiB with 8, at the same CPU time per request).
    const worker = new Worker(entry.file, { eval: entry.eval, workerData: { cacheKiB: this.o.cacheKiB, prepareMinRows: this.o.prepareMinRows }, resourceLimits: { maxYoungGenerationSizeMb: READER_YOUNG_MB } });
    worker.unref();
    const r: Reader = { worker, job: null, idle: null, preparing: null, prep: null, prepared: null };
    worker.on('message', (a: ReaderAnswer) => {
      if ('warmed' in a) {
        r.preparing = null;
        this.sliceWarmed(a.warmed, a.at, a.read);
        this.warmResumeAt = performance.now() + a.ms;
        this.rest(r);
        this.pump();
        this.readAheadAfter(r);
        return;
      }
      if ('prepared' in a) {
        // The server's data version the reading ahead was asked at (the reader's own token is its connection's).
        r.prepared = r.preparing && { ...r.preparing, tallies: this.tallies };
        r.preparing = null;
        if (a.read) this.preparations++;
        this.rest(r);
        this.pump();
        this.readAheadAfter(r);
        return;
      }
      const job = r.job;
      r.job = null;
      if (job) {
        if ('body' in a) job.resolve(Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength));
        else job.reject(fromFailure(a.failure));
      }
      this.rest(r);
      this.pump();
    });
    const gone = (e: Error) => {
      const i = this.readers.indexOf(r);
      if (i >= 0) this.readers.splice(i, 1);
      if (r.idle) clearTimeout(r.idle);
      if (r.prep) clearTimeout(r.prep);
      r.job?.reject(e);
      r.job = null;
      if (!this.closed) this.pump();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`a reader thread stopped (exit code ${code})`)));
    this.readers.push(r);
    return r;
  }

  private start(r: Reader, job: Job): void {
    if (r.idle) clearTimeout(r.idle);
    r.idle = null;
    if (r.prep) clearTimeout(r.prep);
    r.prep = null;
    r.job = job;
    const req: ReaderRequest = { id: ++this.seq, db: job.db, task: job.task };
    r.worker.postMessage(req);
  }

  /** A reader without work: the first stays, the others stop after idleMs unless a console is in use. */
  private rest(r: Reader): void {
    this.prepareLater(r);
    if (this.readers[0] === r) return;
    if (r.idle) clearTimeout(r.idle);
    const idleMs = this.o.idleMs ?? 30_000;
    r.idle = setTimeout(() => {
      r.idle = null;
      if (busy(r)) return; // rested again once its job or its reading ahead is done
      const sinceConsole = performance.now() - this.consoleAt;
      if (sinceConsole < this.keepMs) this.rest(r);
      else void r.worker.terminate();
    }, idleMs);
    r.idle.unref();
  }

  /**
   * While a console is in use, a free reader reads ahead. First the console's database file into
   * the system's file cache (reader.ts, warm): from consoleSpreadMs after the console's first read
   * (not while it opens), a slice at a time while no reader reads, each after a pause as long as
   * the last took, so that a read shares the disk with one slice at most (again warmEveryMs
   * later). Then, once a reader has had nothing to do for prepareIdleMs, what the first large
   * text search's aggregates would otherwise read (reader.ts, prepare; a second or so of one core, that cannot be paused): once
   * per reader at the console's data, and again at a new data version if the console has asked
   * such aggregates since. One reader at a time, never while reads wait: the other serves meanwhile.
   */
  private prepareLater(r: Reader): void {
    if (r.prep) clearTimeout(r.prep);
    r.prep = null;
    const idle = this.o.prepareIdleMs === undefined ? PREPARE_IDLE_MS : this.o.prepareIdleMs;
    if (idle === null || this.closed || busy(r)) return;
    const warming = this.wantsWarming();
    if (!warming && !this.wantsPreparing(r)) return;
    const now = performance.now();
    const after = warming ? Math.max(0, this.consoleSince + (this.o.consoleSpreadMs ?? CONSOLE_SPREAD_MS) - now, this.warmResumeAt - now) : idle;
    r.prep = setTimeout(() => {
      r.prep = null;
      if (this.closed || busy(r) || !this.readers.includes(r)) return;
      const warm = this.wantsWarming();
      if (!warm && !this.wantsPreparing(r)) return;
      // Another reader reading ahead: this one tries again once it is done (readAheadAfter).
      if (this.readers.some((x) => x.preparing)) return;
      // Reads wait: the cells once idle again. Reads wait or run: the file's next slice after them (rest).
      if (this.queued > 0 && !warm) return this.prepareLater(r);
      if (warm && (this.queued > 0 || this.readers.some((x) => x.job !== null))) return;
      const db = this.consoleDb!;
      if (warm) {
        const w = this.warmth.get(db)!;
        r.preparing = { db, version: null };
        r.worker.postMessage({ warm: db, at: w.next, bytes: Math.min(this.o.warmSliceBytes ?? WARM_SLICE_BYTES, w.size - w.next) });
        return;
      }
      r.preparing = { db, version: this.versions.get(db) ?? null };
      r.worker.postMessage({ prepare: db });
    }, after);
    r.prep.unref();
  }

  /** How long readers stay started after the console's last read (ms). */
  private get keepMs(): number {
    return this.o.consoleKeepMs ?? CONSOLE_KEEP_MS;
  }

  /** Whether the console's lane had a read within keepMs. */
  private consoleInUse(): boolean {
    return performance.now() - this.consoleAt < this.keepMs;
  }

  /** The other free readers, which did not read ahead while `r` did, may now. */
  private readAheadAfter(r: Reader): void {
    for (const x of this.readers) if (x !== r && !busy(x) && !x.prep) this.prepareLater(x);
  }

  /**
   * Whether the console's database file is to be read through now: not yet, part-way, or last
   * read through warmEveryMs ago; never above warmMaxBytes.
   */
  private wantsWarming(): boolean {
    const db = this.consoleDb;
    const every = this.o.warmEveryMs === undefined ? WARM_EVERY_MS : this.o.warmEveryMs;
    if (db === null || every === null || !this.consoleInUse()) return false;
    let w = this.warmth.get(db);
    if (w && w.next < w.size) return true;
    if (w && w.done !== null && performance.now() - w.done < every) return false;
    let size = 0;
    try {
      size = fs.statSync(db).size;
    } catch {
      // no such file (yet): nothing to read through
    }
    const fits = size > 0 && size <= (this.o.warmMaxBytes ?? Math.floor(os.totalmem() / 4));
    w = fits ? { next: 0, size, done: null } : { next: 0, size: 0, done: performance.now() };
    this.warmth.set(db, w);
    return fits;
  }

  private sliceWarmed(db: string, at: number, read: number): void {
    this.warmedBytes += read;
    const w = this.warmth.get(db);
    if (!w || w.next !== at) return;
    w.next = read > 0 ? at + read : w.size;
    if (w.next >= w.size) w.done = performance.now();
  }

  private wantsPreparing(r: Reader): boolean {
    const db = this.consoleDb;
    if (db === null || !this.consoleInUse()) return false;
    const p = r.prepared;
    if (!p || p.db !== db) return true;
    return p.version !== (this.versions.get(db) ?? null) && p.tallies < this.tallies;
  }

  /** Closes every reader's connection to `db` (a local instance closed or removed). */
  forget(db: string): void {
    for (const r of this.readers) r.worker.postMessage({ forget: db });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.spread) clearTimeout(this.spread);
    for (const r of this.readers) if (r.prep) clearTimeout(r.prep);
    const e = new Error('the server is closing');
    for (const lane of [this.lanes.console, this.lanes.api]) for (const job of lane.splice(0)) job.reject(e);
    await Promise.all(this.readers.map((r) => r.worker.terminate()));
    this.readers.length = 0;
  }
}

/**
 * A small hash of the database and the matched set (resource, condition, full-text matches); of
 * the full-text matches alone when there are some, so that every read of a match (a view's page,
 * total and groupings) goes to the reader that keeps it materialised, and its aggregates to the
 * one after it (which keeps them).
 */
function affinityOf(db: string, task: ReadTask): number {
  const p = task.plan;
  const text = p.fts.length ? `${db}|${JSON.stringify(p.fts)}` : `${db}|${p.resource}|${p.cte}|${p.where.sql}|${JSON.stringify(p.where.params)}`;
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  // The aggregates of a text search within statuses and bands are worked out from the match's row
  // ids read from the full-text index, not from the kept match (query/match-days.ts): they go to
  // the next reader, so that a view's page and its aggregates, asked together, run side by side,
  // each on the reader keeping its own. Any other aggregates of a match read the kept match.
  const beside = tallied(task);
  return (h >>> 0) + (beside ? 1 : 0);
}

/** Whether a read is a text search's aggregates worked out from the match's row ids (query/match-days.ts). */
function tallied(task: ReadTask): boolean {
  const p = task.plan;
  return task.kind === 'stats' && p.fts.length === 1 && p.textTally !== undefined && cellsAnswer(p.textTally);
}

/** How a server's routes read one database: through the pool, or on this thread. */
export interface Reads {
  /** `signal`: aborts when the request closes (a read still waiting is then dropped). */
  read(task: ReadTask, lane: Lane, signal?: AbortSignal): Promise<Buffer | string>;
}

/** Reads of `store`'s database: in-memory databases and a pool of size 0 run here. */
export function readsFor(store: Store, pool: ReaderPool | null): Reads {
  const file = store.db.name;
  const here = !pool || pool.size === 0 || store.db.memory || !file || file === ':memory:';
  if (here) return { read: async (task) => executeRead(store, task) };
  return { read: (task, lane, signal) => pool.read(file, task, store.version(), lane, signal) };
}
