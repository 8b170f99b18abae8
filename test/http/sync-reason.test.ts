// A status change with its reason made in a snapshot reaches the platform whole: push sends the
// status through the public API (so the platform makes its own status-change row) and then the
// message, naming the platform's row for that change, never the copy's. Where the platform made
// no row for the change, the message is sent unlinked with its text and the push says so.
// Over real sockets: the origin is a demo server, the copy a snapshot on a second server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, takeSnapshot, type TestServer } from '../helpers/server';

let origin: TestServer;
let local: TestServer;
let snap: { id: string; name: string };
const NAME = 'Причины';
const SYNC = `/console/v1/sync/${encodeURIComponent(NAME)}`;

const onSnap = (method: string, url: string, body?: unknown) =>
  local.call(method, url, body, { PgrSelectedInstance: snap.id }, local.routing).then((r) => ({ ...r, body: r.body?.[0]?.data, status: r.body?.[0]?.status_code ?? r.status }));
const onOrigin = (method: string, url: string, body?: unknown) => origin.call(method, url, body);
type On = typeof onOrigin;

async function newIncidents(n: number): Promise<Record<string, any>[]> {
  const res = await onOrigin('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'desc' }], limit: n + 40 }));
  // Each case takes incidents no other case took (the list is the origin's, which the cases change).
  const free = (res.body.items as Record<string, any>[]).filter((x) => !taken.has(x.id)).slice(0, n);
  for (const x of free) taken.add(x.id);
  return free;
}
const taken = new Set<string>();
const rowsOf = async (on: On, incident: string) =>
  (await on('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: incident }], ordering: [{ field: 'created_at', direction: 'desc' }], limit: 500 }))).body.items as Record<string, any>[];
const getOn = async (on: On, resource: string, id: string) => (await on('GET', `/cruddy/v2/${resource}/${id}?relations=`)).body;
const setStatus = async (ids: string[], status: string, subject: string) => {
  const res = await onSnap('POST', '/console/v1/incidents/status', { ids, status, note: { subject, body: `${subject}: подробности` } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { results: { id: string; status_change_id: string | null; message_id: string | null; error_code: number }[] };
};
const entries = async () => (await local.call('GET', `${SYNC}/entries?limit=500`)).body as { items: Record<string, any>[]; total: number };
const pushNow = async () => {
  const res = await local.call('POST', `${SYNC}/push?wait=1`, {});
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const pullNow = async () => {
  const res = await local.call('POST', `${SYNC}/pull?wait=1`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};

beforeAll(async () => {
  origin = await startTestServer({ seed: 'demo' });
  local = await startTestServer();
  snap = await takeSnapshot(local, origin, { name: NAME, dbFile: 'reasons.sqlite', perPage: 200 });
}, 120_000);

afterAll(async () => {
  await local?.stop();
  await origin?.stop();
});

describe('push carries the reason of a status change', () => {
  it('the message names the platform’s own row for the change; after a pull the copy does too', async () => {
    const [a] = await newIncidents(1);
    const before = await rowsOf(onOrigin, a!.id);
    const { results } = await setStatus([a!.id], 'closed', 'Ложное срабатывание');
    const local_ = results[0]!;
    expect(local_.status_change_id).toBeTruthy();
    // Two entries in the outbox, written with the change: the status and the message.
    const mine = (await entries()).items.filter((e) => e.record_id === a!.id || e.record_id === local_.message_id);
    expect(mine.map((e) => `${e.resource}:${e.op}:${e.field}`).sort()).toEqual(['messages:create:', 'service_asset_findings:update:status']);

    const summary = await pushNow();
    expect(summary).toMatchObject({ failed: 0, unlinked: 0, conflicts: 0 });
    expect(summary.pushed).toBeGreaterThanOrEqual(2);
    expect((await getOn(onOrigin, 'service_asset_findings', a!.id)).status).toBe('closed');
    const after = await rowsOf(onOrigin, a!.id);
    const made = after.filter((r) => !before.some((b) => b.id === r.id));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ status: 'closed', previous_status: 'new' });
    expect(made[0]!.id).not.toBe(local_.status_change_id);
    const msg = await getOn(onOrigin, 'messages', local_.message_id!);
    expect(msg).toMatchObject({ subject: 'Ложное срабатывание', body: 'Ложное срабатывание: подробности', service_asset_finding_id: a!.id, service_asset_finding_status_change_id: made[0]!.id });

    await pullNow();
    const copied = await getOn(onSnap, 'messages', local_.message_id!);
    expect(copied.service_asset_finding_status_change_id).toBe(made[0]!.id);
    expect((await rowsOf(onSnap, a!.id)).map((r) => r.id).sort()).toEqual(after.map((r) => r.id).sort());
  });

  it('two changes of one incident in one push: the last is linked, the first is sent unlinked and named in the notes', async () => {
    const [a] = await newIncidents(1);
    const before = await rowsOf(onOrigin, a!.id);
    const first = (await setStatus([a!.id], 'assigned_customer', 'Передано заказчику')).results[0]!;
    const second = (await setStatus([a!.id], 'closed', 'Заказчик устранил')).results[0]!;
    const summary = await pushNow();
    expect(summary).toMatchObject({ failed: 0, unlinked: 1, conflicts: 0 });
    expect(summary.notes.join('\n')).toContain(first.message_id);
    const made = (await rowsOf(onOrigin, a!.id)).filter((r) => !before.some((b) => b.id === r.id));
    expect(made).toEqual([expect.objectContaining({ status: 'closed', previous_status: 'new' })]); // one PUT: one row
    expect(await getOn(onOrigin, 'messages', second.message_id!)).toMatchObject({ subject: 'Заказчик устранил', service_asset_finding_status_change_id: made[0]!.id });
    expect(await getOn(onOrigin, 'messages', first.message_id!)).toMatchObject({ subject: 'Передано заказчику', body: 'Передано заказчику: подробности', service_asset_finding_status_change_id: null });
  });

  it('the platform set the status itself meanwhile: the status is already there, the message is sent unlinked', async () => {
    const [a] = await newIncidents(1);
    const mine = (await setStatus([a!.id], 'invalid', 'Дубликат')).results[0]!;
    const put = await onOrigin('PUT', '/data/public/api/v1/incidents/update/status', { id: a!.id, status: 'invalid' });
    expect(put.status, put.text).toBe(200);
    const summary = await pushNow();
    expect(summary).toMatchObject({ failed: 0, unlinked: 1 });
    expect(summary.already).toBeGreaterThanOrEqual(1);
    expect(await getOn(onOrigin, 'messages', mine.message_id!)).toMatchObject({ subject: 'Дубликат', service_asset_finding_status_change_id: null });
    expect((await entries()).items).toEqual([]);
  });
});
