// The console's chips, charts and time-range totals come from per-day counts the database keeps
// (and the edge days of a range read from the incidents). After every kind of write — the v2
// write routes, the public updates, the routing port's create, an import through the server, an
// import by the CLI in another process and a sync pull into a snapshot — they must equal a plain
// COUNT of the incidents, read here from the database file on a connection of the test's own:
// by status, by risk band, per day, week and month, for everything and for a range whose ends
// fall inside days, and the v2 search's total for a range with or without a status list.
import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { riskBandSql } from '../../src-shared/resources/fields';
import { runCli } from '../helpers/cli';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let srv: TestServer;
let truth: Database.Database;
const I = '/cruddy/v2/service_asset_findings';
const STATS = '/console/v1/stats/incidents';

interface Stats {
  total: number;
  bucket: string;
  by_status: { status: string; count: number }[];
  by_risk: { risk: string; count: number }[];
  over_time: { bucket: string; status: string; risk: string; count: number }[];
}

type Call = (method: string, url: string, body?: unknown) => Promise<{ status: number; text: string; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  truth = new Database(srv.db, { readonly: true });
});

afterAll(async () => {
  truth?.close();
  await srv?.stop();
});

/** Bucket start of a day, by Date arithmetic (weeks start on Monday). */
function bucketOf(day: string, bucket: string): string {
  if (bucket === 'day') return day;
  if (bucket === 'month') return `${day.slice(0, 7)}-01`;
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
}

/** A range with ends inside days: from a quarter to three quarters of the incidents by creation time. */
function rangeOf(db: Database.Database): { lo: string; hi: string } {
  const stamps = (db.prepare(`SELECT created_at AS c FROM service_asset_findings ORDER BY created_at`).all() as { c: string }[]).map((r) => r.c);
  const lo = stamps[Math.floor(stamps.length / 4)]!;
  const hi = stamps[Math.floor((stamps.length * 3) / 4)]!;
  expect(lo.slice(0, 10) < hi.slice(0, 10)).toBe(true);
  return { lo, hi };
}

/** The incidents grouped as the aggregates count them, straight from the table. */
function groupedTruth(db: Database.Database, where: string, params: unknown[]): { day: string; status: string; risk: string; n: number }[] {
  return db
    .prepare(`SELECT substr(created_at, 1, 10) AS day, status, ${riskBandSql('risklevel')} AS risk, COUNT(*) AS n FROM service_asset_findings WHERE ${where} GROUP BY 1, 2, 3`)
    .all(...params) as { day: string; status: string; risk: string; n: number }[];
}

async function expectKeptTrue(db: Database.Database, call: Call, step: string): Promise<void> {
  const { lo, hi } = rangeOf(db);
  const cases: { name: string; qs: string; where: string; params: unknown[] }[] = [
    { name: 'everything', qs: '', where: '1', params: [] },
    { name: 'a range', qs: `created_at=gt,${lo}&created_at=lt,${hi}&`, where: 'created_at > ? AND created_at < ?', params: [lo, hi] },
    { name: 'from a time on', qs: `created_at=gt,${lo}&`, where: 'created_at > ?', params: [lo] },
  ];
  for (const c of cases) {
    const rows = groupedTruth(db, c.where, c.params);
    const total = rows.reduce((a, r) => a + r.n, 0);
    const sum = (key: (r: (typeof rows)[0]) => string) => {
      const m = new Map<string, number>();
      for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + r.n);
      return m;
    };
    for (const bucket of ['day', 'week', 'month']) {
      const res = await call('GET', `${STATS}?${c.qs}bucket=${bucket}`);
      expect(res.status, res.text).toBe(200);
      const s = res.body as Stats;
      const what = `${step}: stats of ${c.name} by ${bucket}`;
      expect(s.total, what).toBe(total);
      expect(new Map(s.by_status.map((x) => [x.status, x.count])), what).toEqual(sum((r) => r.status));
      expect(new Map(s.by_risk.map((x) => [x.risk, x.count])), what).toEqual(sum((r) => r.risk));
      expect(new Map(s.over_time.map((o) => [`${o.bucket}|${o.status}|${o.risk}`, o.count])), what).toEqual(sum((r) => `${bucketOf(r.day, bucket)}|${r.status}|${r.risk}`));
    }
  }
  // The v2 search's total for a range (inclusive ends), alone and with status lists: pages of one
  // row make the server give the number of every match.
  const count = (where: string, ...params: unknown[]) => (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE ${where}`).get(...params) as { n: number }).n;
  const range = { field: 'created_at', filter_type: 'range', value: [lo, hi] };
  const searches: { name: string; filters: unknown[]; where: string; params: unknown[] }[] = [
    { name: 'range', filters: [range], where: 'created_at >= ? AND created_at <= ?', params: [lo, hi] },
    { name: 'from', filters: [{ ...range, value: [lo, null] }], where: 'created_at >= ?', params: [lo] },
    { name: 'until', filters: [{ ...range, value: [null, hi] }], where: 'created_at <= ?', params: [hi] },
    {
      name: 'range and statuses',
      filters: [range, { field: 'status', filter_type: 'intersection', value: ['new', 'closed'] }],
      where: `created_at >= ? AND created_at <= ? AND status IN ('new', 'closed')`,
      params: [lo, hi],
    },
    { name: 'one day and a status', filters: [{ ...range, value: [lo, `${lo.slice(0, 10)}T23:59:59.999999Z`] }, { field: 'status', filter_type: 'equal', value: 'new' }], where: `created_at >= ? AND created_at <= ? AND status = 'new'`, params: [lo, `${lo.slice(0, 10)}T23:59:59.999999Z`] },
  ];
  for (const q of searches) {
    const res = await call('POST', `${I}/search`, search({ limit: 1, filters: q.filters }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.total, `${step}: v2 search total, ${q.name}`).toBe(count(q.where, ...q.params));
  }
}

const main: Call = (method, url, body) => srv.call(method, url, body);

async function ids(where: string, n: number): Promise<string[]> {
  return (truth.prepare(`SELECT id FROM service_asset_findings WHERE ${where} ORDER BY _rid LIMIT ?`).all(n) as { id: string }[]).map((r) => r.id);
}

function refs(): { service_asset_id: string; finding_id: string } {
  return truth.prepare(`SELECT service_asset_id, finding_id FROM service_asset_findings WHERE service_asset_id IS NOT NULL AND finding_id IS NOT NULL LIMIT 1`).get() as {
    service_asset_id: string;
    finding_id: string;
  };
}

describe('kept counts after writes', () => {
  it('equal a plain COUNT after every write route, the public updates, the routing port, an import through the server and by another process', async () => {
    await expectKeptTrue(truth, main, 'start');
    const r = refs();
    const ok = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);

    ok(await main('POST', `${I}/create`, { status: 'new', risklevel: 8, title: 'created', ...r }), 201);
    await expectKeptTrue(truth, main, 'create');

    const [a, b, c] = await ids(`status = 'closed'`, 3);
    ok(await main('PUT', `${I}/update`, { id: a, status: 'new' }));
    await expectKeptTrue(truth, main, 'update, status');
    ok(await main('PUT', `${I}/update`, { id: a, risklevel: 0 }));
    await expectKeptTrue(truth, main, 'update, risk level to another band');

    ok(await main('POST', `${I}/mass_update`, { ids: [b], field: 'status', value: 'verify_close' }));
    await expectKeptTrue(truth, main, 'mass_update, one field');
    ok(await main('POST', `${I}/mass_update`, { ids: [c], fields: { status: 'assigned_customer', risklevel: 9.5 } }));
    await expectKeptTrue(truth, main, 'mass_update, fields');

    const [d] = await ids(`status = 'new'`, 1);
    ok(await main('PUT', '/data/public/api/v1/incidents/update/status', { id: d, status: 'invalid' }));
    await expectKeptTrue(truth, main, 'public status update');
    const [e] = await ids(`risklevel <= 5`, 1);
    ok(await main('PUT', '/data/public/api/v1/incidents/update/critical', { id: e, risklevel: 9.5 }));
    await expectKeptTrue(truth, main, 'public risk update');

    const list = await srv.call('GET', '/tenancy/instance/list');
    const routed = await srv.call('POST', '/data/v1/create', { Status: 'new', Risklevel: 7.5, ServiceAssetId: r.service_asset_id, FindingId: r.finding_id }, { PgrSelectedInstance: list.body[0].id }, srv.routing);
    expect(routed.status, routed.text).toBe(200);
    await expectKeptTrue(truth, main, 'routing port create');

    ok(await main('POST', `${I}/mass_create`, [{ status: 'new', ...r }, { status: 'assigned_customer', risklevel: 6, ...r }]), 201);
    await expectKeptTrue(truth, main, 'mass_create');

    const [f, g, h] = await ids(`status = 'new'`, 3);
    ok(await main('DELETE', `${I}/${f}`));
    await expectKeptTrue(truth, main, 'delete');
    ok(await main('POST', `${I}/mass_delete`, { ids: [g, h] }));
    await expectKeptTrue(truth, main, 'mass_delete');
    ok(await main('DELETE', `${I}/all`, { filters: [{ field: 'status', filter_type: 'equal', value: 'invalid' }] }));
    await expectKeptTrue(truth, main, 'delete all matching');

    // Imported incidents keep their own creation times, inside the range's days and at its ends.
    const { lo, hi } = rangeOf(truth);
    const stamps = [lo, hi, `${lo.slice(0, 10)}T00:00:00.000000Z`, `${hi.slice(0, 10)}T23:59:59.999999Z`, '2020-02-02T02:02:02.000000Z'];
    const records = Array.from({ length: 25 }, (_, i) => ({
      id: crypto.randomUUID(),
      status: i % 2 ? 'new' : 'assigned_customer',
      risklevel: (i * 1.7) % 10,
      title: `imported ${i}`,
      created_at: stamps[i % stamps.length],
      updated_at: stamps[i % stamps.length],
      ...r,
    }));
    const imp = await fetch(`${srv.main}/console/v1/import?wait=1&kind=service_asset_findings&filename=more.ndjson`, {
      method: 'POST',
      headers: { PgrApiKey: TEST_KEY, 'content-type': 'application/x-ndjson' },
      body: records.map((x) => JSON.stringify(x)).join('\n'),
    });
    expect(imp.status, await imp.clone().text()).toBe(200);
    await expectKeptTrue(truth, main, 'import through the server');

    const file = path.join(srv.dir, 'kept.ndjson');
    fs.writeFileSync(file, records.map((x) => JSON.stringify({ ...x, id: crypto.randomUUID(), status: 'closed' })).join('\n'));
    const cli = await runCli(['import', file, '--db', srv.db, '--kind', 'service_asset_findings']);
    expect(cli.code, cli.stderr).toBe(0);
    await expectKeptTrue(truth, main, 'import by the CLI in another process');
  });

  it('equal a plain COUNT in a snapshot after a sync pull brings changes, new incidents and deletions', async () => {
    const origin = await startTestServer({ seed: 'demo' });
    try {
      const made = await srv.call('POST', '/console/v1/snapshot?wait=1', { url: origin.main, api_key: TEST_KEY, name: 'Kept', db_file: 'kept-snap.sqlite', per_page: 200 });
      expect(made.status, made.text).toBe(200);
      const snapId = made.body.instance.id as string;
      const snapTruth = new Database(path.join(srv.dir, 'kept-snap.sqlite'), { readonly: true });
      try {
        const onSnap: Call = async (method, url, body) => {
          const res = await srv.call(method, url, body, { PgrSelectedInstance: snapId }, srv.routing);
          expect(res.body?.[0]?.status_code, res.text).toBeGreaterThan(0);
          return { status: res.body[0].status_code as number, text: JSON.stringify(res.body[0].data), body: res.body[0].data };
        };
        // Asked (and kept) before the pull changes them.
        await expectKeptTrue(snapTruth, onSnap, 'snapshot');
        const news = (await origin.call('POST', `${I}/search`, search({ limit: 3, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }] }))).body.items as {
          id: string;
          finding_id: string;
          service_asset_id: string;
        }[];
        expect(news).toHaveLength(3);
        const [x, y, z] = news as [(typeof news)[0], (typeof news)[0], (typeof news)[0]];
        expect((await origin.call('PUT', '/data/public/api/v1/incidents/update/status', { id: x.id, status: 'closed' })).status).toBe(200);
        expect((await origin.call('PUT', '/data/public/api/v1/incidents/update/critical', { id: y.id, risklevel: 9.9 })).status).toBe(200);
        for (const status of ['new', 'assigned_customer']) {
          expect((await origin.call('POST', `${I}/create`, { status, risklevel: 7, title: 'pulled', finding_id: y.finding_id, service_asset_id: y.service_asset_id })).status).toBe(201);
        }
        expect((await origin.call('DELETE', `${I}/${z.id}`)).status).toBe(200);
        const pulled = await srv.call('POST', '/console/v1/sync/Kept/pull?wait=1');
        expect(pulled.status, pulled.text).toBe(200);
        expect((snapTruth.prepare(`SELECT status FROM service_asset_findings WHERE id = ?`).get(x.id) as { status: string }).status).toBe('closed');
        await expectKeptTrue(snapTruth, onSnap, 'sync pull');
      } finally {
        snapTruth.close();
      }
    } finally {
      await origin.stop();
    }
  });
});
