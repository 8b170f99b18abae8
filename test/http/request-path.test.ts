// What every request passes through, over a real socket: the Host check (its answer kept per
// Host value), the key checked before the public paths, the static paths of other methods
// guarding parametric routes (GET and HEAD), and the instance list answered at once.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';
import { B } from './gen';

let srv: TestServer;
let port = 0;

beforeAll(async () => {
  srv = await startTestServer();
  port = Number(new URL(srv.main).port);
});

afterAll(async () => {
  await srv?.stop();
});

/** A raw request with chosen headers, Host included (fetch does not let one set it). */
function raw(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Host check, kept per Host value', () => {
  it('answers each Host the same however often and in whatever order it comes', async () => {
    const path = `${B}/software_groups/_meta`;
    const local = `127.0.0.1:${port}`;
    for (let i = 0; i < 3; i++) {
      for (const [host, status] of [
        [local, 200],
        ['evil.example', 403],
        [`localhost:${port}`, 200],
        [`127.0.0.1.evil.example:${port}`, 403],
      ] as const) {
        const res = await raw('GET', path, { Host: host, PgrApiKey: TEST_KEY });
        expect(res.status, `${host}: ${res.text}`).toBe(status);
        if (status === 403) expect(JSON.parse(res.text)).toEqual({ error: 'forbidden host', error_code: 403 });
      }
    }
  });

  it('refuses a foreign Host even with the right key, on every path', async () => {
    for (const path of ['/tenancy/instance/list', '/', `${B}/software_groups/_meta`]) {
      expect((await raw('GET', path, { Host: 'evil.example', PgrApiKey: TEST_KEY })).status, path).toBe(403);
    }
  });
});

describe('the key, checked before the paths served without one', () => {
  const host = () => `127.0.0.1:${port}`;

  it('serves the console shell with the right key, a wrong one, or none', async () => {
    for (const key of [TEST_KEY, 'not-the-key', undefined]) {
      const res = await raw('GET', '/', { Host: host(), ...(key === undefined ? {} : { PgrApiKey: key }) });
      expect(res.status, `${key}: ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.headers['content-security-policy']).toBeDefined();
    }
  });

  it('refuses the API with a wrong key or none, each with its own text', async () => {
    const wrong = await raw('GET', '/tenancy/instance/list', { Host: host(), PgrApiKey: 'not-the-key' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toEqual({ error: 'invalid api key', error_code: 401 });
    const none = await raw('GET', '/tenancy/instance/list', { Host: host() });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error_code).toBe(401);
  });

  it('answers the instance list with the right key, the platform version on the answer and no console headers', async () => {
    const res = await raw('GET', '/tenancy/instance/list', { Host: host(), PgrApiKey: TEST_KEY });
    expect(res.status, res.text).toBe(200);
    const list = JSON.parse(res.text) as { id: string; name: string; url: string; sort_order: number }[];
    expect(list[0]).toMatchObject({ name: expect.any(String), url: srv.main, sort_order: 0 });
    expect(res.headers['x-radar-platform-version']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});

describe("another method's static path is not taken by a parametric route", () => {
  it('is 405 with Allow for GET and HEAD, and the parametric route still answers its own paths', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await raw(method, `${B}/software_groups/search`, { Host: `127.0.0.1:${port}`, PgrApiKey: TEST_KEY });
      expect(res.status, `${method}: ${res.text}`).toBe(405);
      expect(res.headers.allow).toBe('POST');
    }
    const missing = await raw('GET', `${B}/software_groups/6f1c1b8e-2f0f-4a44-9a39-000000000000`, { Host: `127.0.0.1:${port}`, PgrApiKey: TEST_KEY });
    expect(missing.status, missing.text).toBe(404);
  });
});
