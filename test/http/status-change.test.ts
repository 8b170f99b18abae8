// A status change with its reason is one operation: POST /console/v1/incidents/status sets the
// status, makes the status-change row and keeps the reason as a message linked to that row, in
// one request and one transaction (a savepoint per incident). Every answer here is checked
// against /openapi.json by the test server's caller.
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
const USER = '0f4c1c1e-8a55-4f7e-9d0b-6c1e2b3a4d5f';
const URL_ = '/console/v1/incidents/status';

async function incidents(n: number, status: string): Promise<Record<string, any>[]> {
  const res = await s.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: status }], ordering: [{ field: 'display_id', direction: 'asc' }], limit: n }));
  expect(res.status).toBe(200);
  return res.body.items;
}
const statusRows = async (id: string) =>
  (await s.call('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }], ordering: [{ field: 'created_at', direction: 'desc' }], limit: 500 }))).body.items as Record<string, any>[];
const messagesOf = async (id: string) =>
  (await s.call('POST', '/cruddy/v2/messages/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }], limit: 500 }))).body.items as Record<string, any>[];
const get = async (id: string) => (await s.call('GET', `/cruddy/v2/service_asset_findings/${id}?relations=`)).body;

beforeAll(async () => {
  s = await startTestServer({ seed: 'demo' });
}, 120_000);
afterAll(async () => {
  await s?.stop();
});

describe('POST /console/v1/incidents/status', () => {
  it('sets the status and links the reason to the new status-change row, in one request', async () => {
    const [a, b] = await incidents(2, 'new');
    const res = await s.call('POST', URL_, { ids: [a!.id, b!.id], status: 'assigned_customer', note: { subject: 'Взято в работу', body: 'проверяем' } }, { 'Pgr-User-Id': USER });
    expect(res.status, res.text).toBe(200);
    expect(res.body.changed).toBe(2);
    for (const [i, inc] of [a!, b!].entries()) {
      const r = res.body.results[i];
      expect(r).toMatchObject({ id: inc.id, error_code: 0 });
      const [newest] = await statusRows(inc.id);
      expect(newest).toMatchObject({ id: r.status_change_id, status: 'assigned_customer', previous_status: 'new', user_id: USER });
      const msg = (await messagesOf(inc.id)).find((m) => m.id === r.message_id);
      expect(msg).toMatchObject({ subject: 'Взято в работу', body: 'проверяем', service_asset_finding_status_change_id: r.status_change_id, automated: false, sender_id: USER });
      expect((await get(inc.id)).status).toBe('assigned_customer');
    }
  });

  it('without a note: the status and its row, no message', async () => {
    const [a] = await incidents(1, 'new');
    const before = (await messagesOf(a!.id)).length;
    const res = await s.call('POST', URL_, { ids: [a!.id], status: 'assigned_customer' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results[0]).toMatchObject({ error_code: 0, message_id: null });
    expect(res.body.results[0].status_change_id).toEqual((await statusRows(a!.id))[0]!.id);
    expect((await messagesOf(a!.id)).length).toBe(before);
  });

  it('an unknown incident is 11003 and the others are changed', async () => {
    const [a] = await incidents(1, 'new');
    const missing = '7d1e0f9a-1111-4222-8333-944455556666';
    const res = await s.call('POST', URL_, { ids: [missing, a!.id], status: 'closed', note: { subject: 'закрыто' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([
      { id: missing, error_code: 11003, status_change_id: null, message_id: null },
      expect.objectContaining({ id: a!.id, error_code: 0 }),
    ]);
    expect(res.body.changed).toBe(1);
    expect((await get(a!.id)).status).toBe('closed');
    const msgs = await messagesOf(missing);
    expect(msgs).toEqual([]);
  });

  it('the status an incident already has: no new row, the note kept unlinked', async () => {
    const [a] = await incidents(1, 'new');
    const rows = (await statusRows(a!.id)).length;
    const res = await s.call('POST', URL_, { ids: [a!.id], status: 'new', note: { subject: 'оставлено новым', body: 'нет данных' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.changed).toBe(0);
    expect(res.body.results[0]).toMatchObject({ error_code: 0, status_change_id: null });
    expect((await statusRows(a!.id)).length).toBe(rows);
    const msg = (await messagesOf(a!.id)).find((m) => m.id === res.body.results[0].message_id);
    expect(msg).toMatchObject({ subject: 'оставлено новым', body: 'нет данных', service_asset_finding_status_change_id: null });
  });

  it('a message that cannot be written takes back that incident’s status change only', async () => {
    const [a, b] = await incidents(2, 'new');
    const rowsA = (await statusRows(a!.id)).length;
    // Another connection refuses messages of incident a (the server's statements see the new schema).
    const side = new Database(path.join(s.dir, 'test.sqlite'));
    side.exec(`CREATE TRIGGER refuse_a BEFORE INSERT ON messages WHEN NEW.service_asset_finding_id = '${a!.id}' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    try {
      const res = await s.call('POST', URL_, { ids: [a!.id, b!.id], status: 'assigned_customer', note: { subject: 'в работе' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.results[0]).toEqual({ id: a!.id, error_code: 11002, status_change_id: null, message_id: null });
      expect(res.body.results[1]).toMatchObject({ id: b!.id, error_code: 0 });
      expect(res.body.changed).toBe(1);
      expect((await get(a!.id)).status).toBe('new');
      expect((await statusRows(a!.id)).length).toBe(rowsA);
      expect((await get(b!.id)).status).toBe('assigned_customer');
    } finally {
      side.exec('DROP TRIGGER refuse_a');
      side.close();
    }
  });

  it('bad requests are 400 with the reason, and change nothing', async () => {
    const [a] = await incidents(1, 'new');
    const cases: [unknown, RegExp][] = [
      [{ ids: [], status: 'closed' }, /ids should not be empty/],
      [{ ids: Array.from({ length: 1001 }, () => a!.id), status: 'closed' }, /at most 1000/],
      [{ ids: ['not-a-uuid'], status: 'closed' }, /uuid/],
      [{ ids: [a!.id], status: 'done' }, /status/],
      [{ ids: [a!.id], status: 'closed', note: { subject: '   ' } }, /note.subject should not be empty/],
      [{ ids: [a!.id], status: 'closed', colour: 'red' }, /colour/],
      [{ status: 'closed' }, /ids/],
    ];
    for (const [body, text] of cases) {
      const res = await s.call('POST', URL_, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(text), error_code: expect.any(Number) });
    }
    expect((await get(a!.id)).status).toBe('new');
    const noKey = await s.call('POST', URL_, { ids: [a!.id], status: 'closed' }, { PgrApiKey: '' });
    expect(noKey.status).toBe(401);
  });

  it('is served per instance through the routing port', async () => {
    const [a] = await incidents(1, 'new');
    const list = (await s.call('GET', '/console/v1/instances')).body as { id: string; kind: string }[];
    const main = list.find((i) => i.kind === 'main' || i.kind === 'local')!;
    const res = await s.call('POST', URL_, { ids: [a!.id], status: 'assigned_customer', note: { subject: 'через маршрутизацию' } }, { PgrSelectedInstance: main.id }, s.routing);
    expect(res.status, res.text).toBe(200);
    expect(res.body[0].status_code).toBe(200);
    expect(res.body[0].data.results[0]).toMatchObject({ id: a!.id, error_code: 0 });
    expect(res.body[0].data.results[0].status_change_id).toBe((await statusRows(a!.id))[0]!.id);
  });
});
