// The counts kept per owner (user_id) and per responsible group (group_id), by day, status and
// risk band, answer the console's owner and group filters (chips, charts, totals) and the
// groupings by owner, group and status. After every kind of write — creating, assigning,
// unassigning, moving to another group, bulk updates, deleting, an import through the server and
// one by the CLI in another process — the kept tables must equal a recount of the incidents, and
// every answer read from them must equal a plain COUNT of the incidents, read here from the
// database file on a connection of the test's own.
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
const BAND = riskBandSql('risklevel');

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  truth = new Database(srv.db, { readonly: true });
});

afterAll(async () => {
  truth?.close();
  await srv?.stop();
});

const call = (method: string, url: string, body?: unknown) => srv.call(method, url, body);
const rows = <T>(sql: string, ...params: unknown[]) => truth.prepare(sql).all(...params) as T[];
const count = (where: string, ...params: unknown[]) => (truth.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE ${where}`).get(...params) as { n: number }).n;

/** The most frequent owners and groups (and so the ones whose counts change most). */
function keys(column: 'user_id' | 'group_id', n: number): string[] {
  return rows<{ v: string }>(`SELECT ${column} AS v FROM service_asset_findings WHERE ${column} IS NOT NULL GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT ?`, n).map((r) => r.v);
}

/** A range with ends inside days: from a quarter to three quarters of the incidents by creation time. */
function rangeOf(): { lo: string; hi: string } {
  const stamps = rows<{ c: string }>(`SELECT created_at AS c FROM service_asset_findings ORDER BY created_at`).map((r) => r.c);
  return { lo: stamps[Math.floor(stamps.length / 4)]!, hi: stamps[Math.floor((stamps.length * 3) / 4)]! };
}

async function expectKeptTrue(step: string): Promise<void> {
  // The kept tables themselves: a recount of the incidents, no row at zero.
  for (const [table, column] of [
    ['incident_owner_day_counts', 'user_id'],
    ['incident_group_day_counts', 'group_id'],
  ] as const) {
    const kept = rows<{ k: string; day: string; status: string; risk: string; n: number }>(`SELECT k, day, status, risk, n FROM ${table} ORDER BY 1, 2, 3, 4`);
    const recount = rows<{ k: string; day: string; status: string; risk: string; n: number }>(
      `SELECT CASE WHEN ${column} IS NULL THEN '' ELSE '=' || ${column} END AS k, substr(created_at, 1, 10) AS day, status, ${BAND} AS risk, COUNT(*) AS n FROM service_asset_findings GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    );
    expect(kept, `${step}: ${table} equals a recount`).toEqual(recount);
  }
  // The per-finding-type and per-asset tables (by status and band, no day).
  for (const [table, column] of [
    ['incident_finding_counts', 'finding_id'],
    ['incident_asset_counts', 'service_asset_id'],
  ] as const) {
    const kept = rows<{ k: string; status: string; risk: string; n: number }>(`SELECT k, status, risk, n FROM ${table} ORDER BY 1, 2, 3`);
    const recount = rows<{ k: string; status: string; risk: string; n: number }>(
      `SELECT CASE WHEN ${column} IS NULL THEN '' ELSE '=' || ${column} END AS k, status, ${BAND} AS risk, COUNT(*) AS n FROM service_asset_findings GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    expect(kept.length, `${step}: ${table} has rows`).toBeGreaterThan(0);
    expect(kept, `${step}: ${table} equals a recount`).toEqual(recount);
  }

  const [me, person] = keys('user_id', 2) as [string, string];
  const groups = keys('group_id', 3);
  const { lo, hi } = rangeOf();
  const finding = rows<{ v: string }>(`SELECT finding_id AS v FROM service_asset_findings WHERE finding_id IS NOT NULL GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1`)[0]!.v;
  const assets = rows<{ v: string }>(`SELECT service_asset_id AS v FROM service_asset_findings WHERE service_asset_id IS NOT NULL GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 2`).map((r) => r.v);
  // Aggregates (the console's chips and charts) of owner and group conditions, alone and in a range.
  const conditions: { name: string; qs: string; where: string; params: unknown[] }[] = [
    { name: 'owner', qs: `user_id=eq,${me}`, where: 'user_id = ?', params: [me] },
    { name: 'no owner', qs: 'user_id=isnull', where: 'user_id IS NULL', params: [] },
    { name: 'groups', qs: `group_id=in,${groups.join(',')}`, where: `group_id IN (${groups.map(() => '?').join(', ')})`, params: groups },
    { name: 'a group', qs: `group_id=eq,${groups[2]}`, where: 'group_id = ?', params: [groups[2]] },
    { name: 'no group', qs: 'group_id=isnull', where: 'group_id IS NULL', params: [] },
    { name: 'stored band', qs: 'risk=eq,critical', where: `risk = 'critical'`, params: [] },
    { name: 'finding type + band', qs: `finding_id=eq,${finding}&risk=eq,critical`, where: `finding_id = ? AND risk = 'critical'`, params: [finding] },
    { name: 'stored bands + owner', qs: `risk=in,low,high&user_id=eq,${me}`, where: `risk IN ('low', 'high') AND user_id = ?`, params: [me] },
  ];
  for (const c of conditions) {
    for (const range of [
      { qs: '', where: '', params: [] as unknown[] },
      { qs: `&created_at=gt,${lo}&created_at=lt,${hi}`, where: ' AND created_at > ? AND created_at < ?', params: [lo, hi] },
    ]) {
      const truthRows = rows<{ day: string; status: string; risk: string; n: number }>(
        `SELECT substr(created_at, 1, 10) AS day, status, ${BAND} AS risk, COUNT(*) AS n FROM service_asset_findings WHERE ${c.where}${range.where} GROUP BY 1, 2, 3`,
        ...c.params,
        ...range.params,
      );
      const res = await call('GET', `${STATS}?${c.qs}${range.qs}&bucket=day`);
      expect(res.status, res.text).toBe(200);
      const what = `${step}: stats of ${c.name}${range.qs ? ' in a range' : ''}`;
      expect(res.body.total, what).toBe(truthRows.reduce((a, r) => a + r.n, 0));
      expect(new Map((res.body.over_time as { bucket: string; status: string; risk: string; count: number }[]).map((o) => [`${o.bucket}|${o.status}|${o.risk}`, o.count])), what).toEqual(
        new Map(truthRows.map((r) => [`${r.day}|${r.status}|${r.risk}`, r.n])),
      );
    }
  }

  // The v2 search's total (pages of one row) with statuses, risk bands (as the console sends
  // them: risklevel ranges at the bands' bounds) and ranges besides the owner or group.
  const critical = { field: 'risklevel', filter_type: 'range', value: [9, null] };
  const belowHigh = { field: 'risklevel', filter_type: 'range', value: [7, null], negation: true };
  const aboveNone = { field: 'risklevel', filter_type: 'range', value: [null, 0], negation: true };
  const news = { field: 'status', filter_type: 'intersection', value: ['new', 'assigned_customer'] };
  const storedCritical = { field: 'risk', filter_type: 'equal', value: 'critical' };
  const storedApart = { field: 'risk', filter_type: 'intersection', value: ['low', 'high'] };
  const inRange = { field: 'created_at', filter_type: 'range', value: [lo, hi] };
  const searches: { name: string; filters: unknown[]; where: string; params: unknown[] }[] = [
    { name: 'owner', filters: [{ field: 'user_id', filter_type: 'equal', value: person }], where: 'user_id = ?', params: [person] },
    { name: 'no owner + statuses', filters: [news, { field: 'user_id', filter_type: 'exists', value: null }], where: `user_id IS NULL AND status IN ('new', 'assigned_customer')`, params: [] },
    { name: 'owner + critical', filters: [critical, { field: 'user_id', filter_type: 'equal', value: me }], where: 'user_id = ? AND risklevel >= 9', params: [me] },
    {
      name: 'groups + low..medium + range',
      filters: [aboveNone, belowHigh, inRange, { field: 'group_id', filter_type: 'intersection', value: groups }],
      where: `risklevel > 0 AND risklevel < 7 AND created_at >= ? AND created_at <= ? AND group_id IN (${groups.map(() => '?').join(', ')})`,
      params: [lo, hi, ...groups],
    },
    { name: 'critical + statuses', filters: [critical, news], where: `risklevel >= 9 AND status IN ('new', 'assigned_customer')`, params: [] },
    // The stored band (risk), as the console sends bands that are not adjacent and scripts send a band.
    { name: 'stored band', filters: [storedCritical], where: `risk = 'critical'`, params: [] },
    { name: 'stored band + statuses', filters: [news, storedCritical], where: `risk = 'critical' AND status IN ('new', 'assigned_customer')`, params: [] },
    { name: 'stored bands + range', filters: [storedApart, inRange], where: `risk IN ('low', 'high') AND created_at >= ? AND created_at <= ?`, params: [lo, hi] },
    { name: 'stored band + owner', filters: [storedCritical, { field: 'user_id', filter_type: 'equal', value: me }], where: `risk = 'critical' AND user_id = ?`, params: [me] },
    { name: 'stored bands + no owner', filters: [storedApart, { field: 'user_id', filter_type: 'exists', value: null }], where: `risk IN ('low', 'high') AND user_id IS NULL`, params: [] },
    {
      name: 'stored band + groups + risklevel bound',
      filters: [storedApart, belowHigh, { field: 'group_id', filter_type: 'intersection', value: groups }],
      where: `risk IN ('low', 'high') AND risklevel < 7 AND group_id IN (${groups.map(() => '?').join(', ')})`,
      params: groups,
    },
    { name: 'everything', filters: [], where: '1', params: [] },
    // A finding type or an asset with statuses and bands: the per-value counts.
    { name: 'finding type + critical', filters: [critical, { field: 'finding_id', filter_type: 'equal', value: finding }], where: 'risklevel >= 9 AND finding_id = ?', params: [finding] },
    { name: 'finding type + stored band + statuses', filters: [storedApart, news, { field: 'finding_id', filter_type: 'equal', value: finding }], where: `risk IN ('low', 'high') AND status IN ('new', 'assigned_customer') AND finding_id = ?`, params: [finding] },
    { name: 'assets + band', filters: [aboveNone, belowHigh, { field: 'service_asset_id', filter_type: 'intersection', value: assets }], where: `risklevel > 0 AND risklevel < 7 AND service_asset_id IN (?, ?)`, params: assets },
    { name: 'no asset + statuses', filters: [news, { field: 'service_asset_id', filter_type: 'exists', value: null }], where: `service_asset_id IS NULL AND status IN ('new', 'assigned_customer')`, params: [] },
    // Not from them (a range besides): counted.
    { name: 'finding type + range', filters: [inRange, { field: 'finding_id', filter_type: 'equal', value: finding }], where: 'created_at >= ? AND created_at <= ? AND finding_id = ?', params: [lo, hi, finding] },
  ];
  for (const s of searches) {
    const res = await call('POST', `${I}/search`, search({ limit: 1, filters: s.filters }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.total, `${step}: v2 search total, ${s.name}`).toBe(count(s.where, ...s.params));
  }

  // Groupings by owner, group and status, with and without conditions, in the group operation's order.
  const groupings: { field: string; filters: unknown[]; where: string; params: unknown[] }[] = [
    { field: 'user_id', filters: [], where: '1', params: [] },
    { field: 'group_id', filters: [news, inRange], where: `status IN ('new', 'assigned_customer') AND created_at >= ? AND created_at <= ?`, params: [lo, hi] },
    { field: 'status', filters: [{ field: 'user_id', filter_type: 'exists', value: null }, critical], where: 'user_id IS NULL AND risklevel >= 9', params: [] },
    { field: 'user_id', filters: [{ field: 'user_id', filter_type: 'intersection', value: [me, person] }], where: 'user_id IN (?, ?)', params: [me, person] },
    { field: 'finding_id', filters: [], where: '1', params: [] },
    { field: 'finding_id', filters: [news], where: `status IN ('new', 'assigned_customer')`, params: [] },
    { field: 'service_asset_id', filters: [critical, news], where: `risklevel >= 9 AND status IN ('new', 'assigned_customer')`, params: [] },
    { field: 'service_asset_id', filters: [aboveNone, belowHigh], where: 'risklevel > 0 AND risklevel < 7', params: [] },
    { field: 'status', filters: [storedCritical, { field: 'group_id', filter_type: 'intersection', value: groups }], where: `risk = 'critical' AND group_id IN (${groups.map(() => '?').join(', ')})`, params: groups },
    { field: 'finding_id', filters: [storedApart, news], where: `risk IN ('low', 'high') AND status IN ('new', 'assigned_customer')`, params: [] },
    { field: 'status', filters: [critical, { field: 'finding_id', filter_type: 'equal', value: finding }], where: 'risklevel >= 9 AND finding_id = ?', params: [finding] },
    { field: 'service_asset_id', filters: [news, { field: 'service_asset_id', filter_type: 'intersection', value: assets }], where: `status IN ('new', 'assigned_customer') AND service_asset_id IN (?, ?)`, params: assets },
    { field: 'user_id', filters: [{ field: 'finding_id', filter_type: 'equal', value: finding }], where: 'finding_id = ?', params: [finding] },
    { field: 'finding_id', filters: [{ field: 'service_asset_id', filter_type: 'intersection', value: assets }], where: 'service_asset_id IN (?, ?)', params: assets },
    // Not from the kept counts (a range): counted, in the same order.
    { field: 'finding_id', filters: [inRange], where: 'created_at >= ? AND created_at <= ?', params: [lo, hi] },
  ];
  for (const g of groupings) {
    const res = await call('POST', `${I}/group`, { group_field: g.field, filters: g.filters });
    expect(res.status, res.text).toBe(200);
    const want = rows<{ value: string | null; count: number }>(
      `SELECT ${g.field} AS value, COUNT(*) AS count FROM service_asset_findings WHERE ${g.where} GROUP BY 1 ORDER BY count DESC, value ASC`,
      ...g.params,
    );
    expect(res.body.items, `${step}: group by ${g.field}`).toEqual(want);
  }
}

async function ids(where: string, n: number): Promise<string[]> {
  return rows<{ id: string }>(`SELECT id FROM service_asset_findings WHERE ${where} ORDER BY _rid LIMIT ?`, n).map((r) => r.id);
}

describe('counts kept per owner, per group, per finding type and per asset', () => {
  it('equal a recount after creates, assignments, group moves, bulk updates, deletes and imports', async () => {
    await expectKeptTrue('start');
    const ok = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);
    const r = rows<{ service_asset_id: string; finding_id: string }>(`SELECT service_asset_id, finding_id FROM service_asset_findings WHERE service_asset_id IS NOT NULL AND finding_id IS NOT NULL LIMIT 1`)[0]!;
    const [me, person] = keys('user_id', 2) as [string, string];
    const [g1, g2] = keys('group_id', 2) as [string, string];

    ok(await call('POST', `${I}/create`, { status: 'new', risklevel: 9.1, title: 'owned', user_id: person, group_id: g2, ...r }), 201);
    ok(await call('POST', `${I}/create`, { status: 'new', risklevel: 2, title: 'nobody', ...r }), 201);
    await expectKeptTrue('create');

    const [a, b, c, d] = await ids('user_id IS NULL', 4);
    ok(await call('PUT', `${I}/update`, { id: a, user_id: me }));
    await expectKeptTrue('assign');
    const [e] = await ids('user_id IS NOT NULL', 1);
    ok(await call('PUT', `${I}/update`, { id: e, user_id: null }));
    await expectKeptTrue('unassign');
    const [f] = await ids(`group_id = '${g1}'`, 1);
    ok(await call('PUT', `${I}/update`, { id: f, group_id: g2 }));
    await expectKeptTrue('move to another group');
    ok(await call('PUT', `${I}/update`, { id: f, title: 'only the title' }));
    ok(await call('PUT', `${I}/update`, { id: f, risklevel: 9.9, status: 'closed' }));
    await expectKeptTrue('update of other fields, then of status and risk');
    const other = rows<{ service_asset_id: string; finding_id: string }>(
      `SELECT service_asset_id, finding_id FROM service_asset_findings WHERE service_asset_id <> ? AND finding_id <> ? LIMIT 1`,
      r.service_asset_id,
      r.finding_id,
    )[0]!;
    ok(await call('PUT', `${I}/update`, { id: f, finding_id: other.finding_id, service_asset_id: other.service_asset_id }));
    ok(await call('PUT', `${I}/update`, { id: e, finding_id: other.finding_id }));
    await expectKeptTrue('move to another finding type and asset');

    ok(await call('POST', `${I}/mass_update`, { ids: [b, c], field: 'user_id', value: person }));
    ok(await call('POST', `${I}/mass_update`, { ids: [d], fields: { group_id: null, status: 'assigned_customer' } }));
    ok(await call('POST', `${I}/mass_update`, { ids: [a, b], field: 'service_asset_id', value: other.service_asset_id }));
    await expectKeptTrue('mass_update');

    // A stored band given apart from risklevel: answers with the band counted, then kept again
    // once the band follows risklevel.
    const [k] = await ids(`risklevel >= 9 AND user_id = '${me}'`, 1);
    ok(await call('PUT', `${I}/update`, { id: k, risk: 'low' }));
    expect(count(`id = ? AND risk = 'low' AND risklevel >= 9`, k), 'the band is stored as given').toBe(1);
    await expectKeptTrue('a stored band apart from risklevel');
    ok(await call('PUT', `${I}/update`, { id: k, risklevel: 9.5 }));
    expect(count(`id = ? AND risk = 'critical'`, k), 'the band follows risklevel again').toBe(1);
    await expectKeptTrue('the stored band following risklevel again');

    const [h, i, j] = await ids(`user_id = '${person}'`, 3);
    ok(await call('DELETE', `${I}/${h}`));
    ok(await call('POST', `${I}/mass_delete`, { ids: [i, j] }));
    await expectKeptTrue('delete');

    const records = Array.from({ length: 20 }, (_, n) => ({
      id: crypto.randomUUID(),
      status: n % 2 ? 'new' : 'closed',
      risklevel: (n * 1.3) % 10,
      title: `imported ${n}`,
      user_id: n % 3 === 0 ? null : n % 3 === 1 ? me : `imported-owner-${n % 4}`,
      group_id: n % 5 === 0 ? null : n % 2 ? g1 : g2,
      created_at: `2026-0${1 + (n % 6)}-1${n % 10}T0${n % 10}:00:00.000000Z`,
      updated_at: '2026-07-01T00:00:00.000000Z',
      ...r,
    }));
    const imp = await fetch(`${srv.main}/console/v1/import?wait=1&kind=service_asset_findings&filename=owned.ndjson`, {
      method: 'POST',
      headers: { PgrApiKey: TEST_KEY, 'content-type': 'application/x-ndjson' },
      body: records.map((x) => JSON.stringify(x)).join('\n'),
    });
    expect(imp.status, await imp.clone().text()).toBe(200);
    await expectKeptTrue('import through the server');

    // The same records again with other owners and groups (an import that updates), and new ones.
    const file = path.join(srv.dir, 'owned.ndjson');
    const again = [...records.map((x) => ({ ...x, user_id: x.user_id === null ? person : null, group_id: g1 })), ...records.map((x) => ({ ...x, id: crypto.randomUUID() }))];
    fs.writeFileSync(file, again.map((x) => JSON.stringify(x)).join('\n'));
    const cli = await runCli(['import', file, '--db', srv.db, '--kind', 'service_asset_findings']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(count(`id = ? AND group_id = ?`, records[0]!.id, g1), 'the CLI import updated the records').toBe(1);
    await expectKeptTrue('import by the CLI in another process');
  });
});
