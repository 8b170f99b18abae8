// The master host's instance routing over real sockets (spec: Multi-instance routing, Instance;
// contract.md §1, §3 fan-out element): the main instance plus two local databases added through
// the console API; the instance list, fan-out in sort_order, PgrSelectedInstance, v2 routes,
// per-instance errors inside the envelope, and authentication on the routing port.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_VERSION } from '../../src-shared/version';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';
import { expectElement, mainId, PUB, rawRequest, UNKNOWN_ID, V2 } from './issue3-helpers';

let srv: TestServer;
let main: string;
let a: any;
let b: any;

/** A call on the routing port, with PgrSelectedInstance when `instance` is given. */
const route = (method: string, p: string, instance?: string, body?: unknown, headers: Record<string, string> = {}) =>
  srv.call(method, p, body, { ...(instance ? { PgrSelectedInstance: instance } : {}), ...headers }, srv.routing);

async function createIn(instance: string, title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await route('POST', '/data/v1/create', instance, { ServiceAssetFindingDBFields: { Title: title, ...extra } });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toHaveLength(1);
  expect(res.body[0].id).toBe(instance);
  return res.body[0].data.id as string;
}

const TITLES: Record<string, string[]> = {};

beforeAll(async () => {
  srv = await startTestServer();
  main = await mainId(srv);
  const addA = await srv.call('POST', '/console/v1/instances', { kind: 'local', name: 'Филиал А', db_file: path.join(srv.dir, 'branch-a.sqlite') });
  expect(addA.status, addA.text).toBe(201);
  a = addA.body;
  const addB = await srv.call('POST', '/console/v1/instances', { kind: 'local', name: 'Филиал Б', db_file: path.join(srv.dir, 'branch-b.sqlite') });
  expect(addB.status, addB.text).toBe(201);
  b = addB.body;
  TITLES[main] = ['Главный: подбор пароля'];
  TITLES[a.id] = ['Филиал А: сканирование портов', 'Филиал А: вредоносный файл'];
  TITLES[b.id] = ['Филиал Б: вход в нерабочее время', 'Филиал Б: USB-носитель', 'Филиал Б: утечка учётных данных'];
  for (const [id, titles] of Object.entries(TITLES)) {
    for (const [i, t] of titles.entries()) await createIn(id, t, { Status: i === 0 ? 'new' : 'closed', Risklevel: 2 + i * 3 });
  }
});

afterAll(async () => {
  await srv?.stop();
});

describe('instance list', () => {
  it('is served at /tenancy/instance/list and /karaken/instance/list, in sort_order, with id, name, url, sort_order', async () => {
    const t = await srv.call('GET', '/tenancy/instance/list');
    const k = await srv.call('GET', '/karaken/instance/list');
    expect(t.status).toBe(200);
    expect(k.status).toBe(200);
    expect(k.body).toEqual(t.body);
    expect(t.body).toEqual([
      { id: main, name: 'Main', url: srv.main, sort_order: 0 },
      { id: a.id, name: 'Филиал А', url: srv.routing, sort_order: 1 },
      { id: b.id, name: 'Филиал Б', url: srv.routing, sort_order: 2 },
    ]);
    for (const i of t.body) expect(i.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('a changed sort_order reorders the list and the fan-out elements', async () => {
    const put = await srv.call('PUT', `/console/v1/instances/${a.id}`, { sort_order: 10 });
    expect(put.status, put.text).toBe(200);
    expect(put.body.sort_order).toBe(10);
    try {
      const list = await srv.call('GET', '/tenancy/instance/list');
      expect(list.body.map((i: any) => [i.id, i.sort_order])).toEqual([
        [main, 0],
        [b.id, 2],
        [a.id, 10],
      ]);
      const fan = await route('GET', `${PUB}/incidents`);
      expect(fan.status).toBe(200);
      expect(fan.body.map((e: any) => e.id)).toEqual([main, b.id, a.id]);
      const views = await srv.call('GET', '/console/v1/instances');
      expect(views.body.map((v: any) => v.id)).toEqual([main, b.id, a.id]);
    } finally {
      const back = await srv.call('PUT', `/console/v1/instances/${a.id}`, { sort_order: 1 });
      expect(back.status).toBe(200);
    }
    const fan = await route('GET', `${PUB}/findings`);
    expect(fan.body.map((e: any) => e.id)).toEqual([main, a.id, b.id]);
  });
});

describe('fan-out (no PgrSelectedInstance)', () => {
  it('GET public incidents: one element per instance in sort_order, each with its own data', async () => {
    const res = await route('GET', `${PUB}/incidents?order=display_id`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toHaveLength(3);
    const names = { [main]: 'Main', [a.id]: 'Филиал А', [b.id]: 'Филиал Б' };
    expect(res.body.map((e: any) => e.id)).toEqual([main, a.id, b.id]);
    for (const el of res.body) {
      expectElement(el, { id: el.id, name: names[el.id], status: 200 });
      expect(el.version).toBe(PLATFORM_VERSION);
      expect(el.data.total).toBe(TITLES[el.id]!.length);
      expect(el.data.objects.map((o: any) => o.title)).toEqual(TITLES[el.id]);
    }
  });

  it('keeps the query of each call: filters apply in every instance', async () => {
    const res = await route('GET', `${PUB}/incidents?status=eq,closed&risklevel=gt,4`);
    expect(res.status).toBe(200);
    const totals = Object.fromEntries(res.body.map((e: any) => [e.id, e.data.total]));
    expect(totals).toEqual({ [main]: 0, [a.id]: 1, [b.id]: 2 });
    for (const el of res.body) for (const o of el.data.objects) expect(o.status).toBe('closed');
  });

  it('a POST search is sent to every instance with its body', async () => {
    const body = search({ filters: [{ field: 'title', filter_type: 'substr', value: 'ФИЛИАЛ' }], ordering: [{ field: 'title', direction: 'asc' }] });
    const res = await route('POST', `${V2}/service_asset_findings/search`, undefined, body);
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((e: any) => [e.id, e.status_code, e.data.total])).toEqual([
      [main, 200, 0],
      [a.id, 200, 2],
      [b.id, 200, 3],
    ]);
    expect(res.body[2].data.items.map((i: any) => i.title)).toEqual([...TITLES[b.id]!].sort());
  });

  it('a 404 from one instance is that element\'s status, with the error body under data; the others are fine', async () => {
    const [idInA] = (await route('GET', `${PUB}/incidents?order=display_id`, a.id)).body[0].data.objects.map((o: any) => o.id);
    const res = await route('GET', `${V2}/service_asset_findings/${idInA}?relations=`);
    expect(res.status, 'one instance failing never fails the whole answer').toBe(200);
    const [m, ea, eb] = res.body;
    expectElement(m, { id: main, status: 404 });
    expect(m.data).toEqual({ error: 'not found', error_code: 404 });
    expectElement(ea, { id: a.id, status: 200 });
    expect(ea.data.id).toBe(idInA);
    expect(ea.data.title).toBe(TITLES[a.id]![0]);
    expectElement(eb, { id: b.id, status: 404 });
    expect(eb.data).toEqual({ error: 'not found', error_code: 404 });
  });

  it('a path no instance serves: every element 404', async () => {
    const res = await route('GET', '/no/such/path');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    for (const el of res.body) expectElement(el, { id: el.id, status: 404 });
  });
});

describe('PgrSelectedInstance', () => {
  /** A public list without its front links (compared on their own below). */
  const withoutLinks = (body: any) => (body?.objects ? { ...body, objects: body.objects.map(({ front_link: _f, ...o }: any) => o) } : body);

  it('main: a one-element array whose data equals what the main port answers', async () => {
    for (const p of [`${PUB}/incidents`, `${PUB}/findings?per_page=5`, '/tenancy/instance/list', `${V2}/service_asset_findings/_meta`]) {
      const direct = await srv.call('GET', p);
      const routed = await route('GET', p, main);
      expect(routed.status, p).toBe(direct.status);
      expect(routed.body, p).toHaveLength(1);
      expectElement(routed.body[0], { id: main, name: 'Main', status: direct.status });
      expect(withoutLinks(routed.body[0].data), p).toEqual(withoutLinks(direct.body));
    }
  });

  it('main: front_link through the routing port is the same working link the main port gives', async () => {
    const direct = await srv.call('GET', `${PUB}/incidents`);
    const routed = await route('GET', `${PUB}/incidents`, main);
    const fan = await route('GET', `${PUB}/incidents`);
    expect(direct.body.objects[0].front_link.startsWith(`${srv.main}/`)).toBe(true);
    expect(routed.body[0].data.objects.map((o: any) => o.front_link)).toEqual(direct.body.objects.map((o: any) => o.front_link));
    expect(fan.body[0].data.objects.map((o: any) => o.front_link)).toEqual(direct.body.objects.map((o: any) => o.front_link));
  });

  it('a local instance: only its data; the outer status is the instance\'s', async () => {
    const res = await route('GET', `${PUB}/incidents?order=display_id`, b.id);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expectElement(res.body[0], { id: b.id, name: 'Филиал Б', status: 200 });
    expect(res.body[0].data.objects.map((o: any) => o.title)).toEqual(TITLES[b.id]);
    const nf = await route('GET', `${V2}/service_asset_findings/${UNKNOWN_ID}`, b.id);
    expect(nf.status).toBe(404);
    expect(nf.body).toHaveLength(1);
    expectElement(nf.body[0], { id: b.id, status: 404 });
    const bad = await route('GET', `${PUB}/incidents?per_page=5000`, b.id);
    expect(bad.status).toBe(400);
    expect(bad.body[0].data).toEqual({ error: expect.stringContaining('per_page'), error_code: 400 });
  });

  it('the id is matched case-insensitively', async () => {
    const res = await route('GET', `${PUB}/incidents`, a.id.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body[0].id).toBe(a.id);
  });

  it('v2 routes are routed too: search, create and get in the chosen instance only', async () => {
    const s = await route('POST', `${V2}/service_asset_findings/search`, a.id, search({ ordering: [{ field: 'title', direction: 'desc' }] }));
    expect(s.status, s.text).toBe(200);
    expect(s.body[0].data.total).toBe(2);
    expect(s.body[0].data.items.map((i: any) => i.title)).toEqual([...TITLES[a.id]!].sort().reverse());
    const created = await route('POST', `${V2}/service_assets/create`, b.id, { name: 'srv-branch-b-01', type: 'Host' });
    expect(created.status, created.text).toBe(201);
    expect(created.body[0].status_code).toBe(201);
    const assetId = created.body[0].data.id as string;
    const inB = await route('GET', `${V2}/service_assets/${assetId}`, b.id);
    expect(inB.status).toBe(200);
    expect(inB.body[0].data.name).toBe('srv-branch-b-01');
    const inMain = await srv.call('GET', `${V2}/service_assets/${assetId}`);
    expect(inMain.status).toBe(404);
    const inA = await route('GET', `${V2}/service_assets/${assetId}`, a.id);
    expect(inA.status).toBe(404);
  });

  it('a public status update through the routing port changes that instance only', async () => {
    const objs = (await route('GET', `${PUB}/incidents?status=eq,new`, a.id)).body[0].data.objects;
    expect(objs).toHaveLength(1);
    const id = objs[0].id as string;
    const put = await route('PUT', `${PUB}/incidents/update/status`, a.id, { id, status: 'verify_close' });
    expect(put.status, put.text).toBe(200);
    expect(put.body[0].data).toEqual({});
    const after = await route('GET', `${V2}/service_asset_findings/${id}?relations=`, a.id);
    expect(after.body[0].data.status).toBe('verify_close');
    const wrong = await route('PUT', `${PUB}/incidents/update/status`, b.id, { id, status: 'closed' });
    expect(wrong.status).toBe(404);
    expect(wrong.body[0].data).toEqual({ error: 'not found', error_code: 404 });
  });

  it('an unknown instance is 404 instance not found', async () => {
    for (const id of [UNKNOWN_ID, 'not-an-id']) {
      const res = await route('GET', `${PUB}/incidents`, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'instance not found', error_code: 404 });
    }
  });
});

describe('authentication on the routing port', () => {
  it('without PgrApiKey or Authorization: 401 no auth header (with or without PgrSelectedInstance)', async () => {
    const variants: Record<string, string>[] = [{ PgrApiKey: '' }, { PgrApiKey: '', PgrSelectedInstance: main }];
    for (const headers of variants) {
      const res = await srv.call('GET', `${PUB}/incidents`, undefined, headers, srv.routing);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'no auth header', error_code: 401 });
    }
    const create = await srv.call('POST', '/data/v1/create', { Title: 'x' }, { PgrApiKey: '', PgrSelectedInstance: main }, srv.routing);
    expect(create.status).toBe(401);
    expect(create.body).toEqual({ error: 'no auth header', error_code: 401 });
  });

  it('a wrong key is 401 and reaches no instance', async () => {
    const before = (await srv.call('GET', `${PUB}/incidents?per_page=1`)).body.total;
    const res = await srv.call('POST', '/data/v1/create', { Title: 'x' }, { PgrApiKey: 'wrong-key-0000', PgrSelectedInstance: main }, srv.routing);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String), error_code: 401 });
    expect((await srv.call('GET', `${PUB}/incidents?per_page=1`)).body.total).toBe(before);
  });

  it('a request naming a non-loopback Host is refused on the routing port too (DNS rebinding)', async () => {
    const res = await rawRequest(`${srv.routing}${PUB}/incidents`, 'GET', { Host: 'attacker.example', PgrApiKey: TEST_KEY, PgrSelectedInstance: main });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden host', error_code: 403 });
  });
});
