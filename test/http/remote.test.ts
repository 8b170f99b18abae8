// Remote instances over real sockets: one test server plays a remote platform (its own key, the
// demo data), a recording proxy in front of it shows what the remote receives; the local server
// routes to it (spec: Multi-instance routing; contract.md §3 fan-out element). Also dead, slow,
// TLS (self-signed, CA file, pinned fingerprint) and oversized remotes, and a script-style client
// that uses only the spec's paths and headers.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import selfsigned from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_VERSION } from '../../src-shared/version';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';
import {
  api,
  deadUrl,
  expectElement,
  json,
  mainId,
  PUB,
  rawRequest,
  sleep,
  startHttp,
  startHttps,
  startRecordingProxy,
  UNKNOWN_ID,
  V2,
  type LittleServer,
} from './issue3-helpers';

const REMOTE_KEY = 'remote-platform-key-98765';
const MAX_BYTES = 1_500_000;

let local: TestServer;
let remote: TestServer;
let proxy: LittleServer;
let localMain: string;
let remoteMain: string;
let remoteInst: any;
const extra: LittleServer[] = [];

/** Straight to the remote platform, with its own key. */
const direct = (method: string, p: string, body?: unknown, base?: string) => remote.call(method, p, body, { PgrApiKey: REMOTE_KEY }, base);
/** The local routing port. */
const route = (method: string, p: string, instance?: string, body?: unknown, headers: Record<string, string> = {}) =>
  local.call(method, p, body, { ...(instance ? { PgrSelectedInstance: instance } : {}), ...headers }, local.routing);

async function addRemote(input: Record<string, unknown>): Promise<any> {
  const res = await local.call('POST', '/console/v1/instances', { kind: 'remote', api_key: REMOTE_KEY, ...input });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function removeInstance(id: string): Promise<void> {
  const res = await local.call('DELETE', `/console/v1/instances/${id}`);
  expect(res.status, res.text).toBe(200);
}

const withoutLinks = (body: any) => (body?.objects ? { ...body, objects: body.objects.map(({ front_link: _f, ...o }: any) => o) } : body);

beforeAll(async () => {
  remote = await startTestServer({ seed: 'demo', apiKey: REMOTE_KEY });
  // A remote in this process answers within the default time-out however busy the machine (the
  // time-out itself is tested with a remote of its own, below).
  local = await startTestServer({ instanceTimeoutMs: 60_000, maxRemoteBytes: MAX_BYTES });
  proxy = await startRecordingProxy(remote.main);
  localMain = await mainId(local);
  const list = await direct('GET', '/tenancy/instance/list');
  remoteMain = list.body[0].id;
  remoteInst = await addRemote({ name: 'Удалённая площадка', url: proxy.url });
});

afterAll(async () => {
  for (const s of [proxy, ...extra]) await s?.close();
  await local?.stop();
  await remote?.stop();
});

describe('a remote platform behind the routing port', () => {
  it('fan-out includes the remote\'s data beside the local instance\'s', async () => {
    const p = `${PUB}/incidents?per_page=5&order=display_id`;
    const res = await route('GET', p);
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((e: any) => e.id)).toEqual([localMain, remoteInst.id]);
    expectElement(res.body[0], { id: localMain, status: 200 });
    expect(res.body[0].data).toMatchObject({ objects: [], total: 0 });
    expectElement(res.body[1], { id: remoteInst.id, name: 'Удалённая площадка', status: 200 });
    const want = await direct('GET', p);
    expect(want.body.total).toBe(400);
    expect(res.body[1].data).toEqual(want.body);
  });

  it('a plain remote\'s element carries the remote\'s platform version (contract.md §3: version)', async () => {
    const fan = await route('GET', `${PUB}/findings?per_page=1`);
    const el = fan.body.find((e: any) => e.id === remoteInst.id);
    expectElement(el, { id: remoteInst.id, status: 200 });
    expect(el.version, 'the remote runs platform version 3.7.0').toBe(PLATFORM_VERSION);
  });

  it('with PgrSelectedInstance the one element holds exactly what the remote answers directly', async () => {
    for (const p of [`${PUB}/incidents?per_page=3&order=-risklevel`, `${PUB}/findings?type=eq,bruteforce`, `${PUB}/serviceAssets?per_page=2&page=3`, `${V2}/findings/_meta`]) {
      const res = await route('GET', p, remoteInst.id);
      const want = await direct('GET', p);
      expect(res.status, p).toBe(want.status);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body, p).toHaveLength(1);
      expectElement(res.body[0], { id: remoteInst.id, status: want.status });
      expect(res.body[0].data, p).toEqual(want.body);
    }
    const nf = await route('GET', `${V2}/service_asset_findings/${UNKNOWN_ID}`, remoteInst.id);
    expect(nf.status).toBe(404);
    expectElement(nf.body[0], { id: remoteInst.id, status: 404 });
    expect(nf.body[0].data).toEqual({ error: 'not found', error_code: 404 });
  });

  it('the remote receives its own key, never the caller\'s key or other credentials', async () => {
    const from = proxy.requests.length;
    await route('GET', `${PUB}/findings?per_page=1`, remoteInst.id, undefined, { Cookie: 'session=caller-cookie' });
    await route('GET', `${PUB}/findings?per_page=1`);
    const bearer = await route('GET', `${PUB}/findings?per_page=1`, remoteInst.id, undefined, { Authorization: 'Bearer caller.jwt.token' });
    expect(bearer.status).toBe(200);
    const seen = proxy.requests.slice(from);
    expect(seen).toHaveLength(3);
    for (const r of seen) {
      expect(r.headers.pgrapikey).toBe(REMOTE_KEY);
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers.pgrselectedinstance, 'the caller\'s instance choice is for this host only').toBeUndefined();
      expect(JSON.stringify(r.headers)).not.toContain(TEST_KEY);
      expect(JSON.stringify(r.headers)).not.toContain('caller');
    }
    for (const r of proxy.requests) expect(JSON.stringify(r.headers), 'no request ever carried the local key').not.toContain(TEST_KEY);
  });

  async function sendWithHopHeaders(): Promise<Record<string, any>> {
    const from = proxy.requests.length;
    const res = await rawRequest(`${local.routing}${PUB}/findings?per_page=1`, 'GET', {
      PgrApiKey: TEST_KEY,
      PgrSelectedInstance: remoteInst.id,
      Connection: 'keep-alive, X-Hop-Custom',
      'Keep-Alive': 'timeout=5, max=100',
      'X-Hop-Custom': 'must-not-pass',
      'Proxy-Authorization': 'Basic Y2FsbGVyOnNlY3JldA==',
      'Proxy-Connection': 'keep-alive',
      TE: 'trailers',
      'X-Request-Id': 'req-42',
      'Accept-Language': 'ru-RU',
    });
    expect(res.status, res.text).toBe(200);
    const r = proxy.requests.slice(from);
    expect(r).toHaveLength(1);
    return r[0]!.headers;
  }

  it('hop-by-hop headers are not forwarded; end-to-end ones are', async () => {
    const h = await sendWithHopHeaders();
    for (const name of ['keep-alive', 'proxy-authorization', 'proxy-connection', 'te']) expect(h[name], name).toBeUndefined();
    expect(h.connection ?? '').not.toMatch(/x-hop-custom/i);
    expect(h['x-request-id']).toBe('req-42');
    expect(h['accept-language']).toBe('ru-RU');
  });

  it('a header named in the caller\'s Connection header is hop-by-hop too and is not forwarded', async () => {
    const h = await sendWithHopHeaders();
    expect(h['x-hop-custom'], 'RFC 9110 §7.6.1: a proxy removes the fields listed in Connection').toBeUndefined();
  });

  it('method, path, query and body are kept: a POST search and a PUT status update change and read the remote', async () => {
    const from = proxy.requests.length;
    const q = `${PUB}/incidents?status=in,new,assigned_customer&order=-risklevel,display_id&per_page=4&search=${encodeURIComponent('пароль')}`;
    const listed = await route('GET', q, remoteInst.id);
    expect(listed.body[0].data).toEqual((await direct('GET', q)).body);
    expect(proxy.requests[from]!.method).toBe('GET');
    expect(proxy.requests[from]!.url).toBe(q);

    const body = search({
      filters: [
        { field: 'status', filter_type: 'equal', value: 'new' },
        { field: 'title', filter_type: 'substr', value: 'ПАРОЛ' },
      ],
      ordering: [{ field: 'risklevel', direction: 'desc' }],
      limit: 5,
    });
    const found = await route('POST', `${V2}/service_asset_findings/search`, remoteInst.id, body);
    expect(found.status, found.text).toBe(200);
    const wantFound = await direct('POST', `${V2}/service_asset_findings/search`, body);
    expect(found.body[0].data).toEqual(wantFound.body);
    expect(wantFound.body.total).toBeGreaterThan(0);
    const post = proxy.requests.at(-1)!;
    expect(post.method).toBe('POST');
    expect(post.url).toBe(`${V2}/service_asset_findings/search`);
    expect(JSON.parse(post.body)).toEqual(body);
    expect(post.headers['content-type']).toContain('application/json');

    const id = wantFound.body.items[0].id as string;
    const put = await route('PUT', `${PUB}/incidents/update/status`, remoteInst.id, { id, status: 'working_customer' });
    expect(put.status, put.text).toBe(200);
    expect(put.body[0].data).toEqual({});
    const last = proxy.requests.at(-1)!;
    expect(last.method).toBe('PUT');
    expect(last.url).toBe(`${PUB}/incidents/update/status`);
    expect(JSON.parse(last.body)).toEqual({ id, status: 'working_customer' });
    const after = await direct('GET', `${V2}/service_asset_findings/${id}?relations=`);
    expect(after.body.status).toBe('working_customer');
    expect(after.body.acknowledged_at).not.toBeNull();
    const crit = await route('PUT', `${PUB}/incidents/update/critical`, remoteInst.id, { id, risklevel: 9.3 });
    expect(crit.status).toBe(200);
    expect((await direct('GET', `${V2}/service_asset_findings/${id}?relations=`)).body.risk).toBe('critical');
  });

  it('only configured instances are contacted: an unknown PgrSelectedInstance sends nothing out', async () => {
    const from = proxy.requests.length;
    const res = await route('GET', `${PUB}/incidents`, UNKNOWN_ID);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'instance not found', error_code: 404 });
    const create = await route('POST', '/data/v1/create', UNKNOWN_ID, { Title: 'x' });
    expect(create.status).toBe(404);
    await sleep(100);
    expect(proxy.requests.length).toBe(from);
    await route('GET', `${PUB}/findings?per_page=1`);
    expect(proxy.requests.length, 'one fan-out: one request to the remote').toBe(from + 1);
  });

  it('a remote with remote_instance_id (its routing port): the envelope is unwrapped, its key and instance sent', async () => {
    const rproxy = await startRecordingProxy(remote.routing);
    extra.push(rproxy);
    const inst = await addRemote({ name: 'Площадка через маршрутизатор', url: rproxy.url, remote_instance_id: remoteMain });
    try {
      const p = `${PUB}/incidents?per_page=2&order=display_id`;
      const want = await direct('GET', p);
      const fan = await route('GET', p);
      expect(fan.status).toBe(200);
      const el = fan.body.find((e: any) => e.id === inst.id);
      expectElement(el, { id: inst.id, status: 200 });
      expect(Array.isArray(el.data), 'not an envelope inside an envelope').toBe(false);
      expect(withoutLinks(el.data)).toEqual(withoutLinks(want.body));
      expect(el.version).toBe(PLATFORM_VERSION);
      const one = await route('GET', p, inst.id);
      expect(one.status).toBe(200);
      expect(one.body).toHaveLength(1);
      expect(withoutLinks(one.body[0].data)).toEqual(withoutLinks(want.body));
      const nf = await route('GET', `${V2}/service_asset_findings/${UNKNOWN_ID}`, inst.id);
      expect(nf.status, 'the remote instance\'s own status').toBe(404);
      expect(nf.body[0].status_code).toBe(404);
      expect(nf.body[0].data).toEqual({ error: 'not found', error_code: 404 });
      expect(rproxy.requests.length).toBeGreaterThanOrEqual(3);
      for (const r of rproxy.requests) {
        expect(r.headers.pgrapikey).toBe(REMOTE_KEY);
        expect(r.headers.pgrselectedinstance).toBe(remoteMain);
      }
    } finally {
      await removeInstance(inst.id);
    }
  });
});

describe('failing remotes', () => {
  it('a dead remote: its element 502 with {error, error_code}; the other elements are fine', async () => {
    const inst = await addRemote({ name: 'Недоступная', url: await deadUrl() });
    try {
      const res = await route('GET', `${PUB}/findings?per_page=1`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(3);
      const byId = Object.fromEntries(res.body.map((e: any) => [e.id, e]));
      expectElement(byId[inst.id], { id: inst.id, name: 'Недоступная', status: 502 });
      expect(byId[inst.id].data).toEqual({ error: expect.any(String), error_code: 502 });
      expectElement(byId[localMain], { id: localMain, status: 200 });
      expectElement(byId[remoteInst.id], { id: remoteInst.id, status: 200 });
      expect(byId[remoteInst.id].data.total).toBe(40);
      const one = await route('GET', `${PUB}/findings`, inst.id);
      expect(one.status).toBe(502);
      expectElement(one.body[0], { id: inst.id, status: 502 });
    } finally {
      await removeInstance(inst.id);
    }
  });

  it('a slow remote: 504 in its element once its timeout_ms has passed; the others and the whole answer do not wait', async () => {
    // It never answers: a call that waited for it would not end (the test's time-out), one that
    // ends with 504 in its element waited for timeout_ms and no longer.
    const slow = await startHttp(() => {});
    extra.push(slow);
    const TIMEOUT = 700;
    const inst = await addRemote({ name: 'Медленная', url: slow.url, timeout_ms: TIMEOUT });
    try {
      const t0 = performance.now();
      const res = await route('GET', `${PUB}/findings?per_page=1`);
      const took = performance.now() - t0;
      expect(res.status).toBe(200);
      const byId = Object.fromEntries(res.body.map((e: any) => [e.id, e]));
      expectElement(byId[inst.id], { id: inst.id, status: 504 });
      expect(byId[inst.id].data).toEqual({ error: expect.any(String), error_code: 504 });
      expectElement(byId[remoteInst.id], { id: remoteInst.id, status: 200 });
      expectElement(byId[localMain], { id: localMain, status: 200 });
      expect(took, 'waited for the time-out').toBeGreaterThanOrEqual(TIMEOUT - 50);
      const one = await route('GET', `${PUB}/findings`, inst.id);
      expect(one.status).toBe(504);
      expectElement(one.body[0], { id: inst.id, status: 504 });
      expect(slow.requests.length).toBe(2);
    } finally {
      await removeInstance(inst.id);
    }
  });

  it('instances are called in parallel: two remotes that answer only once both were asked both answer', async () => {
    // Each holds its answer until the other has been asked too: called one after the other, the
    // first would wait for its time-out (504) before the second was asked.
    let asked = 0;
    const waiting: (() => void)[] = [];
    const servers = await Promise.all(
      [0, 1].map(() =>
        startHttp((_req, res) => {
          asked++;
          waiting.push(() => json(res, 200, { objects: [], total: 0 }));
          if (asked === 2) for (const answer of waiting.splice(0)) answer();
        }),
      ),
    );
    extra.push(...servers);
    const insts = [];
    for (const [i, s] of servers.entries()) insts.push(await addRemote({ name: `Неспешная ${i}`, url: s.url, timeout_ms: 5_000 }));
    try {
      const res = await route('GET', `${PUB}/findings?per_page=1`);
      for (const inst of insts) expectElement(res.body.find((e: any) => e.id === inst.id), { id: inst.id, status: 200 });
      expect(asked).toBe(2);
    } finally {
      for (const inst of insts) await removeInstance(inst.id);
    }
  });

  it('an answer larger than maxRemoteBytes is 502 (fan-out and selected), smaller ones pass', async () => {
    const big = `${PUB}/incidents?per_page=1000`;
    const size = (await direct('GET', big)).text.length;
    expect(size, 'the test answer exceeds the bound').toBeGreaterThan(MAX_BYTES);
    const fan = await route('GET', big);
    expect(fan.status).toBe(200);
    const el = fan.body.find((e: any) => e.id === remoteInst.id);
    expectElement(el, { id: remoteInst.id, status: 502 });
    expect(el.data).toEqual({ error: expect.any(String), error_code: 502 });
    const one = await route('GET', big, remoteInst.id);
    expect(one.status).toBe(502);
    expectElement(one.body[0], { id: remoteInst.id, status: 502 });
    const small = await route('GET', `${PUB}/incidents?per_page=10`, remoteInst.id);
    expect(small.status).toBe(200);
    expect(small.body[0].data.objects).toHaveLength(10);
  });

  it('a chunked answer (no Content-Length) larger than maxRemoteBytes: 502 in fan-out; never a complete 200 when selected', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const flood = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"objects":[],"pad":"');
      let sent = 0;
      const pump = () => {
        while (sent < MAX_BYTES * 2) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      res.on('error', () => undefined);
      pump();
    });
    extra.push(flood);
    const inst = await addRemote({ name: 'Слишком много', url: flood.url });
    try {
      const fan = await route('GET', `${PUB}/findings`);
      const el = fan.body.find((e: any) => e.id === inst.id);
      expectElement(el, { id: inst.id, status: 502 });
      const one = await rawRequest(`${local.routing}${PUB}/findings`, 'GET', { PgrApiKey: TEST_KEY, PgrSelectedInstance: inst.id });
      const completeOk = one.status === 200 && !one.aborted && typeof one.body === 'object';
      expect(completeOk, `status ${one.status}, aborted ${one.aborted}, ${one.text.length} bytes`).toBe(false);
      expect(one.text.length).toBeLessThan(MAX_BYTES + 64 * 1024 * 2);
    } finally {
      await removeInstance(inst.id);
    }
  });
});

describe('TLS remotes', () => {
  let tlsA: { private: string; cert: string };
  let tlsB: { private: string; cert: string };
  let server: LittleServer;
  let caFile: string;
  const sha256 = (pem: string) => new crypto.X509Certificate(pem).fingerprint256;

  beforeAll(async () => {
    const opts = {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName' as const, altNames: [{ type: 2 as const, value: 'localhost' }, { type: 7 as const, ip: '127.0.0.1' }] }],
    };
    tlsA = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], opts);
    tlsB = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], opts);
    server = await startHttps({ key: tlsA.private, cert: tlsA.cert }, (req, res) => json(res, 200, { tls: true, url: req.url, key: req.headers.pgrapikey }));
    extra.push(server);
    caFile = path.join(local.dir, 'remote-ca.pem');
    fs.writeFileSync(caFile, tlsA.cert);
  });

  async function through(input: Record<string, unknown>): Promise<any> {
    const inst = await addRemote({ name: `TLS ${crypto.randomUUID().slice(0, 8)}`, url: server.url, ...input });
    try {
      const res = await route('GET', `${PUB}/findings?x=1`, inst.id);
      expect(res.body, res.text).toHaveLength(1);
      expect(res.body[0].status_code).toBe(res.status);
      return res;
    } finally {
      await removeInstance(inst.id);
    }
  }

  it('a self-signed certificate is refused without ca_file (502, a certificate error)', async () => {
    const res = await through({});
    expect(res.status).toBe(502);
    expect(res.body[0].data.error_code).toBe(502);
    expect(res.body[0].data.error).toMatch(/certificate|self[- ]signed|DEPTH_ZERO|CERT/i);
  });

  it('accepted with ca_file = that certificate; the remote gets its key over TLS', async () => {
    const res = await through({ ca_file: caFile });
    expect(res.status, res.text).toBe(200);
    expect(res.body[0].data).toEqual({ tls: true, url: `${PUB}/findings?x=1`, key: REMOTE_KEY });
  });

  it('pinned_sha256 of another certificate is refused even with the right ca_file; the matching pin is accepted', async () => {
    expect(sha256(tlsA.cert)).not.toBe(sha256(tlsB.cert));
    const wrong = await through({ ca_file: caFile, pinned_sha256: sha256(tlsB.cert) });
    expect(wrong.status).toBe(502);
    expect(wrong.body[0].data.error).toMatch(/pin|fingerprint/i);
    const right = await through({ ca_file: caFile, pinned_sha256: sha256(tlsA.cert) });
    expect(right.status, right.text).toBe(200);
    const lower = await through({ ca_file: caFile, pinned_sha256: sha256(tlsA.cert).replace(/:/g, '').toLowerCase() });
    expect(lower.status, 'the pin in lower-case hex without colons').toBe(200);
  });

  it('a matching pin alone does not turn verification off (no ca_file: still refused)', async () => {
    const res = await through({ pinned_sha256: sha256(tlsA.cert) });
    expect(res.status).toBe(502);
  });
});

describe('a script-style client (only the spec\'s paths and headers)', () => {
  it('lists instances, lists incidents, changes a status, creates an incident on :routing and reads it back', async () => {
    const KEY = TEST_KEY;
    const MAIN = local.main;
    const ROUTING = local.routing;
    // 1. GET {master_host}:9000/tenancy/instance/list
    const instances = await api(MAIN, KEY, 'GET', '/tenancy/instance/list');
    expect(instances.status).toBe(200);
    const target = (instances.body as any[]).find((i) => i.name === 'Удалённая площадка');
    expect(target).toMatchObject({ id: remoteInst.id, url: proxy.url, sort_order: expect.any(Number) });
    // 2. GET {public_url}/incidents with standard filters, on the chosen instance
    const listed = await api(ROUTING, KEY, 'GET', `${PUB}/incidents?status=eq,new&order=-risklevel&per_page=3`, undefined, { PgrSelectedInstance: target.id });
    expect(listed.status).toBe(200);
    const incidents = listed.body.flatMap((e: any) => e.data.objects);
    expect(incidents).toHaveLength(3);
    expect(listed.body[0].data.total).toBeGreaterThan(3);
    // 3. PUT {public_url}/incidents/update/status
    const id = incidents[0].id as string;
    const st = await api(ROUTING, KEY, 'PUT', `${PUB}/incidents/update/status`, { id, status: 'feedback_required' }, { PgrSelectedInstance: target.id });
    expect(st.status).toBe(200);
    // 4. POST :9009/data/v1/create with ServiceAssetFindingDBFields
    const created = await api(
      ROUTING,
      KEY,
      'POST',
      '/data/v1/create',
      { ServiceAssetFindingDBFields: { Title: 'Создано скриптом', Status: 'new', Risklevel: 6.5, CreatedAt: '2026-10-30T10:00:00Z', ReopenedAt: '0001-01-01T00:00:00Z' } },
      { PgrSelectedInstance: target.id },
    );
    expect(created.status, created.text).toBe(200);
    const newId = created.body[0].data.id as string;
    expect(newId).toMatch(/^[0-9a-f-]{36}$/);
    // 5. read both back through the routing port
    const back = await api(ROUTING, KEY, 'GET', `${PUB}/incidents?id=in,${newId},${id}&order=display_id`, undefined, { PgrSelectedInstance: target.id });
    expect(back.status).toBe(200);
    const got = Object.fromEntries(back.body[0].data.objects.map((o: any) => [o.id, o]));
    expect(got[newId]).toMatchObject({ title: 'Создано скриптом', status: 'new', risk: 'medium', created_at: '2026-10-30T10:00:00.000000Z', reopened_at: null });
    expect(got[id].status).toBe('feedback_required');
    // the remote itself has them
    expect((await direct('GET', `${V2}/service_asset_findings/${newId}?relations=`)).body.title).toBe('Создано скриптом');
  });
});
