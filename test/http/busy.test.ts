// A write that meets another writer's lock (an import holding the database) is refused with 503
// and the error shape, and reads go on (WAL). How quickly it is refused is a time limit, held in
// `npm run test:robust` (RADAR_ROBUST=1).
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, type TestServer } from '../helpers/server';

const ROBUST = process.env.RADAR_ROBUST === '1';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await srv?.stop();
});

describe('a database held by another writer', () => {
  it('refuses writes with 503 within about the busy time-out, and still answers reads', async () => {
    const other = new Database(srv.db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const t0 = performance.now();
      const res = await srv.call('POST', '/cruddy/v2/software_groups/create', { name: 'while an import runs' });
      const took = performance.now() - t0;
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: expect.stringMatching(/busy/), error_code: 503 });
      if (ROBUST) expect(took).toBeLessThan(4000);
      const read = await srv.call('POST', '/cruddy/v2/service_asset_findings/search', search({ limit: 1 }));
      expect(read.status).toBe(200);
      expect(read.body.total).toBeGreaterThan(0);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const after = await srv.call('POST', '/cruddy/v2/software_groups/create', { name: 'after the import' });
    expect(after.status).toBe(201);
  });
});
