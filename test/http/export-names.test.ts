// Exports with names beside ids (with_names): the asset, finding type, owner and group the
// console shows, as columns right after their ids, equal to what the API answers for them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
});

afterAll(async () => {
  await srv?.stop();
});

async function exportText(body: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${srv.main}/console/v1/export`, { method: 'POST', headers: { PgrApiKey: TEST_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status, await r.clone().text().then((t) => t.slice(0, 300))).toBe(200);
  // Named after the resource asked for, with or without names.
  expect(r.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${body.resource}-\\d{8}T\\d{6}Z\\.${body.format}"$`));
  return r.text();
}

type Public = { id: string; service_asset_name: string | null; user_short_name: string | null; group_name: string | null; finding_id: string | null };

/** What the API says each incident's names are (the public list carries three; finding types by v2). */
async function namesByIncident(): Promise<Map<string, { asset: string; finding: string; user: string; group: string }>> {
  const pub = await srv.call('GET', '/data/public/api/v1/incidents?per_page=1000');
  const findings = await srv.call('POST', '/cruddy/v2/findings/search', { include_fields: ['id', 'title'], exclude_fields: [], filters: [], ordering: [], virtual_search: { value: '', strict: false }, extension_params: { chidlrens_all: false, parents_all: false }, relations: [], limit: 10000, offset: 0 });
  const titles = new Map((findings.body.items as { id: string; title: string }[]).map((f) => [f.id, f.title]));
  return new Map(
    (pub.body.objects as Public[]).map((o) => [o.id, { asset: o.service_asset_name ?? '', finding: o.finding_id ? (titles.get(o.finding_id) ?? '') : '', user: o.user_short_name ?? '', group: o.group_name ?? '' }]),
  );
}

describe('with_names', () => {
  it('CSV of incidents: each name right after its id, equal to the API’s names', async () => {
    const columns = ['id', 'display_id', 'service_asset_id', 'finding_id', 'user_id', 'group_id', 'status'];
    const plain = parseCsv((await exportText({ resource: 'service_asset_findings', format: 'csv', columns, bom: false })).trimEnd());
    expect(plain[0]).toEqual(columns);
    const rows = parseCsv((await exportText({ resource: 'service_asset_findings', format: 'csv', columns, bom: false, with_names: true })).trimEnd());
    expect(rows[0]).toEqual(['id', 'display_id', 'service_asset_id', 'service_asset_name', 'finding_id', 'finding_title', 'user_id', 'user_short_name', 'group_id', 'group_name', 'status']);
    expect(rows.length).toBe(plain.length);
    const names = await namesByIncident();
    let users = 0;
    let groups = 0;
    for (const r of rows.slice(1)) {
      const n = names.get(r[0]!)!;
      expect(r[3], 'service_asset_name').toBe(n.asset);
      expect(r[5], 'finding_title').toBe(n.finding);
      expect(r[7], 'user_short_name').toBe(n.user);
      expect(r[9], 'group_name').toBe(n.group);
      if (r[2]) expect(r[3]).not.toBe('');
      if (r[7]) users++;
      if (r[9]) groups++;
    }
    // The demo data names owners and groups: the columns are not just empty.
    expect(users).toBeGreaterThan(0);
    expect(groups).toBeGreaterThan(0);
  });

  it('every column by default, NDJSON, the public list and the link carry the names too', async () => {
    const all = parseCsv((await exportText({ resource: 'service_asset_findings', format: 'csv', bom: false, with_names: true, search: { limit: 3 } })).trimEnd());
    const head = all[0]!;
    for (const [id, name] of [
      ['service_asset_id', 'service_asset_name'],
      ['finding_id', 'finding_title'],
      ['user_id', 'user_short_name'],
      ['group_id', 'group_name'],
      ['acknowledged_by', 'acknowledged_by_short_name'],
    ] as const) {
      expect(head.indexOf(name), name).toBe(head.indexOf(id) + 1);
    }
    const names = await namesByIncident();
    const nd = (await exportText({ resource: 'service_asset_findings', format: 'ndjson', with_names: true }))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const rec of nd) {
      const n = names.get(rec.id as string)!;
      expect([rec.service_asset_name ?? '', rec.finding_title ?? '', rec.user_short_name ?? '', rec.group_name ?? '']).toEqual([n.asset, n.finding, n.user, n.group]);
    }
    // The public incident already has three of them: they move next to their ids.
    const pub = parseCsv((await exportText({ resource: 'incidents', format: 'csv', bom: false, query: 'per_page=2', columns: ['display_id', 'service_asset_id', 'group_id', 'finding_id'], with_names: true })).trimEnd());
    expect(pub[0]).toEqual(['display_id', 'service_asset_id', 'service_asset_name', 'group_id', 'group_name', 'finding_id', 'finding_title']);
    const link = await fetch(`${srv.main}/console/v1/export?resource=service_asset_findings&format=csv&columns=display_id,user_id&with_names=1&bom=0`, { headers: { PgrApiKey: TEST_KEY } });
    expect((await link.text()).split('\n')[0]).toBe('display_id,user_id,user_short_name');
  });

  it('is declared in the contract and checked like any other option', async () => {
    const doc = await srv.call('GET', '/openapi.json');
    expect(JSON.stringify(doc.body.components.schemas.ExportRequest)).toContain('with_names');
    const bad = await srv.call('POST', '/console/v1/export', { resource: 'service_asset_findings', format: 'csv', with_names: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe(400);
    // A name column asked for without names is unknown.
    const unknown = await srv.call('POST', '/console/v1/export', { resource: 'service_asset_findings', format: 'csv', columns: ['group_name'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('unknown column: group_name');
  });
});
