// A status change with its reason on a remote platform whose clock is five minutes behind this
// machine's: the typed client links each message to the status-change row the platform made for
// that change, by the rows it answered before and after, never by this machine's clock.
// The platform is a real server in a child process whose clock is shifted (clock-offset.mjs).
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type RadarClient } from '../../src-shared/client/index';
import { serve, type ServeProcess } from '../helpers/cli';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const OFFSET_MS = -5 * 60_000;
const REMOTE_KEY = 'clock-behind-key-0123456789';
const PRELOAD = path.resolve(__dirname, '../helpers/clock-offset.mjs');

let platform: ServeProcess;
let local: TestServer;
let client: RadarClient;
let remoteId: string;
let dir: string;

const direct = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${platform.ready.main}${p}`, { method, headers: { PgrApiKey: REMOTE_KEY, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const newIncidents = async (n: number) => (await direct('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }], limit: n }))).body.items as Record<string, any>[];
const rowsOf = async (id: string) =>
  (await direct('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }], ordering: [{ field: 'created_at', direction: 'desc' }], limit: 500 }))).body.items as Record<string, any>[];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-clock-'));
  platform = await serve(['--db', path.join(dir, 'platform.sqlite'), '--port', '0', '--routing-port', '0', '--seed', 'demo', '--api-key', REMOTE_KEY], {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PRELOAD}`.trim(),
    RADAR_TEST_CLOCK_OFFSET_MS: String(OFFSET_MS),
  }, 120_000);
  local = await startTestServer();
  const add = await local.call('POST', '/console/v1/instances', { kind: 'remote', name: 'Площадка (часы отстают)', url: platform.ready.main, api_key: REMOTE_KEY });
  expect(add.status, add.text).toBe(201);
  remoteId = add.body.id;
  client = createClient({ url: local.main, apiKey: TEST_KEY });
}, 180_000);

afterAll(async () => {
  await local?.stop();
  await platform?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a status change with its reason on a platform whose clock is behind', () => {
  it('the platform’s rows really are five minutes behind this machine, so a clock-based guess finds none', async () => {
    const [a] = await newIncidents(1);
    const sentAt = new Date(Date.now() - 1000).toISOString();
    const put = await direct('PUT', '/data/public/api/v1/incidents/update/status', { id: a!.id, status: 'feedback_required' });
    expect(put.status).toBe(200);
    const [row] = await rowsOf(a!.id);
    const behind = Date.parse(row!.created_at) - Date.now();
    expect(behind).toBeLessThan(-4 * 60_000);
    expect(behind).toBeGreaterThan(-6 * 60_000);
    // The rows after "this machine's now minus one second", as the console once searched: none.
    const guessed = (await direct('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({
      filters: [
        { field: 'service_asset_finding_id', filter_type: 'equal', value: a!.id },
        { field: 'created_at', filter_type: 'range', value: [sentAt, null] },
      ],
    }))).body.items;
    expect(guessed).toEqual([]);
  });

  it('client.instance(remote).incidents.setStatus links each message to its change’s row', async () => {
    const incs = await newIncidents(3);
    const ids = incs.map((x) => x.id);
    const before = new Map(await Promise.all(ids.map(async (id) => [id, (await rowsOf(id)).map((r) => r.id)] as const)));
    const answer = await client.instance(remoteId).incidents.setStatus(ids, 'assigned_customer', { subject: 'Передано заказчику', body: 'ждём ответа' });
    expect(answer.changed).toBe(3);
    for (const r of answer.results) {
      expect(r.error_code).toBe(0);
      const made = (await rowsOf(r.id)).filter((x) => !before.get(r.id)!.includes(x.id));
      expect(made).toEqual([expect.objectContaining({ status: 'assigned_customer', previous_status: 'new' })]);
      expect(r.status_change_id).toBe(made[0]!.id);
      const msg = await direct('GET', `/cruddy/v2/messages/${r.message_id}?relations=`);
      expect(msg.body).toMatchObject({ subject: 'Передано заказчику', body: 'ждём ответа', service_asset_finding_id: r.id, service_asset_finding_status_change_id: made[0]!.id });
    }
  });

  it('two quick changes of one incident: each message names its own change', async () => {
    const [a] = await newIncidents(1);
    const one = await client.instance(remoteId).incidents.setStatus([a!.id], 'working_customer', { subject: 'В работе у заказчика' });
    const two = await client.instance(remoteId).incidents.setStatus([a!.id], 'verify_close', { subject: 'Проверка закрытия' });
    const rows = await rowsOf(a!.id);
    const first = rows.find((r) => r.status === 'working_customer' && r.previous_status === 'new')!;
    const second = rows.find((r) => r.status === 'verify_close' && r.previous_status === 'working_customer')!;
    expect(one.results[0]!.status_change_id).toBe(first.id);
    expect(two.results[0]!.status_change_id).toBe(second.id);
    expect((await direct('GET', `/cruddy/v2/messages/${two.results[0]!.message_id}?relations=`)).body.service_asset_finding_status_change_id).toBe(second.id);
  });

  it('the main instance takes the same call as one operation', async () => {
    const seeded = await createClient({ url: local.main, apiKey: TEST_KEY }).incidents.setStatus(['7d1e0f9a-1111-4222-8333-944455556666'], 'closed', { subject: 'нет такого' });
    expect(seeded).toEqual({ results: [{ id: '7d1e0f9a-1111-4222-8333-944455556666', error_code: 11003, status_change_id: null, message_id: null }], changed: 0 });
  });
});
