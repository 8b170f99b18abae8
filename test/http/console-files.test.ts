// The console's files over a real socket: the build's hashed files (assets/) kept by the browser
// for good, index.html and the other files asked again each time; answered by the port itself
// before its app is built; conditional requests, HEAD, the Host check, nothing outside the
// console's folder, and a new build served at once.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_TYPES, ConsoleFiles, CSP } from '../../src-main/server/console-files';
import { Gate } from '../../src-main/server/gate';
import { PLATFORM_VERSION } from '../../src-shared/version';
import { startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv?.stop();
});

describe("the console's files", () => {
  it('keeps the hashed assets for good and asks index.html again each time', async () => {
    const index = await fetch(`${srv.main}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('public, max-age=0');
    const html = await index.text();
    const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const res = await fetch(`${srv.main}/${f}`);
      expect(res.status, f).toBe(200);
      expect(res.headers.get('cache-control'), f).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy'), f).toBeTruthy();
      await res.arrayBuffer();
    }
    const icon = await fetch(`${srv.main}/favicon.svg`);
    expect(icon.headers.get('cache-control')).toBe('public, max-age=0');
    await icon.arrayBuffer();
    // A file the build did not make is a 404, kept by nobody.
    const missing = await fetch(`${srv.main}/assets/no-such-file-0000.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).not.toBe('public, max-age=31536000, immutable');
    await missing.arrayBuffer();
  });

  it('answers conditional requests (304 with the same validators), HEAD without a body, and every header of the console', async () => {
    const first = await fetch(`${srv.main}/index.html`);
    const html = await first.text();
    const etag = first.headers.get('etag')!;
    const modified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(html)));
    expect(first.headers.get('content-security-policy')).toBe(CSP);
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    expect(first.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(first.headers.get('x-radar-platform-version')).toBe(PLATFORM_VERSION);
    const conditionals: Record<string, string>[] = [{ 'If-None-Match': etag }, { 'If-None-Match': `"other", ${etag}` }, { 'If-Modified-Since': modified }];
    for (const conditional of conditionals) {
      const again = await fetch(`${srv.main}/`, { headers: conditional });
      expect(again.status, JSON.stringify(conditional)).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
    }
    const changed = await fetch(`${srv.main}/`, { headers: { 'If-None-Match': '"other"' } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe(html);
    const head = await fetch(`${srv.main}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(html)));
    expect(await head.text()).toBe('');
  });

  it('serves nothing outside the console folder, refuses a foreign Host, and answers other methods in the error shape', async () => {
    // Sent as written (a client would resolve the dots first).
    for (const url of ['/assets/..%2f..%2fpackage.json', '/assets/%2e%2e/%2e%2e/package.json', '/assets/../../package.json', '/assets/.hidden', '/favicon.ico']) {
      const res = await rawGet(srv.main, url, '127.0.0.1');
      expect(res.status, url).toBe(404);
      expect(JSON.parse(res.body), url).toMatchObject({ error_code: 404 });
    }
    const foreign = await rawGet(srv.main, '/', 'attacker.example');
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error_code: 403 });
    const post = await fetch(`${srv.main}/`, { method: 'POST' });
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(await post.json()).toHaveProperty('error_code');
  });
});

describe("the console's files on a port whose app is not built yet", () => {
  it('are answered at once (a new build too), while API requests wait for the app', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-console-files-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/a-1.js"></script>');
    fs.writeFileSync(path.join(dir, 'assets', 'a-1.js'), 'export const a = 1;');
    const files = new ConsoleFiles(dir);
    let opened = 0;
    files.onIndexServed(() => opened++);
    const gate = new Gate({ maxHeaderSize: 16 * 1024, headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 }, files);
    try {
      const base = `http://127.0.0.1:${await gate.listen('127.0.0.1', 0)}`;
      const index = await fetch(`${base}/`);
      expect(index.status).toBe(200);
      expect(await index.text()).toContain('a-1.js');
      expect(opened).toBe(1);
      const asset = await fetch(`${base}/assets/a-1.js`);
      expect(asset.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await asset.text()).toBe('export const a = 1;');
      // A build made after the start: its new files are served, its index.html as it is now.
      fs.writeFileSync(path.join(dir, 'assets', 'b-2.js'), 'export const b = 2;');
      fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/b-2.js"></script>');
      expect(await (await fetch(`${base}/`)).text()).toContain('b-2.js');
      expect(await (await fetch(`${base}/assets/b-2.js`)).text()).toBe('export const b = 2;');
      // The API waits for the app (never built here): no answer in half a second.
      const api = fetch(`${base}/cruddy/v2/incidents/search`, { method: 'POST', signal: AbortSignal.timeout(500) });
      await expect(api).rejects.toThrow();
      // A file the build did not make waits for the app too (which answers 404 in the error shape).
      await expect(fetch(`${base}/assets/none.js`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    } finally {
      await gate.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a content type for every file the build makes', () => {
    const dir = path.resolve(__dirname, '../../out/renderer');
    const all = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? all(path.join(d, e.name)) : [path.join(d, e.name)]));
    const unknown = all(dir).filter((f) => !(path.extname(f).toLowerCase() in CONTENT_TYPES));
    expect(unknown).toEqual([]);
  });
});

/** A GET with a Host header fetch would not let a page set. */
function rawGet(base: string, urlPath: string, host: string): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: urlPath, headers: { Host: host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
