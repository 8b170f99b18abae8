// The console's files over a real socket: the build's hashed files (assets/) kept by the browser
// for good, index.html and the other files asked again each time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
