// Totals are paid for once and never stale: after every kind of write — each write route, the
// public updates, the routing port's create, an import through the server, an import by the
// CLI in another process and a sync pull into a snapshot — the next v2 search, public list and
// stats answer the true number, read here from the database file on a connection of the test's own.
import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let srv: TestServer;
let truth: Database.Database;
const I = '/cruddy/v2/service_asset_findings';

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  truth = new Database(srv.db, { readonly: true });
});

afterAll(async () => {
  truth?.close();
  await srv?.stop();
});

const count = (where: string): number => (truth.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE ${where}`).get() as { n: number }).n;

/** Every answer that carries a total, against the database itself. Pages of one row make the server count. */
async function expectTotalsTrue(step: string): Promise<void> {
  const v2 = await srv.call('POST', `${I}/search`, search({ limit: 1, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] }));
  expect(v2.status, v2.text).toBe(200);
  expect(v2.body.total, `${step}: v2 search`).toBe(count(`status = 'new'`));
  const all = await srv.call('POST', `${I}/search`, search({ limit: 1, offset: 1 }));
  expect(all.body.total, `${step}: v2 search, everything`).toBe(count('1'));
  const pub = await srv.call('GET', '/data/public/api/v1/incidents?status=in,new,assigned_customer&risklevel=gt,5&per_page=1');
  expect(pub.status, pub.text).toBe(200);
  expect(pub.body.total, `${step}: public list`).toBe(count(`status IN ('new', 'assigned_customer') AND risklevel > 5`));
  const stats = await srv.call('GET', '/console/v1/stats/incidents?bucket=month');
  expect(stats.body.total, `${step}: stats`).toBe(count('1'));
  const newCount = stats.body.by_status.find((x: { status: string }) => x.status === 'new')?.count ?? 0;
  expect(newCount, `${step}: stats by status`).toBe(count(`status = 'new'`));
}

async function ids(where: string, n: number): Promise<string[]> {
  return (truth.prepare(`SELECT id FROM service_asset_findings WHERE ${where} ORDER BY _rid LIMIT ?`).all(n) as { id: string }[]).map((r) => r.id);
}

function refs(): { service_asset_id: string; finding_id: string } {
  const row = truth.prepare(`SELECT service_asset_id, finding_id FROM service_asset_findings WHERE service_asset_id IS NOT NULL AND finding_id IS NOT NULL LIMIT 1`).get() as {
    service_asset_id: string;
    finding_id: string;
  };
  return row;
}

describe('totals after writes', () => {
  it('are true after every write route, an import through the server and an import by another process', async () => {
    await expectTotalsTrue('start');
    const r = refs();
    const ok = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);

    ok(await srv.call('POST', `${I}/create`, { status: 'new', risklevel: 8, title: 'created', ...r }), 201);
    await expectTotalsTrue('create');

    const [a, b, c] = await ids(`status = 'closed'`, 3);
    ok(await srv.call('PUT', `${I}/update`, { id: a, status: 'new' }));
    await expectTotalsTrue('update');

    ok(await srv.call('POST', `${I}/mass_update`, { ids: [b], field: 'status', value: 'new' }));
    await expectTotalsTrue('mass_update, one field');
    ok(await srv.call('POST', `${I}/mass_update`, { ids: [c], fields: { status: 'assigned_customer', risklevel: 9 } }));
    await expectTotalsTrue('mass_update, fields');

    const [d] = await ids(`status = 'new'`, 1);
    ok(await srv.call('PUT', '/data/public/api/v1/incidents/update/status', { id: d, status: 'invalid' }));
    await expectTotalsTrue('public status update');
    const [e] = await ids(`status = 'new' AND risklevel <= 5`, 1);
    ok(await srv.call('PUT', '/data/public/api/v1/incidents/update/critical', { id: e, risklevel: 9.5 }));
    await expectTotalsTrue('public risk update');

    const list = await srv.call('GET', '/tenancy/instance/list');
    const routed = await srv.call('POST', '/data/v1/create', { Status: 'new', Risklevel: 7.5, ServiceAssetId: r.service_asset_id, FindingId: r.finding_id }, { PgrSelectedInstance: list.body[0].id }, srv.routing);
    expect(routed.status, routed.text).toBe(200);
    await expectTotalsTrue('routing port create');

    ok(await srv.call('POST', `${I}/mass_create`, [{ status: 'new', ...r }, { status: 'assigned_customer', risklevel: 6, ...r }]), 201);
    await expectTotalsTrue('mass_create');

    const [f, g, h] = await ids(`status = 'new'`, 3);
    ok(await srv.call('DELETE', `${I}/${f}`));
    await expectTotalsTrue('delete');
    ok(await srv.call('POST', `${I}/mass_delete`, { ids: [g, h] }));
    await expectTotalsTrue('mass_delete');
    ok(await srv.call('DELETE', `${I}/all`, { filters: [{ field: 'status', filter_type: 'equal', value: 'invalid' }] }));
    await expectTotalsTrue('delete all matching');

    const records = Array.from({ length: 25 }, (_, i) => ({ id: crypto.randomUUID(), status: i % 2 ? 'new' : 'assigned_customer', risklevel: 6 + (i % 4), title: `imported ${i}`, ...r }));
    const body = records.map((x) => JSON.stringify(x)).join('\n');
    const imp = await fetch(`${srv.main}/console/v1/import?wait=1&kind=service_asset_findings&filename=more.ndjson`, {
      method: 'POST',
      headers: { PgrApiKey: TEST_KEY, 'content-type': 'application/x-ndjson' },
      body,
    });
    expect(imp.status, await imp.clone().text()).toBe(200);
    await expectTotalsTrue('import through the server');

    const file = path.join(srv.dir, 'cli.ndjson');
    fs.writeFileSync(file, records.map((x) => JSON.stringify({ ...x, id: crypto.randomUUID(), status: 'new' })).join('\n'));
    const cli = await runCli(['import', file, '--db', srv.db, '--kind', 'service_asset_findings']);
    expect(cli.code, cli.stderr).toBe(0);
    await expectTotalsTrue('import by the CLI in another process');
  });

  it('are true in a snapshot after a sync pull brings changes, new incidents and deletions from its origin', async () => {
    const origin = await startTestServer({ seed: 'demo' });
    try {
      const made = await srv.call('POST', '/console/v1/snapshot?wait=1', { url: origin.main, api_key: TEST_KEY, name: 'Totals', db_file: 'totals-snap.sqlite', per_page: 200 });
      expect(made.status, made.text).toBe(200);
      const snapId = made.body.instance.id as string;
      const snapTruth = new Database(path.join(srv.dir, 'totals-snap.sqlite'), { readonly: true });
      try {
        const n = (where: string, ...params: string[]): number => (snapTruth.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE ${where}`).get(...params) as { n: number }).n;
        const onSnap = async (method: string, url: string, body?: unknown) => {
          const res = await srv.call(method, url, body, { PgrSelectedInstance: snapId }, srv.routing);
          expect(res.body?.[0]?.status_code, res.text).toBe(200);
          return res.body[0].data;
        };
        const expectSnapTotalsTrue = async (step: string) => {
          const v2 = await onSnap('POST', `${I}/search`, search({ limit: 1, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] }));
          expect(v2.total, `${step}: v2 search`).toBe(n(`status = 'new'`));
          const all = await onSnap('POST', `${I}/search`, search({ limit: 1, offset: 1 }));
          expect(all.total, `${step}: v2 search, everything`).toBe(n('1'));
          const pub = await onSnap('GET', '/data/public/api/v1/incidents?status=in,closed,assigned_customer&per_page=1');
          expect(pub.total, `${step}: public list`).toBe(n(`status IN ('closed', 'assigned_customer')`));
        };
        // The totals are asked (and kept) before the pull changes them.
        await expectSnapTotalsTrue('snapshot');
        const news = (await origin.call('POST', `${I}/search`, search({ limit: 3, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }] }))).body.items as {
          id: string;
          finding_id: string;
          service_asset_id: string;
        }[];
        expect(news).toHaveLength(3);
        const [x, y, z] = news as [(typeof news)[0], (typeof news)[0], (typeof news)[0]];
        expect((await origin.call('PUT', '/data/public/api/v1/incidents/update/status', { id: x.id, status: 'closed' })).status).toBe(200);
        for (const status of ['new', 'assigned_customer']) {
          expect((await origin.call('POST', `${I}/create`, { status, risklevel: 7, title: 'pulled', finding_id: y.finding_id, service_asset_id: y.service_asset_id })).status).toBe(201);
        }
        expect((await origin.call('DELETE', `${I}/${z.id}`)).status).toBe(200);
        const before = n('1');
        const pulled = await srv.call('POST', '/console/v1/sync/Totals/pull?wait=1');
        expect(pulled.status, pulled.text).toBe(200);
        // The pull changed every total asked: two incidents came, one went, one was closed.
        expect(n('1')).toBe(before + 1);
        expect(n(`id = ? AND status = 'closed'`, x.id)).toBe(1);
        expect(n('id = ?', z.id)).toBe(0);
        await expectSnapTotalsTrue('sync pull');
      } finally {
        snapTruth.close();
      }
    } finally {
      await origin.stop();
    }
  });
});
