// The typed client (src-shared/client) against a real server on a demo database: each call is
// one operation of the contract, answers checked against its schemas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractMismatchError, createClient, emptySearch, RadarApiError, type RadarClient } from '../../src-shared/client/index';
import { startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;
let radar: RadarClient;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  radar = createClient({ url: srv.main, apiKey: srv.apiKey });
});

afterAll(async () => {
  await srv?.stop();
});

describe('the typed client', () => {
  it('lists incidents with the standard filters, paged, typed by the contract', async () => {
    const page = await radar.public.incidents({ status: 'in,new,assigned_customer', order: '-risklevel', per_page: 5 });
    expect(page.objects.length).toBeGreaterThan(0);
    expect(page.objects.length).toBeLessThanOrEqual(5);
    expect(page.total).toBeGreaterThanOrEqual(page.objects.length);
    for (const o of page.objects) expect(['new', 'assigned_customer']).toContain(o.status);
    const levels = page.objects.map((o) => o.risklevel as number);
    expect(levels).toEqual([...levels].sort((a, b) => b - a));
    const second = await radar.public.incidents('status=in,new,assigned_customer&order=-risklevel&per_page=5&page=2');
    expect(second.total).toBe(page.total);
    expect(second.objects.map((o) => o.id)).not.toContain(page.objects[0]!.id);
  });

  it('changes the status and the risk of an incident', async () => {
    const [first] = (await radar.public.incidents({ per_page: 1, order: 'display_id' })).objects;
    const id = first!.id as string;
    expect(await radar.public.updateStatus(id, 'working_customer')).toEqual({});
    expect(await radar.public.updateRisk(id, 9.5)).toEqual({});
    const got = await radar.resource('service_asset_findings').get(id, { relations: [] });
    expect(got).toMatchObject({ id, status: 'working_customer', risklevel: 9.5, risk: 'critical' });
  });

  it('creates, searches, updates and deletes a record of the data-management API', async () => {
    const groups = radar.resource('software_groups');
    const name = `Клиентская группа ${Date.now()}`;
    const created = await groups.create({ name, description: 'из клиента' });
    expect(created).toMatchObject({ name, description: 'из клиента' });
    const found = await groups.search({ ...emptySearch(10), filters: [{ field: 'name', filter_type: 'equal', value: name }] });
    expect(found.total).toBe(1);
    expect(found.items[0]!.id).toBe(created.id);
    const updated = await groups.update({ id: created.id as string, description: 'изменено' });
    expect(updated.description).toBe('изменено');
    expect(await groups.delete(created.id as string)).toEqual({ id: created.id });
    const gone = await groups.get(created.id as string).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(RadarApiError);
    expect(gone).toMatchObject({ status: 404, message: 'not found', operationId: 'software_groups.get' });
  });

  it('calls any operation by its operationId', async () => {
    const meta = await radar.call('rules.meta');
    expect((meta as { name: string }).name).toBe('rules');
    const list = await radar.call('tenancy.instances.list');
    expect(Array.isArray(list)).toBe(true);
  });

  it('reaches one instance through the routing, and every instance with fanOut', async () => {
    const [main] = await radar.instances();
    const routed = await radar.instance(main!.id).public.findings({ per_page: 2 });
    const direct = await radar.public.findings({ per_page: 2 });
    expect(routed).toEqual(direct);
    const missing = await radar
      .instance(main!.id)
      .resource('rules')
      .get('6f1c1b8e-2f0f-4a44-9a39-000000000000')
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404 });
    const elements = await radar.fanOut('GET', '/data/public/api/v1/findings', { query: { per_page: 1 } });
    expect(elements.map((e) => e.id)).toContain(main!.id);
    expect(elements[0]).toMatchObject({ error: 0, status_code: 200 });
  });

  it('takes the changes of a snapshot back to its origin (here the same server) with the sync calls', async () => {
    const job = (await radar.call('console.snapshot', { query: { wait: '1' }, body: { url: srv.main, api_key: srv.apiKey, name: 'В дороге', per_page: 500 } })) as { state: string; instance: { id: string } };
    expect(job.state).toBe('done');
    expect((await radar.console.sync.instances()).map((i) => i.name)).toEqual(['В дороге']);
    const [inc] = (await radar.public.incidents({ status: 'eq,new', order: 'display_id', per_page: 1 })).objects;
    const id = inc!.id as string;
    await radar.instance(job.instance.id).public.updateStatus(id, 'verify_close');
    expect((await radar.console.sync.status('В дороге')).counts).toMatchObject({ pending: 1, total: 1 });
    const [entry] = (await radar.console.sync.entries('В дороге', { state: 'pending' })).items;
    expect(entry).toMatchObject({ record_id: id, field: 'status', before: 'new', after: 'verify_close' });
    const dry = await radar.console.sync.push('В дороге', { dryRun: true });
    expect(dry.would_send).toEqual([{ method: 'PUT', path: '/data/public/api/v1/incidents/update/status', body: { id, status: 'verify_close' }, entries: [entry!.seq] }]);
    expect(await radar.console.sync.push('В дороге')).toMatchObject({ pushed: 1, conflicts: 0, left: { total: 0 } });
    expect((await radar.resource('service_asset_findings').get(id, { relations: [] })).status).toBe('verify_close');
    expect((await radar.console.sync.pull('В дороге')).stopped).toBeNull();
    await expect(radar.console.sync.status('Main')).rejects.toMatchObject({ status: 400 });
  });

  it('refuses an answer the contract does not describe', async () => {
    const tampering: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = (await res.json()) as { objects: Record<string, unknown>[] };
      body.objects[0]!.surprise = true;
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
    const strict = createClient({ url: srv.main, apiKey: srv.apiKey, fetch: tampering });
    const err = await strict.public.findings({ per_page: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractMismatchError);
    expect((err as Error).message).toMatch(/surprise/);
    const lax = createClient({ url: srv.main, apiKey: srv.apiKey, fetch: tampering, validate: false });
    expect((await lax.public.findings({ per_page: 1 })).objects[0]).toHaveProperty('surprise', true);
  });

  it('takes a Bearer token instead of the key; without either the server says no auth header', async () => {
    const { issueToken } = await import('../../src-main/server/security');
    const token = issueToken(srv.jwtSecret, '0b6f9d7e-1c2a-4b3c-8d4e-5f6a7b8c9d0e', 60);
    expect((await createClient({ url: srv.main, token }).public.findings({ per_page: 1 })).total).toBeGreaterThan(0);
    const none = await createClient({ url: srv.main }).public.findings().catch((e: unknown) => e);
    expect(none).toMatchObject({ status: 401, message: 'no auth header' });
  });
});
