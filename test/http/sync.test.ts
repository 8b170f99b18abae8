// Offline triage that goes back to the platform, over real sockets with two servers: the origin
// (a platform with the demo data) and a console server holding a snapshot of it as an instance.
// Changes made offline reach the origin with one push; fields changed on both sides are
// conflicts, never overwritten; pull brings the origin's changes; deleted records are reported.
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, search, TEST_KEY, takeSnapshot, type TestServer } from '../helpers/server';

let origin: TestServer;
let local: TestServer;
let snap: { id: string; name: string };
let file: string;
const NAME = 'Офлайн';
const SYNC = `/console/v1/sync/${encodeURIComponent(NAME)}`;
const USER = '5b6a8f0e-3a0e-4c5c-9a41-2f1b8f3d9e11';

/** Calls the snapshot instance through the console server's routing (as the console does). */
const onSnap = (method: string, url: string, body?: unknown) => local.call(method, url, body, { PgrSelectedInstance: snap.id }, local.routing).then((r) => ({ ...r, body: r.body?.[0]?.data, status: r.body?.[0]?.status_code ?? r.status }));
const onOrigin = (method: string, url: string, body?: unknown) => origin.call(method, url, body);

async function incidents(n: number, filter: Record<string, unknown>[] = []): Promise<Record<string, any>[]> {
  const res = await onOrigin('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: filter, ordering: [{ field: 'display_id', direction: 'asc' }], limit: n }));
  return res.body.items;
}
const get = async (on: typeof onOrigin, resource: string, id: string) => (await on('GET', `/cruddy/v2/${resource}/${id}?relations=`)).body;
const statusRows = async (id: string) =>
  (await onOrigin('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }], ordering: [{ field: 'created_at', direction: 'asc' }], limit: 100 }))).body.items as Record<string, any>[];
const entries = async (query = '') => (await local.call('GET', `${SYNC}/entries${query}`)).body as { items: Record<string, any>[]; total: number };
const pushNow = async (body: unknown = {}) => {
  const res = await local.call('POST', `${SYNC}/push?wait=1`, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const pullNow = async () => {
  const res = await local.call('POST', `${SYNC}/pull?wait=1`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
/** A record's own fields (the snapshot does not copy correlation rules, so not the link lists). */
const comparable = (rec: Record<string, unknown>) => {
  const { _relations: _r, ...rest } = rec;
  return rest;
};

beforeAll(async () => {
  origin = await startTestServer({ seed: 'demo' });
  local = await startTestServer();
  snap = await takeSnapshot(local, origin, { name: NAME, dbFile: 'snap.sqlite', perPage: 200 });
  file = path.join(local.dir, 'snap.sqlite');
}, 120_000);

afterAll(async () => {
  await local?.stop();
  await origin?.stop();
});

describe('sync with the origin', () => {
  it('lists the snapshot instance with its origin, never its key', async () => {
    const list = await local.call('GET', '/console/v1/sync');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([expect.objectContaining({ id: snap.id, name: NAME, origin_url: origin.main, counts: expect.objectContaining({ total: 0 }) })]);
    const st = await local.call('GET', SYNC);
    expect(st.body.origin).toMatchObject({ url: origin.main, has_key: true, pulled_at: null });
    expect(st.text).not.toContain(TEST_KEY);
    // The main instance is no snapshot.
    const main = await local.call('GET', '/console/v1/sync/Main');
    expect(main.status).toBe(400);
    expect(main.body.error).toMatch(/not a snapshot/);
  });

  it('one push takes a status, a risk, an owner, a note, a message and a custom field value to the origin', async () => {
    const [a] = await incidents(1, [{ field: 'status', filter_type: 'equal', value: 'new' }]);
    const cfv = (await onOrigin('POST', '/cruddy/v2/custom_field_values/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: a!.id }], limit: 1 }))).body.items[0]
      ?? (await onOrigin('POST', '/cruddy/v2/custom_field_values/search', search({ limit: 1 }))).body.items[0];
    const before = await statusRows(a!.id);
    // Offline, through the snapshot instance: the public API and v2, as any client would.
    expect((await onSnap('PUT', '/data/public/api/v1/incidents/update/status', { id: a!.id, status: 'working_customer' })).status).toBe(200);
    expect((await onSnap('PUT', '/data/public/api/v1/incidents/update/critical', { id: a!.id, risklevel: 9.3 })).status).toBe(200);
    expect((await onSnap('PUT', '/cruddy/v2/service_asset_findings/update', { id: a!.id, user_id: USER, internal_note: 'Позвонил клиенту, ждём ответа' })).status).toBe(200);
    const msg = await onSnap('POST', '/cruddy/v2/messages/create', { subject: 'Вопрос клиенту', body: 'Это плановые работы?', service_asset_finding_id: a!.id });
    expect(msg.status, JSON.stringify(msg.body)).toBe(201);
    const cfvRes = await onSnap('PUT', '/cruddy/v2/custom_field_values/update', {
      id: cfv.id,
      created_at: cfv.created_at,
      updated_at: cfv.updated_at,
      custom_field_id: cfv.custom_field_id,
      service_asset_finding_id: cfv.service_asset_finding_id,
      string_value: 'ЗНИ-2024-117',
    });
    expect(cfvRes.status, JSON.stringify(cfvRes.body)).toBe(200);

    // The origin knows nothing yet.
    expect((await get(onOrigin, 'service_asset_findings', a!.id)).status).toBe('new');
    const waiting = await entries();
    expect(waiting.total).toBe(6);
    expect(waiting.items.map((e) => `${e.resource}.${e.field || e.op}`).sort()).toEqual(
      ['custom_field_values.string_value', 'messages.create', 'service_asset_findings.internal_note', 'service_asset_findings.risklevel', 'service_asset_findings.status', 'service_asset_findings.user_id'].sort(),
    );
    expect(waiting.items.find((e) => e.field === 'status')).toMatchObject({ before: 'new', after: 'working_customer', state: 'pending', label: a!.title });
    expect((await local.call('GET', '/console/v1/sync')).body[0].counts).toMatchObject({ pending: 6, total: 6, records: 3 });

    const summary = await pushNow();
    expect(summary).toMatchObject({ considered: 6, pushed: 6, conflicts: 0, failed: 0, stopped: null, left: { total: 0 } });

    const now = await get(onOrigin, 'service_asset_findings', a!.id);
    expect(now).toMatchObject({ status: 'working_customer', risklevel: 9.3, risk: 'critical', user_id: USER, internal_note: 'Позвонил клиенту, ждём ответа' });
    expect(now.acknowledged_at).not.toBeNull();
    // The origin recorded its own status change.
    const after = await statusRows(a!.id);
    expect(after.length).toBe(before.length + 1);
    expect(after[after.length - 1]).toMatchObject({ status: 'working_customer', previous_status: 'new' });
    // The message keeps the id it got offline; the custom field value is the origin's own record.
    expect(await get(onOrigin, 'messages', msg.body.id)).toMatchObject({ subject: 'Вопрос клиенту', service_asset_finding_id: a!.id });
    expect((await get(onOrigin, 'custom_field_values', cfv.id)).string_value).toBe('ЗНИ-2024-117');
    expect((await entries()).total).toBe(0);

    // A second push has nothing to send.
    expect(await pushNow()).toMatchObject({ considered: 0, requests: 0 });

    // The status-change row made here is replaced by the origin's own at the next pull.
    const rowsHere = async () =>
      ((await onSnap('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: a!.id }], limit: 100 }))).body.items as { id: string }[])
        .map((r) => r.id)
        .sort();
    const theirs = after.map((r) => r.id as string).sort();
    expect(await rowsHere()).not.toEqual(theirs);
    expect((await pullNow()).stopped).toBeNull();
    expect(await rowsHere()).toEqual(theirs);
  });

  it('a field changed on both sides is a conflict and is not overwritten; other changes go', async () => {
    const [, b] = await incidents(2, [{ field: 'status', filter_type: 'equal', value: 'new' }]);
    expect((await onSnap('PUT', '/cruddy/v2/service_asset_findings/update', { id: b!.id, internal_note: 'моя заметка', client_note: 'для клиента' })).status).toBe(200);
    expect((await onOrigin('PUT', '/cruddy/v2/service_asset_findings/update', { id: b!.id, internal_note: 'заметка коллеги' })).status).toBe(200);
    const summary = await pushNow();
    expect(summary).toMatchObject({ pushed: 1, conflicts: 1, failed: 0 });
    const there = await get(onOrigin, 'service_asset_findings', b!.id);
    expect(there.internal_note).toBe('заметка коллеги');
    expect(there.client_note).toBe('для клиента');
    const [c] = (await entries('?state=conflict')).items;
    expect(c).toMatchObject({ field: 'internal_note', before: b!.internal_note ?? null, after: 'моя заметка', theirs: 'заметка коллеги', state: 'conflict' });

    // Pushing again does not overwrite it either.
    expect(await pushNow()).toMatchObject({ considered: 0 });
    expect((await get(onOrigin, 'service_asset_findings', b!.id)).internal_note).toBe('заметка коллеги');

    // Take theirs: the copy equals the origin.
    const res = await local.call('POST', `${SYNC}/resolve`, { entries: [c!.seq], take: 'theirs' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ resolved: 1, left: { total: 0 } });
    expect(comparable(await get(onSnap, 'service_asset_findings', b!.id))).toEqual(comparable(await get(onOrigin, 'service_asset_findings', b!.id)));
  });

  it('keep mine pushes over the value seen; edit pushes the edited value', async () => {
    const [, , c, d] = await incidents(4, [{ field: 'status', filter_type: 'equal', value: 'new' }]);
    for (const [inc, mine] of [
      [c!, 'assigned_customer'],
      [d!, 'feedback_required'],
    ] as const) {
      expect((await onSnap('PUT', '/data/public/api/v1/incidents/update/status', { id: inc.id, status: mine })).status).toBe(200);
      expect((await onOrigin('PUT', '/data/public/api/v1/incidents/update/status', { id: inc.id, status: 'invalid' })).status).toBe(200);
    }
    expect(await pushNow()).toMatchObject({ conflicts: 2, pushed: 0 });
    const conflicts = (await entries('?state=conflict')).items;
    const ofC = conflicts.find((e) => e.record_id === c!.id)!;
    const ofD = conflicts.find((e) => e.record_id === d!.id)!;
    expect(ofC).toMatchObject({ before: 'new', after: 'assigned_customer', theirs: 'invalid' });
    expect((await local.call('POST', `${SYNC}/resolve`, { entries: [ofC.seq], take: 'mine' })).status).toBe(200);
    const edit = await local.call('POST', `${SYNC}/resolve`, { entries: [ofD.seq], take: 'edit', value: 'verify_close' });
    expect(edit.status, edit.text).toBe(200);
    expect((await get(onSnap, 'service_asset_findings', d!.id)).status).toBe('verify_close');
    expect(await pushNow()).toMatchObject({ pushed: 2, conflicts: 0, left: { total: 0 } });
    expect((await get(onOrigin, 'service_asset_findings', c!.id)).status).toBe('assigned_customer');
    expect((await get(onOrigin, 'service_asset_findings', d!.id)).status).toBe('verify_close');
  });

  it('refuses bad resolutions with a clear error', async () => {
    expect((await local.call('POST', `${SYNC}/resolve`, { entries: [999999], take: 'theirs' })).body).toEqual({ error: 'no outbox entry 999999', error_code: 400 });
    expect((await local.call('POST', `${SYNC}/resolve`, { entries: [1, 2], take: 'edit', value: 'x' })).body.error).toMatch(/edit takes one entry and a value/);
    expect((await local.call('POST', `${SYNC}/resolve`, { entries: [1], take: 'maybe' })).status).toBe(400);
    expect((await local.call('GET', '/console/v1/sync/nope')).status).toBe(404);
  });

  it('pull brings a remote status change and a new remote incident; a field changed on both sides becomes a conflict', async () => {
    const list = await incidents(8, [{ field: 'status', filter_type: 'equal', value: 'new' }]);
    const [e, f] = list.slice(-2);
    expect((await onOrigin('PUT', '/data/public/api/v1/incidents/update/status', { id: e!.id, status: 'closed' })).status).toBe(200);
    const created = await onOrigin('POST', '/cruddy/v2/service_asset_findings/create', { title: 'Новый инцидент на платформе', finding_id: e!.finding_id, service_asset_id: e!.service_asset_id, risklevel: 6.5 });
    expect(created.status).toBe(201);
    // f: the note changed on both sides.
    expect((await onSnap('PUT', '/cruddy/v2/service_asset_findings/update', { id: f!.id, internal_note: 'офлайн' })).status).toBe(200);
    expect((await onOrigin('PUT', '/cruddy/v2/service_asset_findings/update', { id: f!.id, internal_note: 'онлайн', client_note: 'новое для клиента' })).status).toBe(200);

    const summary = await pullNow();
    expect(summary.lists.incidents.inserted).toBe(1);
    expect(summary.conflicts).toBe(1);
    expect(await get(onSnap, 'service_asset_findings', e!.id)).toMatchObject({ status: 'closed' });
    expect(await get(onSnap, 'service_asset_findings', created.body.id)).toMatchObject({ title: 'Новый инцидент на платформе', risk: 'medium' });
    // The origin's status-change row came with it.
    const rows = (await onSnap('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: e!.id }], limit: 50 }))).body.items;
    expect(rows.map((r: { status: string }) => r.status)).toContain('closed');
    // f keeps the local note (a conflict), the other field arrives.
    expect(await get(onSnap, 'service_asset_findings', f!.id)).toMatchObject({ internal_note: 'офлайн', client_note: 'новое для клиента' });
    expect((await entries('?state=conflict')).items).toEqual([expect.objectContaining({ record_id: f!.id, field: 'internal_note', theirs: 'онлайн', after: 'офлайн' })]);
    // A second pull finds nothing new.
    const again = await pullNow();
    expect(again.lists.incidents.inserted).toBe(0);
    expect(again.conflicts).toBe(0);
    // Resolved with theirs: equal to the origin.
    const [c] = (await entries('?state=conflict')).items;
    expect((await local.call('POST', `${SYNC}/resolve`, { entries: [c!.seq], take: 'theirs' })).status).toBe(200);
    expect(comparable(await get(onSnap, 'service_asset_findings', f!.id))).toEqual(comparable(await get(onOrigin, 'service_asset_findings', f!.id)));
  });

  it('a record deleted on the platform: the change fails with "deleted on the platform"; pull reports and removes others', async () => {
    const list = await incidents(12, [{ field: 'status', filter_type: 'equal', value: 'new' }]);
    const [g, h] = list.slice(-2);
    expect((await onSnap('PUT', '/data/public/api/v1/incidents/update/status', { id: g!.id, status: 'closed' })).status).toBe(200);
    expect((await onOrigin('DELETE', `/cruddy/v2/service_asset_findings/${g!.id}`)).status).toBe(200);
    expect((await onOrigin('DELETE', `/cruddy/v2/service_asset_findings/${h!.id}`)).status).toBe(200);
    const summary = await pushNow();
    expect(summary).toMatchObject({ failed: 1, pushed: 0 });
    expect((await entries('?state=failed')).items).toEqual([expect.objectContaining({ record_id: g!.id, error: 'deleted on the platform' })]);
    // Not retried by later pushes.
    expect(await pushNow()).toMatchObject({ considered: 0, requests: 0 });
    const pulled = await pullNow();
    expect(pulled.deleted_ids.service_asset_findings).toEqual([h!.id]);
    expect(pulled.lists.incidents).toMatchObject({ deleted: 1, kept: 1 });
    expect((await onSnap('GET', `/cruddy/v2/service_asset_findings/${h!.id}`)).status).toBe(404);
    expect((await onSnap('GET', `/cruddy/v2/service_asset_findings/${g!.id}`)).status).toBe(200);
    // Discarded: the failed entry goes; the record is removed at the next pull.
    const failed = (await entries('?state=failed')).items[0]!;
    expect((await local.call('POST', `${SYNC}/discard`, { entries: [failed.seq] })).body).toMatchObject({ discarded: 1, left: { total: 0 } });
    expect((await pullNow()).deleted_ids.service_asset_findings).toEqual([g!.id]);
  });

  it('a dry run prints what would be sent and changes nothing', async () => {
    const [i] = (await incidents(20, [{ field: 'status', filter_type: 'equal', value: 'new' }])).slice(-1);
    expect((await onSnap('PUT', '/data/public/api/v1/incidents/update/critical', { id: i!.id, risklevel: 2.2 })).status).toBe(200);
    const before = await get(onOrigin, 'service_asset_findings', i!.id);
    const outbox = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT * FROM sync_outbox ORDER BY seq').all();
      } finally {
        db.close();
      }
    };
    const was = outbox();
    const dry = await pushNow({ dry_run: true });
    expect(dry).toMatchObject({ dry_run: true, considered: 1 });
    expect(dry.would_send).toEqual([{ method: 'PUT', path: '/data/public/api/v1/incidents/update/critical', body: { id: i!.id, risklevel: 2.2 }, entries: [expect.any(Number)] }]);
    expect(await get(onOrigin, 'service_asset_findings', i!.id)).toEqual(before);
    expect(outbox()).toEqual(was);
    expect(await pushNow()).toMatchObject({ pushed: 1 });
  });

  it('an unreachable origin or a refused key stops cleanly; nothing is lost or marked pushed', async () => {
    const [j] = (await incidents(24, [{ field: 'status', filter_type: 'equal', value: 'new' }])).slice(-1);
    expect((await onSnap('PUT', '/cruddy/v2/service_asset_findings/update', { id: j!.id, internal_note: 'до отключения' })).status).toBe(200);
    // The key store entry rewritten with a wrong key: refused.
    const keyFile = `${file}.instance-keys.json`;
    const fs = await import('node:fs');
    const good = fs.readFileSync(keyFile, 'utf8');
    fs.writeFileSync(keyFile, good.replace(TEST_KEY, 'wrong-key-0000'));
    const refused = await local.call('POST', `${SYNC}/push?wait=1`, {});
    expect(refused.status).toBe(200);
    expect(refused.body.stopped).toMatch(/refused the key \(HTTP 401/);
    expect((await entries()).items).toEqual([expect.objectContaining({ record_id: j!.id, state: 'pending' })]);
    const pullRefused = await local.call('POST', `${SYNC}/pull?wait=1`);
    expect(pullRefused.status).toBe(200);
    expect(pullRefused.body.stopped).toMatch(/refused the key/);
    fs.writeFileSync(keyFile, good);
    // The origin down: the push stops with the reason, the entry stays.
    const db = new Database(file);
    const url = (db.prepare('SELECT url FROM sync_origin').pluck().get() as string);
    db.prepare('UPDATE sync_origin SET url = ?').run('http://127.0.0.1:1');
    db.close();
    try {
      const down = await local.call('POST', `${SYNC}/push?wait=1`, {});
      expect(down.body.stopped).toMatch(/unreachable/);
      expect((await entries()).items).toEqual([expect.objectContaining({ record_id: j!.id, state: 'pending' })]);
      expect((await local.call('GET', SYNC)).body.last).toMatchObject({ kind: 'push', error: expect.stringMatching(/unreachable/) });
    } finally {
      const db2 = new Database(file);
      db2.prepare('UPDATE sync_origin SET url = ?').run(url);
      db2.close();
    }
    expect(await pushNow()).toMatchObject({ pushed: 1, left: { total: 0 } });
    expect((await get(onOrigin, 'service_asset_findings', j!.id)).internal_note).toBe('до отключения');
  });

  it("take theirs writes the origin's value as from the origin: no status-change row or reopening is made here", async () => {
    const [g] = (await incidents(50, [{ field: 'status', filter_type: 'equal', value: 'risk_accepted' }])).slice(-1);
    expect(g, 'the demo data has a risk_accepted incident').toBeTruthy();
    const copied = await get(onSnap, 'service_asset_findings', g!.id);
    const localRows = async () =>
      (await onSnap('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: g!.id }], limit: 100 }))).body.items.map((r: { id: string }) => r.id).sort();
    const rowsCopied = await localRows();
    expect((await onSnap('PUT', '/data/public/api/v1/incidents/update/status', { id: g!.id, status: 'invalid' })).status).toBe(200);
    expect((await onOrigin('PUT', '/data/public/api/v1/incidents/update/status', { id: g!.id, status: 'assigned_customer' })).status).toBe(200);
    expect(await pushNow()).toMatchObject({ conflicts: 1 });
    const [c] = (await entries('?state=conflict')).items;
    // The origin out of reach while resolving: the copy shows what the resolution itself wrote.
    const db = new Database(file);
    const url = db.prepare('SELECT url FROM sync_origin').pluck().get() as string;
    db.prepare('UPDATE sync_origin SET url = ?').run('http://127.0.0.1:1');
    db.close();
    try {
      const res = await local.call('POST', `${SYNC}/resolve`, { entries: [c!.seq], take: 'theirs' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.note).toMatch(/read again at the next pull/);
      const now = await get(onSnap, 'service_asset_findings', g!.id);
      expect(now.status).toBe('assigned_customer');
      // invalid -> assigned_customer here would be a reopening; it happened on the origin, not here.
      expect({ reopened_at: now.reopened_at, c_reopened_count: now.c_reopened_count, c_last_customer_status_change: now.c_last_customer_status_change }).toEqual({
        reopened_at: copied.reopened_at,
        c_reopened_count: copied.c_reopened_count,
        c_last_customer_status_change: copied.c_last_customer_status_change,
      });
      // The row made by the change given up is gone; none is made for theirs: the origin's comes with the pull.
      expect(await localRows()).toEqual(rowsCopied);
    } finally {
      const db2 = new Database(file);
      db2.prepare('UPDATE sync_origin SET url = ?').run(url);
      db2.close();
    }
    await pullNow();
    expect(comparable(await get(onSnap, 'service_asset_findings', g!.id))).toEqual(comparable(await get(onOrigin, 'service_asset_findings', g!.id)));
    expect((await localRows()).length).toBe((await statusRows(g!.id)).length);
  });

  it('an import into the snapshot is no change to push unless asked; asked, its records are pushed like changes made here', async () => {
    const [k, l] = (await incidents(30, [{ field: 'status', filter_type: 'equal', value: 'new' }])).slice(-2);
    expect((await entries()).total).toBe(0);
    /** The two incidents as the snapshot has them (a v2 search answer), with `change` applied. */
    const file = async (change: Record<string, unknown>[]) => {
      const recs = [await get(onSnap, 'service_asset_findings', k!.id), await get(onSnap, 'service_asset_findings', l!.id)] as Record<string, unknown>[];
      const items = recs.map((rec, i) => {
        const { _relations: _r, ...own } = rec;
        return { ...own, ...change[i] };
      });
      return JSON.stringify({ items, total: items.length });
    };
    const importInto = (query: string, body: string) => local.call('POST', `/console/v1/import?instance=${snap.id}&filename=triage.json&wait=1${query}`, body);

    // Not asked: the records change here, nothing waits to be pushed.
    const plain = await importInto('', await file([{ client_note: 'из файла' }, {}]));
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.summary.resources.service_asset_findings).toMatchObject({ updated: 1, unchanged: 1 });
    expect(plain.body.summary.outbox_entries).toBeUndefined();
    expect((await get(onSnap, 'service_asset_findings', k!.id)).client_note).toBe('из файла');
    expect((await entries()).total).toBe(0);

    // Asked: a changed field of each, and a finding type the file brings, wait for the push.
    const findingId = '0b7c8c1e-6f4e-4a47-9a1d-3c5d7e9f1a2b';
    const asked = await importInto('&as_changes=1', await file([{ internal_note: 'разобрано в самолёте' }, { risklevel: 8.8 }]));
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.summary.outbox_entries).toBe(2);
    const more = await local.call('POST', `/console/v1/import?instance=${snap.id}&filename=findings.json&wait=1&as_changes=1`, JSON.stringify([{ id: findingId, title: 'Найдено офлайн', type: 'network_anomaly' }]));
    expect(more.status, more.text).toBe(200);
    const waiting = (await entries()).items.map((e) => [e.resource, e.record_id, e.op, e.field, e.after]);
    expect(waiting).toEqual([
      ['service_asset_findings', k!.id, 'update', 'internal_note', 'разобрано в самолёте'],
      ['service_asset_findings', l!.id, 'update', 'risklevel', 8.8],
      ['findings', findingId, 'create', '', expect.objectContaining({ id: findingId, title: 'Найдено офлайн' })],
    ]);
    expect(await pushNow()).toMatchObject({ pushed: 3, conflicts: 0, failed: 0, left: { total: 0 } });
    expect((await get(onOrigin, 'service_asset_findings', k!.id)).internal_note).toBe('разобрано в самолёте');
    expect((await get(onOrigin, 'service_asset_findings', k!.id)).client_note).toBe(k!.client_note ?? null);
    expect((await get(onOrigin, 'service_asset_findings', l!.id)).risklevel).toBe(8.8);
    expect(await get(onOrigin, 'findings', findingId)).toMatchObject({ title: 'Найдено офлайн' });

    // Asked of a database that is no snapshot: refused, nothing imported.
    const main = await local.call('POST', '/console/v1/import?filename=findings.json&wait=1&as_changes=1', JSON.stringify([{ title: 'Не снимок', type: 'network_anomaly' }]));
    expect(main.status).toBe(400);
    expect(main.body.error).toMatch(/is not a snapshot of a platform: it has no outbox to record the import's changes in/);
  });

  it('an origin with empty lists (no custom fields, no messages): snapshot, pull and push work from the start', async () => {
    const bare = await startTestServer();
    try {
      const finding = (await bare.call('POST', '/cruddy/v2/findings/create', { title: 'Открытый порт' })).body;
      const asset = (await bare.call('POST', '/cruddy/v2/service_assets/create', { name: 'gw-01', type: 'Host', location: 'Казань' })).body;
      const inc = (await bare.call('POST', '/cruddy/v2/service_asset_findings/create', { title: 'Открыт RDP наружу', finding_id: finding.id, service_asset_id: asset.id })).body;
      const res = await local.call('POST', '/console/v1/snapshot?wait=1', { url: bare.main, api_key: TEST_KEY, name: 'Пустой', db_file: 'bare.sqlite' });
      expect(res.status, res.text).toBe(200);
      const at = '/console/v1/sync/%D0%9F%D1%83%D1%81%D1%82%D0%BE%D0%B9';
      await bare.call('PUT', '/data/public/api/v1/incidents/update/critical', { id: inc.id, risklevel: 8 });
      const pulled = await local.call('POST', `${at}/pull?wait=1`);
      expect(pulled.body).toMatchObject({ stopped: null, lists: { incidents: { updated: 1 }, custom_fields: { received: 0 }, messages: { received: 0 } } });
      const id = res.body.instance.id;
      const routed = await local.call('PUT', '/data/public/api/v1/incidents/update/status', { id: inc.id, status: 'closed' }, { PgrSelectedInstance: id }, local.routing);
      expect(routed.body[0].status_code).toBe(200);
      expect((await local.call('POST', `${at}/push?wait=1`, {})).body).toMatchObject({ pushed: 1, stopped: null });
      expect((await bare.call('GET', `/cruddy/v2/service_asset_findings/${inc.id}?relations=`)).body).toMatchObject({ status: 'closed', risklevel: 8 });
    } finally {
      await bare.stop();
    }
  });
});
