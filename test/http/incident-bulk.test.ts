// A change over every incident a query matches is one server-side job and one transaction:
// POST /console/v1/incidents/bulk starts it (202), GET follows its progress, DELETE cancels it
// (nothing of it is written). Over real sockets; every answer is checked against /openapi.json
// by the test server's caller.
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, RadarApiError } from '../../src-shared/client/index';
import { search, startTestServer, TEST_KEY, takeSnapshot, type TestServer } from '../helpers/server';

let s: TestServer;
const URL_ = '/console/v1/incidents/bulk';
const ADDED = 10_500;
/** Those of them whose risk level is below 4 (a sixth: levels 3.0 to 3.9 of 3.0 to 8.9): the status change with a reason, the costliest per incident, runs over these. */
const CLOSED = ADDED / 6;
const TITLE = 'Массовая проверка';
const USER = '0f4c1c1e-8a55-4f7e-9d0b-6c1e2b3a4d5f';

type Job = { id: string; state: string; total: number; done: number; changed: number; field: string; error: { error: string; error_code: number } | null };

const ours = { field: 'title', filter_type: 'substr' as const, value: TITLE };

async function countOf(filters: unknown[], resource = 'service_asset_findings', on: TestServer = s): Promise<number> {
  const res = await on.call('POST', `/cruddy/v2/${resource}/search`, search({ include_fields: ['id'], filters, limit: 1 }));
  expect(res.status, res.text).toBe(200);
  return res.body.total;
}

async function addIncidents(on: TestServer, n: number, title: string): Promise<void> {
  for (let i = 0; i < n; i += 1000) {
    const items = Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ title: `${title} ${i + k}`, status: 'new', risklevel: 3 + ((i + k) % 60) / 10 }));
    const res = await on.call('POST', '/cruddy/v2/service_asset_findings/mass_create', items);
    expect(res.status, res.text.slice(0, 300)).toBe(201);
  }
}

/** The search index checked against the tables (FTS5's integrity-check), and the names of its triggers. */
function searchIndex(on: TestServer = s): { triggers: string[] } {
  const db = new Database(path.join(on.dir, 'test.sqlite'));
  try {
    for (const t of ['service_asset_findings', 'service_asset_finding_status_changes', 'messages']) db.exec(`INSERT INTO ${t}_fts (${t}_fts, rank) VALUES ('integrity-check', 1)`);
    return { triggers: (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%fts%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name) };
  } finally {
    db.close();
  }
}

/** Follows a job to its end; answers the views seen on the way. */
async function follow(id: string, get = (jobId: string) => s.call('GET', `${URL_}/${jobId}`)): Promise<Job[]> {
  const seen: Job[] = [];
  for (;;) {
    const res = await get(id);
    expect(res.status, res.text).toBe(200);
    seen.push(res.body);
    if (res.body.state !== 'running') return seen;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the job has written some incidents (and is still running). */
async function partWay(id: string): Promise<Job> {
  for (;;) {
    const res = await s.call('GET', `${URL_}/${id}`);
    expect(res.body.state, res.text).toBe('running');
    if (res.body.done > 0) return res.body;
    await new Promise((r) => setTimeout(r, 5));
  }
}

beforeAll(async () => {
  s = await startTestServer();
  await addIncidents(s, ADDED, TITLE);
}, 300_000);
afterAll(async () => {
  await s?.stop();
});

describe('POST /console/v1/incidents/bulk', () => {
  it(`changes the status of all ${CLOSED} incidents of a query in one job: one status-change row and one reason each`, async () => {
    const query = { filters: [ours, { field: 'risklevel', filter_type: 'range', value: [3, 3.95] }, { field: 'status', filter_type: 'equal', value: 'new' }] };
    expect(await countOf(query.filters)).toBe(CLOSED);
    const rowsBefore = await countOf([{ field: 'status', filter_type: 'equal', value: 'closed' }], 'service_asset_finding_status_changes');
    const index = searchIndex();
    const res = await s.call('POST', URL_, { query, change: { status: 'closed', note: { subject: 'Закрыто массово', body: 'ложные срабатывания' } }, expected_total: CLOSED }, { 'Pgr-User-Id': USER });
    expect(res.status, res.text).toBe(202);
    expect(res.headers.get('location')).toBe(`${URL_}/${res.body.id}`);
    expect(res.body).toMatchObject({ state: 'running', field: 'status', total: CLOSED });
    const seen = await follow(res.body.id);
    const last = seen.at(-1)!;
    expect(last, JSON.stringify(last.error)).toMatchObject({ state: 'done', total: CLOSED, done: CLOSED, changed: CLOSED, error: null });
    // Progress moved while it ran (it yields between slices).
    expect(seen.some((j) => j.state === 'running' && j.done > 0 && j.done < CLOSED)).toBe(true);
    expect(await countOf(query.filters)).toBe(0);
    expect(await countOf([ours, { field: 'status', filter_type: 'equal', value: 'closed' }])).toBe(CLOSED);
    // The incidents the query did not match are as they were.
    expect(await countOf([ours, { field: 'status', filter_type: 'equal', value: 'new' }])).toBe(ADDED - CLOSED);
    expect(await countOf([{ field: 'status', filter_type: 'equal', value: 'closed' }], 'service_asset_finding_status_changes')).toBe(rowsBefore + CLOSED);
    expect(await countOf([{ field: 'subject', filter_type: 'equal', value: 'Закрыто массово' }, { field: 'sender_id', filter_type: 'equal', value: USER }], 'messages')).toBe(CLOSED);
    // The search index follows: the new status and the reasons are found, the old status is not.
    expect(await countOf([ours, { field: 'status', filter_type: 'substr', value: 'close' }])).toBe(CLOSED);
    expect(await countOf([ours, { field: 'status', filter_type: 'substr', value: 'new' }])).toBe(ADDED - CLOSED);
    expect(await countOf([{ field: 'subject', filter_type: 'substr', value: 'массово' }], 'messages')).toBe(CLOSED);
    expect(searchIndex()).toEqual(index);
  }, 300_000);

  it('a cancel mid-way leaves nothing changed; a write sent meanwhile waits for the end and is kept', async () => {
    const query = { filters: [ours] };
    const high = [ours, { field: 'risklevel', filter_type: 'equal', value: 9.9 }];
    expect(await countOf(high)).toBe(0);
    const index = searchIndex();
    const res = await s.call('POST', URL_, { query, change: { risklevel: 9.9 } });
    expect(res.status, res.text).toBe(202);
    const part = await partWay(res.body.id);
    expect(part.done).toBeLessThan(ADDED);
    // Reads answer the data as last committed while the job runs.
    expect(await countOf(high)).toBe(0);
    // A single write now waits for the job (it is not written into the job's transaction).
    const one = (await s.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [ours], ordering: [{ field: 'display_id', direction: 'desc' }], limit: 1 }))).body.items[0];
    let answered = false;
    const single = s.call('POST', '/cruddy/v2/service_asset_findings/update', { id: one.id, title: `${TITLE} (переименован)` }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(answered).toBe(false);
    const cancelled = await s.call('DELETE', `${URL_}/${res.body.id}`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ state: 'cancelled', total: ADDED });
    expect(cancelled.body.done).toBeLessThan(ADDED);
    expect(cancelled.body.error).toMatchObject({ error_code: 409 });
    const w = await single;
    expect(answered).toBe(true);
    expect(w.status, w.text).toBe(200);
    expect(await countOf(high)).toBe(0);
    expect((await s.call('GET', `/cruddy/v2/service_asset_findings/${one.id}?relations=`)).body.title).toBe(`${TITLE} (переименован)`);
    expect(await countOf([{ field: 'title', filter_type: 'substr', value: 'переименован' }])).toBe(1);
    expect(searchIndex()).toEqual(index);
    // A cancel of a finished job answers it as it is.
    expect((await s.call('DELETE', `${URL_}/${res.body.id}`)).body.state).toBe('cancelled');
  }, 120_000);

  it('a write sent while a job runs is written after it, not lost', async () => {
    const res = await s.call('POST', URL_, { query: { filters: [ours] }, change: { group_id: 'soc-l2' } });
    expect(res.status, res.text).toBe(202);
    await partWay(res.body.id);
    const one = (await s.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [ours], ordering: [{ field: 'display_id', direction: 'asc' }], limit: 1 }))).body.items[0];
    const w = await s.call('POST', '/cruddy/v2/service_asset_findings/update', { id: one.id, group_id: 'soc-l1' });
    expect(w.status, w.text).toBe(200);
    const last = (await follow(res.body.id)).at(-1)!;
    expect(last).toMatchObject({ state: 'done', done: ADDED, changed: ADDED });
    // The single write came after the job's commit: it is the value kept.
    expect((await s.call('GET', `/cruddy/v2/service_asset_findings/${one.id}?relations=`)).body.group_id).toBe('soc-l1');
    expect(await countOf([ours, { field: 'group_id', filter_type: 'equal', value: 'soc-l2' }])).toBe(ADDED - 1);
  }, 120_000);

  it('a query matching another number than the confirmation named is 409, and nothing changes', async () => {
    const res = await s.call('POST', URL_, { query: { filters: [ours] }, change: { risklevel: 1 }, expected_total: ADDED - 1 });
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({ error_code: 409, extra: { fields: ['expected_total'] } });
    expect(res.body.error).toContain(String(ADDED));
    expect(await countOf([ours, { field: 'risklevel', filter_type: 'equal', value: 1 }])).toBe(0);
  });

  it('a bad query or change is 400 in the error shape, and starts nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{ query: { filters: [{ field: 'colour', filter_type: 'equal', value: 'red' }] }, change: { risklevel: 1 } }, /colour|field/],
      [{ query: { filters: [ours] }, change: { status: 'done' } }, /status|change/],
      [{ query: { filters: [ours] }, change: { risklevel: 11 } }, /risklevel|change/],
      [{ query: { filters: [ours] }, change: { risklevel: 1, user_id: 'x' } }, /change|risklevel|user_id/],
      [{ query: { filters: [ours] }, change: {} }, /change/],
      [{ query: { filters: [ours] } }, /change/],
      [{ change: { risklevel: 1 } }, /query/],
      [{ query: { filters: [ours] }, change: { risklevel: 1 }, expected_total: -1 }, /expected_total/],
    ];
    for (const [body, text] of cases) {
      const res = await s.call('POST', URL_, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(text), error_code: 400 });
    }
    expect(await countOf([ours, { field: 'risklevel', filter_type: 'equal', value: 1 }])).toBe(0);
    expect((await s.call('GET', `${URL_}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });
});

describe('the typed client', () => {
  it('starts a job over a query, follows it to its end, and has the 409 of a stale count as an error', async () => {
    const radar = createClient({ url: s.main, apiKey: TEST_KEY });
    const query = { filters: [ours, { field: 'risklevel', filter_type: 'range' as const, value: [8, null] }] };
    const n = await countOf(query.filters);
    expect(n).toBeGreaterThan(0);
    const started = await radar.incidents.bulk.start({ query, change: { risklevel: 8.8 }, expected_total: n });
    expect(started).toMatchObject({ state: 'running', total: n, field: 'risklevel' });
    let job = await radar.incidents.bulk.get(started.id);
    while (job.state === 'running') job = await radar.incidents.bulk.get(started.id);
    expect(job).toMatchObject({ state: 'done', done: n });
    // Every one has it now; those that had it already were not written again.
    expect(await countOf([ours, { field: 'risklevel', filter_type: 'equal', value: 8.8 }])).toBe(n);
    expect(job.changed).toBeLessThan(n);
    const stale = await radar.incidents.bulk.start({ query, change: { risklevel: 8.9 }, expected_total: n + 1 }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RadarApiError);
    expect((stale as RadarApiError).status).toBe(409);
    expect((await radar.incidents.bulk.cancel(started.id)).state).toBe('done');
  });
});

describe('on a snapshot', () => {
  let origin: TestServer;
  let local: TestServer;
  let snap: { id: string };
  const NAME = 'Снимок для массовой смены';
  const N = 300;

  beforeAll(async () => {
    origin = await startTestServer();
    await addIncidents(origin, N, 'Снимок');
    local = await startTestServer();
    snap = await takeSnapshot(local, origin, { name: NAME, dbFile: 'bulk.sqlite', perPage: 500 });
  }, 120_000);
  afterAll(async () => {
    await local?.stop();
    await origin?.stop();
  });

  const onSnap = (method: string, url: string, body?: unknown) =>
    local.call(method, url, body, { PgrSelectedInstance: snap.id }, local.routing).then((r) => ({ ...r, body: r.body?.[0]?.data, status: r.body?.[0]?.status_code ?? r.status }));

  it('the outbox holds one entry per changed incident, written with the job', async () => {
    const query = { filters: [{ field: 'risklevel', filter_type: 'range', value: [3, 5] }] };
    const matched = (await onSnap('POST', '/cruddy/v2/service_asset_findings/search', search({ include_fields: ['id'], filters: query.filters, limit: 1 }))).body.total as number;
    expect(matched).toBeGreaterThan(50);
    const res = await onSnap('POST', URL_, { query, change: { user_id: USER }, expected_total: matched });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const last = (await follow(res.body.id, (id) => onSnap('GET', `${URL_}/${id}`) as never)).at(-1)!;
    expect(last).toMatchObject({ state: 'done', done: matched, changed: matched });
    const entries = (await local.call('GET', `/console/v1/sync/${encodeURIComponent(NAME)}/entries?limit=1000`)).body as { items: Record<string, any>[]; total: number };
    expect(entries.total).toBe(matched);
    expect(new Set(entries.items.map((e) => e.record_id)).size).toBe(matched);
    expect(entries.items.every((e) => e.resource === 'service_asset_findings' && e.op === 'update' && e.field === 'user_id')).toBe(true);
  }, 120_000);
});
