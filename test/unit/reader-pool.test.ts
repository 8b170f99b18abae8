// Reads off the server's thread: reader threads answer exactly what the same read answers
// here, a long read holds up neither this thread nor the other lane, identical reads in flight
// run once, failures come back as errors, and a read after a write sees the write.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch, type SearchFilter } from '../../src-shared/schemas/search';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileSearchPlan, type Plan } from '../../src-main/store/query/plan';
import { executeRead, type ReadTask } from '../../src-main/store/reader/execute';
import { ReadAbandoned, ReaderPool } from '../../src-main/store/reader/pool';
import { Store } from '../../src-main/store/store';
import { copyDemoDatabase } from '../helpers/seed';
import { compileGroup, Runner } from '../../src-main/store/query/runner';

const I = getResource('service_asset_findings');
let dir: string;
let file: string;
let db: Db;
let store: Store;
let pool: ReaderPool;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-readers-'));
  file = path.join(dir, 'db.sqlite');
  db = openDatabase(copyDemoDatabase(file)).db;
  store = new Store(db);
  pool = new ReaderPool({ size: 2, cacheKiB: 2048, idleMs: 60_000 });
});

afterAll(async () => {
  await pool.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const page = (over: Partial<ReturnType<typeof emptySearch>> = {}): Extract<ReadTask, { kind: 'page' }> => ({ kind: 'page', plan: compileSearchPlan(I, { ...emptySearch(20, 0), ...over }), shape: 'items' });

/** A plan whose condition keeps SQLite busy for a while (a counting recursive CTE per row). */
function slow(rows: number): ReadTask {
  const base = compileSearchPlan(I, emptySearch(1, 0));
  const plan: Plan = { ...base, where: { sql: `(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows}) SELECT COUNT(*) FROM c) > 0 AND t._rid = 1`, params: [] } };
  return { kind: 'page', plan, shape: 'items' };
}

describe('reader pool', () => {
  it('answers the same bytes as the read run on this thread', async () => {
    for (const task of [
      page(),
      page({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'risklevel', direction: 'desc' }], relations: ['service_asset'], _relations: ['occurrences'] }),
      page({ virtual_search: { value: 'сервер', strict: false }, offset: 3 }),
    ]) {
      const viaPool = await pool.read(file, task, store.version(), 'api');
      expect(viaPool.toString('utf8')).toBe(executeRead(store, task));
    }
    expect(pool.running).toBeGreaterThanOrEqual(1);
  });

  it('keeps this thread free and serves the other lane while a long read runs', async () => {
    const events: string[] = [];
    // Long enough to outlast a second reader's start on a loaded machine (the quick read may need one).
    const long = pool.read(file, slow(8_000_000), null, 'api').then(() => events.push('long read answered'));
    // This thread is not blocked: a timer fires, and a quick read answers, before the long read.
    await new Promise<void>((resolve) => setTimeout(() => resolve(void events.push('timer fired')), 10));
    const quick = await pool.read(file, page({ limit: 1 }), null, 'console');
    events.push('quick read answered');
    await long;
    expect(events).toEqual(['timer fired', 'quick read answered', 'long read answered']);
    expect(JSON.parse(quick.toString()).items).toHaveLength(1);
  });

  it('takes the two lanes in turn when every reader is busy', async () => {
    const one = new ReaderPool({ size: 1 });
    try {
      const order: string[] = [];
      const note = (name: string) => (b: Buffer) => {
        order.push(name);
        return b;
      };
      const first = one.read(file, slow(300_000), null, 'api').then(note('api-0'));
      const api = [1, 2, 3].map((i) => one.read(file, slow(200_000 + i), null, 'api').then(note(`api-${i}`)));
      const consoleRead = one.read(file, page({ limit: 2 }), null, 'console').then(note('console'));
      await Promise.all([first, ...api, consoleRead]);
      expect(order.indexOf('console')).toBeLessThanOrEqual(1);
    } finally {
      await one.close();
    }
  });

  it('runs identical reads in flight on the same data once', async () => {
    const v = store.version();
    const a = pool.read(file, page({ offset: 5 }), v, 'api');
    const b = pool.read(file, page({ offset: 5 }), v, 'console');
    expect(b).toBe(a);
    const c = pool.read(file, page({ offset: 6 }), v, 'api');
    expect(c).not.toBe(a);
    await Promise.all([a, c]);
    // Not shared once answered, nor across data versions.
    expect(pool.read(file, page({ offset: 5 }), v, 'api')).not.toBe(a);
  });

  it('runs the reads of one full-text match on one reader, waiting for it while another is free, and its aggregates beside them', async () => {
    const p = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 0 });
    try {
      const text = { virtual_search: { value: 'сервер', strict: false } };
      const base = page(text).plan;
      expect(base.fts).toHaveLength(1);
      const order: string[] = [];
      const note = (name: string) => (b: Buffer) => {
        order.push(name);
        return b;
      };
      // A long read of the match (its condition kept busy by a counting CTE), then more reads of it and others.
      const longPlan: Plan = { ...base, where: { sql: `${base.where.sql} AND (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT COUNT(*) FROM c) > 0`, params: base.where.params } };
      const long = p.read(file, { kind: 'page', plan: longPlan, shape: 'items' }, null, 'console').then(note('long read of the match'));
      await new Promise((r) => setTimeout(r, 50));
      const sameMatch = p.read(file, page({ ...text, limit: 3 }), null, 'console').then(note('page of the match'));
      const stats = p.read(file, { kind: 'stats', plan: base, bucket: 'day' }, null, 'console').then(note('aggregates of the match'));
      const other = p.read(file, page({ limit: 3 }), null, 'console').then(note('page without a match'));
      await Promise.all([long, sameMatch, stats, other]);
      expect(order.indexOf('page of the match')).toBeGreaterThan(order.indexOf('long read of the match'));
      expect(order.indexOf('aggregates of the match')).toBeLessThan(order.indexOf('long read of the match'));
      expect(order.indexOf('page without a match')).toBeLessThan(order.indexOf('long read of the match'));
      const viaPool = JSON.parse((await stats).toString());
      expect(viaPool).toEqual(JSON.parse(executeRead(store, { kind: 'stats', plan: base, bucket: 'day' })));
    } finally {
      await p.close();
    }
  });

  it('answers a failure in a reader as an error of the read, and goes on reading', async () => {
    const bad: ReadTask = { ...page(), plan: { ...page().plan, resource: 'public:nothing' } };
    await expect(pool.read(file, bad, null, 'api')).rejects.toThrow(/unknown resource/);
    const missing = path.join(dir, 'missing.sqlite');
    await expect(pool.read(missing, page(), null, 'api')).rejects.toThrow(/does not exist/);
    const stats: ReadTask = { kind: 'stats', plan: page().plan, bucket: 'day' };
    const ok = await pool.read(file, stats, null, 'api');
    expect(JSON.parse(ok.toString())).toHaveProperty('total');
    const badGroup: ReadTask = { kind: 'group', plan: compileGroup(I, 'status').plan, field: 'no_such_field' };
    await expect(pool.read(file, badGroup, null, 'api')).rejects.toMatchObject({ status: 400 });
  });

  it('groups on a reader as the store groups in this thread', async () => {
    for (const field of ['status', 'title']) {
      const filters: SearchFilter[] = [{ field: 'risklevel', filter_type: 'range', value: [4, null] }];
      const task: ReadTask = { kind: 'group', ...compileGroup(I, field, filters) };
      const there = JSON.parse((await pool.read(file, task, null, 'console')).toString());
      const here = JSON.parse(JSON.stringify(new Runner(store).group(I, field, filters)));
      expect(there.items.length, field).toBeGreaterThan(0);
      expect(there, field).toEqual(here);
    }
  });

  it('sees a write made just before the read, and a new total after it', async () => {
    const task = page({ limit: 1, filters: [{ field: 'status', filter_type: 'equal', value: 'risk_accepted' }] });
    const before = JSON.parse((await pool.read(file, task, store.version(), 'api')).toString()) as { total: number };
    const id = (db.prepare(`SELECT id FROM service_asset_findings WHERE status = 'new' LIMIT 1`).get() as { id: string }).id;
    store.update(I, { id, status: 'risk_accepted' });
    const after = JSON.parse((await pool.read(file, task, store.version(), 'api')).toString()) as { total: number };
    expect(after.total).toBe(before.total + 1);
  });

  it('drops a waiting read whose requesters have all gone, and runs one somebody still waits for', async () => {
    const one = new ReaderPool({ size: 1 });
    try {
      const v = store.version();
      const long = one.read(file, slow(400_000), null, 'api');
      // Queued behind the long read: one requester, who leaves.
      const gone = new AbortController();
      const left = one.read(file, page({ offset: 7 }), v, 'console', gone.signal);
      // Queued too: two requesters of the same read; only one leaves.
      const a = new AbortController();
      const sharedA = one.read(file, page({ offset: 8 }), v, 'console', a.signal);
      const sharedB = one.read(file, page({ offset: 8 }), v, 'api', new AbortController().signal);
      expect(one.queued).toBe(2);
      gone.abort();
      a.abort();
      await expect(left).rejects.toBeInstanceOf(ReadAbandoned);
      await expect(sharedA).rejects.toBeInstanceOf(ReadAbandoned);
      expect(one.dropped).toBe(1);
      expect(one.queued).toBe(1);
      const answered = JSON.parse((await sharedB).toString()) as { items: unknown[] };
      expect(answered.items.length).toBeGreaterThan(0);
      await long;
      // A requester that left before asking is refused at once; the same read asked again runs.
      const already = new AbortController();
      already.abort();
      await expect(one.read(file, page({ offset: 7 }), v, 'api', already.signal)).rejects.toBeInstanceOf(ReadAbandoned);
      const again = JSON.parse((await one.read(file, page({ offset: 7 }), v, 'api')).toString()) as { items: unknown[] };
      expect(again.items.length).toBeGreaterThan(0);
      expect(one.dropped).toBe(1);
    } finally {
      await one.close();
    }
  });

  it('starts every reader at the console\'s first read and keeps them while the console is in use; others stop when idle', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const used = new ReaderPool({ size: 2, idleMs: 100, consoleKeepMs: 60_000, consoleSpreadMs: 0 });
    const scripts = new ReaderPool({ size: 2, idleMs: 100, consoleKeepMs: 60_000 });
    try {
      await used.read(file, page({ limit: 1 }), null, 'console');
      expect(used.running).toBe(2);
      // Two reads at once from scripts: the second reader starts on demand, then stops when idle.
      const both = Promise.all([scripts.read(file, slow(200_000), null, 'api'), scripts.read(file, slow(200_001), null, 'api')]);
      expect(scripts.running).toBe(2);
      await both;
      await sleep(600);
      expect(scripts.running).toBe(1);
      expect(used.running).toBe(2);
      const answered = JSON.parse((await used.read(file, page({ limit: 2 }), null, 'console')).toString()) as { items: unknown[] };
      expect(answered.items).toHaveLength(2);
    } finally {
      await Promise.all([used.close(), scripts.close()]);
    }
  });

  it("reads ahead every incident's cell on each reader, one at a time, once a console is in use and the reader has nothing to do; then a text search's aggregates answer as before", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await sleep(25);
    };
    const used = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 0, prepareIdleMs: 50, prepareMinRows: 0 });
    const scripts = new ReaderPool({ size: 2, idleMs: 60_000, prepareIdleMs: 50, prepareMinRows: 0 });
    const few = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 0, prepareIdleMs: 50 });
    try {
      await Promise.all([used.read(file, page({ limit: 1 }), store.version(), 'console'), scripts.read(file, page({ limit: 1 }), store.version(), 'api'), few.read(file, page({ limit: 1 }), store.version(), 'console')]);
      await until(() => used.prepared === 2);
      expect(used.prepared).toBe(2);
      // Once per reader at the same data; never for scripts alone; not on a database of a few incidents.
      await sleep(300);
      expect(used.prepared).toBe(2);
      expect(scripts.prepared).toBe(0);
      expect(few.prepared).toBe(0);
      const text = { virtual_search: { value: 'сервер', strict: false } };
      const plan = page(text).plan;
      const stats: ReadTask = { kind: 'stats', plan, bucket: 'day' };
      expect(JSON.parse((await used.read(file, stats, store.version(), 'console')).toString())).toEqual(JSON.parse(executeRead(store, stats)));
      // The data changes and the console has asked such aggregates: read ahead again, the answer the new one.
      const one = store.get1<{ id: number }>(`SELECT id FROM service_asset_findings WHERE status = 'new' LIMIT 1`)!;
      store.db.prepare(`UPDATE service_asset_findings SET status = 'assigned' WHERE id = ?`).run(one.id);
      try {
        expect(JSON.parse((await used.read(file, stats, store.version(), 'console')).toString())).toEqual(JSON.parse(executeRead(store, stats)));
        await until(() => used.prepared === 4);
        expect(used.prepared).toBe(4);
        expect(JSON.parse((await used.read(file, { kind: 'stats', plan, bucket: 'week' }, store.version(), 'console')).toString())).toEqual(JSON.parse(executeRead(store, { kind: 'stats', plan, bucket: 'week' })));
      } finally {
        store.db.prepare(`UPDATE service_asset_findings SET status = 'new' WHERE id = ?`).run(one.id);
      }
    } finally {
      await Promise.all([used.close(), scripts.close(), few.close()]);
    }
  });

  it("reads the console's database file through into the system's file cache, a slice at a time while nothing waits, and again a while later; not for scripts alone, nor a file above its limit", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 400 && !ok(); i++) await sleep(25);
    };
    const size = fs.statSync(file).size;
    const slice = 64 * 1024;
    expect(size).toBeGreaterThan(20 * slice);
    const used = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 0, prepareIdleMs: 50, warmSliceBytes: slice, warmEveryMs: 1_500 });
    const scripts = new ReaderPool({ size: 2, idleMs: 60_000, prepareIdleMs: 50, warmSliceBytes: slice });
    const large = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 0, prepareIdleMs: 50, warmSliceBytes: slice, warmMaxBytes: size - 1 });
    try {
      await Promise.all([used.read(file, page({ limit: 1 }), store.version(), 'console'), scripts.read(file, page({ limit: 1 }), store.version(), 'api'), large.read(file, page({ limit: 1 }), store.version(), 'console')]);
      await until(() => used.warmed > 0);
      // Meanwhile a read is answered as ever (reads come first; the reading through goes on after it).
      const text = page({ virtual_search: { value: 'сервер', strict: false } });
      expect(JSON.parse((await used.read(file, text, store.version(), 'console')).toString())).toEqual(JSON.parse(executeRead(store, text)));
      await until(() => used.warmed >= size);
      // The whole file once, not again before warmEveryMs.
      expect(used.warmed).toBe(size);
      await sleep(500);
      expect(used.warmed).toBe(size);
      expect(scripts.warmed).toBe(0);
      expect(large.warmed).toBe(0);
      // warmEveryMs later, the console's next read has it read through again.
      await sleep(1_000);
      await used.read(file, page({ limit: 1 }), store.version(), 'console');
      await until(() => used.warmed >= 2 * size);
      expect(used.warmed).toBe(2 * size);
    } finally {
      await Promise.all([used.close(), scripts.close(), large.close()]);
    }
  });

  it('lets readers beyond the first stop once the console has been away for a while', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const p = new ReaderPool({ size: 2, idleMs: 100, consoleKeepMs: 300, consoleSpreadMs: 0 });
    try {
      const read = p.read(file, page({ limit: 1 }), null, 'console');
      expect(p.running).toBe(2);
      await read;
      await sleep(1_000);
      expect(p.running).toBe(1);
    } finally {
      await p.close();
    }
  });

  it("starts the rest of the readers a while after the console's first read, not with it (the console is opening)", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const p = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 500 });
    try {
      // The first reader started and reading (as a server warms it at its start).
      await p.read(file, page({ limit: 1 }), null, 'api');
      const answered = JSON.parse((await p.read(file, page({ limit: 2 }), null, 'console')).toString()) as { items: unknown[] };
      expect(answered.items).toHaveLength(2);
      expect(p.running).toBe(1);
      await sleep(1_000);
      expect(p.running).toBe(2);
      // Another console read meanwhile starts nothing more.
      await p.read(file, page({ limit: 3 }), null, 'console');
      expect(p.running).toBe(2);
    } finally {
      await p.close();
    }
  });

  it('starts a reader at once for a read that finds every started one busy, before the rest are due', async () => {
    const p = new ReaderPool({ size: 2, idleMs: 60_000, consoleSpreadMs: 60_000 });
    try {
      const both = Promise.all([p.read(file, slow(200_000), null, 'console'), p.read(file, slow(200_001), null, 'console')]);
      expect(p.running).toBe(2);
      await both;
    } finally {
      await p.close();
    }
  });
});
