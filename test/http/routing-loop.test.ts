// Routing loops: a routed request never routes again. The console's routing endpoint naming
// itself (at any depth, %-encoded, through either port), an instance whose URL is this server,
// and two servers listing each other's routing ports all end in one bounded answer, never in a
// fan-out that grows with the depth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { PUB } from './issue3-helpers';

let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestServer();
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

const nested = (depth: number, tail = `${PUB}/incidents`) => `${'/console/v1/route'.repeat(depth)}${tail}`;

describe('a routed path naming the routing endpoint', () => {
  it('is refused at once on the main port, whatever the depth', async () => {
    for (const depth of [2, 3, 30, 200]) {
      const res = await a.call('GET', nested(depth));
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'a routed path cannot name /console/v1/route itself', error_code: 400 });
    }
  });

  it('is refused on the routing port too, with or without PgrSelectedInstance', async () => {
    const main = (await a.call('GET', '/tenancy/instance/list')).body[0].id as string;
    for (const headers of [{}, { PgrSelectedInstance: main }] as Record<string, string>[]) {
      const res = await a.call('GET', nested(5), undefined, headers, a.routing);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
  });

  it('is refused when %-encoded or written with doubled slashes', async () => {
    for (const p of ['/console/v1/route/console/v1/%72oute/x', '/console/v1/route//console//v1/route/x', '/console/v1/route/%2Fconsole%2Fv1%2Froute%2Fx']) {
      const res = await a.call('GET', p);
      expect([400, 404, 508], `${p}: ${res.text}`).toContain(res.status);
      expect(res.body.error_code).toBe(res.status);
    }
  });

  it('a plain routed path still works', async () => {
    const res = await a.call('GET', `/console/v1/route${PUB}/incidents?per_page=1`);
    expect(res.status, res.text).toBe(200);
    expect(res.body[0].status_code).toBe(200);
  });
});

describe('an instance that points back at this server', () => {
  it('is refused when added through the console API (main port, routing port, other loopback names)', async () => {
    const port = (u: string) => new URL(u).port;
    for (const url of [a.main, a.routing, `http://localhost:${port(a.routing)}`, `http://127.0.0.2:${port(a.main)}`]) {
      const res = await a.call('POST', '/console/v1/instances', { kind: 'remote', name: `self ${url}`, url, api_key: 'whatever-key' });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatch(/this server itself/);
    }
  });

  it('is refused when changed to this server', async () => {
    const add = await a.call('POST', '/console/v1/instances', { kind: 'remote', name: 'elsewhere', url: 'http://127.0.0.1:9', api_key: 'whatever-key' });
    expect(add.status, add.text).toBe(201);
    const res = await a.call('PUT', `/console/v1/instances/${add.body.id}`, { url: a.routing });
    expect(res.status, res.text).toBe(400);
    await a.call('DELETE', `/console/v1/instances/${add.body.id}`);
  });

  it('written into the catalog directly (as the CLI can), a fan-out still ends: that element is 508', async () => {
    const row = a.manager.catalog.add({ kind: 'remote', name: 'loop to self', url: a.routing, api_key: 'test-api-key-0123456789' });
    try {
      const rssBefore = process.memoryUsage().rss;
      const res = await a.call('GET', `${PUB}/incidents?per_page=1`, undefined, {}, a.routing);
      expect(res.status, res.text).toBe(200);
      const el = res.body.find((e: { id: string }) => e.id === row.id);
      expect(el.status_code).toBe(508);
      expect(el.data).toEqual({ error: 'routing loop: this request was already routed by this server', error_code: 508 });
      expect(res.body.find((e: { id: string }) => e.id !== row.id).status_code).toBe(200);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    } finally {
      a.manager.catalog.remove(row.id);
    }
  });
});

describe('two servers listing each other', () => {
  it('a fan-out through either ends with a 508 element for the way back, not an endless exchange', async () => {
    const ab = a.manager.catalog.add({ kind: 'remote', name: 'B', url: b.routing, api_key: 'test-api-key-0123456789' });
    const ba = b.manager.catalog.add({ kind: 'remote', name: 'A', url: a.routing, api_key: 'test-api-key-0123456789' });
    try {
      const res = await a.call('GET', `${PUB}/findings?per_page=1`, undefined, {}, a.routing);
      expect(res.status, res.text).toBe(200);
      const viaB = res.body.find((e: { id: string }) => e.id === ab.id);
      // B answered with its own fan-out: its main instance, and A refusing the way back.
      expect(viaB.status_code).toBe(200);
      const back = viaB.data.find((e: { id: string }) => e.id === ba.id);
      expect(back.status_code).toBe(508);
    } finally {
      a.manager.catalog.remove(ab.id);
      b.manager.catalog.remove(ba.id);
    }
  });

  it('a request that has been routed too many times is refused', async () => {
    const hops = ['1', '2', '3', '4'].map((n) => `00000000-0000-4000-8000-00000000000${n}`).join(',');
    const res = await a.call('GET', `${PUB}/findings`, undefined, { 'x-radar-route-hops': hops }, a.routing);
    expect(res.status, res.text).toBe(508);
    expect(res.body.error_code).toBe(508);
  });
});
