// A read whose client left is not run: over a real socket, a request aborted while its read
// waits behind a long one closes the response, the pool drops the read, and no error is logged;
// a request that stays is answered.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileSearchPlan, type Plan } from '../../src-main/store/query/plan';
import type { ReadTask } from '../../src-main/store/reader/execute';
import { ReaderPool, readsFor } from '../../src-main/store/reader/pool';
import { Store } from '../../src-main/store/store';
import { sendRead } from '../../src-main/server/reads';
import { copyDemoDatabase } from '../helpers/seed';

const I = getResource('service_asset_findings');
let dir: string;
let db: Db;
let pool: ReaderPool;
let app: FastifyInstance;
let base: string;
const errors: string[] = [];

/** A read that keeps its reader busy for a while (a counting recursive CTE). */
function slow(rows: number): ReadTask {
  const plan0 = compileSearchPlan(I, emptySearch(1, 0));
  const plan: Plan = { ...plan0, where: { sql: `(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows}) SELECT COUNT(*) FROM c) > 0 AND t._rid = 1`, params: [] } };
  return { kind: 'page', plan, shape: 'items' };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-abandoned-'));
  db = openDatabase(copyDemoDatabase(path.join(dir, 'db.sqlite'))).db;
  const store = new Store(db);
  pool = new ReaderPool({ size: 1 });
  const reads = readsFor(store, pool);
  app = Fastify({ logger: false });
  app.setErrorHandler((err: Error, _req, reply) => {
    errors.push(err.message);
    return reply.code(500).send({ error: err.message, error_code: 500 });
  });
  app.get('/slow', (req, reply) => sendRead(req, reply, reads, slow(2_000_000)));
  app.get('/page/:offset', (req, reply) =>
    sendRead(req, reply, reads, { kind: 'page', plan: compileSearchPlan(I, emptySearch(1, Number((req.params as { offset: string }).offset))), shape: 'items' }),
  );
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
  await pool.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const until = async (ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('reads of requests that closed', () => {
  it('are dropped before they run; the reads of requests still open are answered', async () => {
    const long = fetch(`${base}/slow`);
    await until(() => pool.running === 1 && pool.queued === 0);
    const leaving = new AbortController();
    const left = fetch(`${base}/page/3`, { signal: leaving.signal });
    const staying = fetch(`${base}/page/4`);
    await until(() => pool.queued === 2);
    leaving.abort();
    await expect(left).rejects.toThrow();
    await until(() => pool.dropped === 1);
    expect(pool.queued).toBe(1);
    const answer = await staying;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { items: unknown[] }).items).toHaveLength(1);
    expect((await long).status).toBe(200);
    expect(pool.dropped).toBe(1);
    expect(errors).toEqual([]);
  });
});
