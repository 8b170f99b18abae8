// Download tickets over a real socket: a link that downloads one export without credentials,
// once, before it expires; the download followed and cancelled; every other route still needs
// credentials, and a ticket never reaches the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let srv: TestServer;
let short: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  const origWrite = process.stderr.write.bind(process.stderr);
  // The log goes to stderr: kept here to show that no ticket reaches it.
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logged.push(String(chunk));
    return (origWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  [srv, short] = await Promise.all([startTestServer({ seed: 'demo', log: true }), startTestServer({ seed: 'demo', limits: { exportTicketMs: 1200 } })]);
});

afterAll(async () => {
  await Promise.all([srv?.stop(), short?.stop()]);
});

const NDJSON = { resource: 'service_asset_findings', format: 'ndjson', search: { filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] } } as const;

/** A GET with no credentials at all (a browser following a link). */
const bare = (url: string, init: RequestInit = {}) => fetch(url, init);

async function ticket(s: TestServer, body: unknown = NDJSON) {
  const r = await s.call('POST', '/console/v1/export/tickets', body);
  expect(r.status).toBe(201);
  return r.body as { id: string; url: string; expires_at: string };
}

describe('download tickets', () => {
  it('downloads its export once without credentials; the same export as with the key', async () => {
    const t = await ticket(srv);
    expect(t.url).toMatch(new RegExp(`^${srv.main}/console/v1/export\\?ticket=[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(t.expires_at) - Date.now()).toBeGreaterThan(50_000);
    expect(Date.parse(t.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    const waiting = await srv.call('GET', `/console/v1/export/tickets/${t.id}`);
    expect(waiting.body).toMatchObject({ id: t.id, state: 'waiting', resource: 'service_asset_findings', format: 'ndjson', rows: 0, filename: null });

    const res = await bare(t.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="service_asset_findings-\d{8}T\d{6}Z\.ndjson"$/);
    const text = await res.text();
    const keyed = await fetch(`${srv.main}/console/v1/export`, { method: 'POST', headers: { PgrApiKey: TEST_KEY, 'content-type': 'application/json' }, body: JSON.stringify(NDJSON) });
    const same = await keyed.text();
    expect(text).toBe(same);
    const lines = text.trim().split('\n');
    expect(lines.length).toBe(Number(res.headers.get('x-total-count')));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => (JSON.parse(l) as { status: string }).status === 'new')).toBe(true);

    // Followed: done, with its rows, bytes and file name.
    const done = await srv.call('GET', `/console/v1/export/tickets/${t.id}`);
    expect(done.body).toMatchObject({ state: 'done', rows: lines.length, expected: lines.length, total: lines.length, bytes: Buffer.byteLength(text), error: null });
    expect(done.body.filename).toBe(/filename="([^"]+)"/.exec(res.headers.get('content-disposition')!)![1]);

    // Once only.
    const again = await bare(t.url);
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({ error: 'the download ticket was already used', error_code: 401 });
  });

  it('refuses an unknown ticket, and other parameters beside a ticket (without using it up)', async () => {
    const unknown = await bare(`${srv.main}/console/v1/export?ticket=${'A'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'unknown download ticket', error_code: 401 });

    const t = await ticket(srv);
    // A ticket is for its own export: another resource, format or filter beside it is refused.
    for (const extra of ['resource=service_assets', 'format=csv', 'columns=id', `search=${encodeURIComponent('{}')}`]) {
      const r = await bare(`${t.url}&${extra}`);
      expect(r.status).toBe(400);
      const body = (await r.json()) as { error: string; error_code: number };
      expect(body.error_code).toBe(400);
      expect(body.error).toMatch(/^a ticket stands for the export it was made for/);
    }
    expect((await srv.call('GET', `/console/v1/export/tickets/${t.id}`)).body.state).toBe('waiting');
    expect((await bare(t.url)).status).toBe(200);
  });

  it('expires unused', async () => {
    const t = await ticket(short);
    expect(Date.parse(t.expires_at) - Date.now()).toBeLessThanOrEqual(1200);
    await new Promise((r) => setTimeout(r, 1500));
    const r = await bare(t.url);
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({ error: 'the download ticket has expired', error_code: 401 });
    expect((await short.call('GET', `/console/v1/export/tickets/${t.id}`)).body.state).toBe('expired');
  });

  it('checks the export before making a link: a bad request gets no ticket', async () => {
    const cases: [unknown, number, RegExp][] = [
      [{ resource: 'nope', format: 'json' }, 400, /unknown resource: nope/],
      [{ resource: 'service_asset_findings', format: 'csv', columns: ['id', 'nope'] }, 400, /unknown column: nope/],
      [{ resource: 'service_asset_findings', format: 'xml' }, 400, /format/],
      [{ resource: 'service_asset_findings', format: 'json', instance: 'no-such-instance' }, 404, /no instance/],
      [{ resource: 'incidents', format: 'json', query: 'status=zz,new' }, 400, /./],
    ];
    for (const [body, status, text] of cases) {
      const r = await srv.call('POST', '/console/v1/export/tickets', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error_code).toBe(status);
      expect(r.body.error).toMatch(text);
    }
  });

  it('needs credentials to get a ticket, to follow a download, and everywhere else even with a ticket', async () => {
    const t = await ticket(srv);
    const secret = new URL(t.url).searchParams.get('ticket')!;
    const noKey = { PgrApiKey: '' };
    expect((await srv.call('POST', '/console/v1/export/tickets', NDJSON, noKey)).status).toBe(401);
    expect((await srv.call('GET', `/console/v1/export/tickets/${t.id}`, undefined, noKey)).status).toBe(401);
    // The ticket opens its export's link only: not the POST export, not another route, not HEAD.
    for (const [method, path] of [
      ['POST', `/console/v1/export?ticket=${secret}`],
      ['GET', `/console/v1/jobs?ticket=${secret}`],
      ['GET', `/data/public/api/v1/incidents?ticket=${secret}`],
      ['GET', `/console/v1/export/tickets/${t.id}?ticket=${secret}`],
      ['GET', `/console/v1/export/tickets?ticket=${secret}`],
    ] as const) {
      const r = await srv.call(method, path, method === 'POST' ? NDJSON : undefined, noKey, undefined, { check: false });
      expect(r.status, `${method} ${path}`).toBe(401);
    }
    const head = await fetch(t.url, { method: 'HEAD' });
    expect(head.status).toBe(401);
    // The export's link without a ticket still needs credentials.
    expect((await bare(`${srv.main}/console/v1/export?resource=service_asset_findings&format=json`)).status).toBe(401);
    // ... and the ticket was not used by any of these.
    expect((await bare(t.url)).status).toBe(200);
    const log = logged.join('');
    expect(log).toContain('/console/v1/export?ticket=***');
    expect(log).not.toContain(secret);
  });

  it('a cancel ends a waiting ticket; unknown downloads are 404', async () => {
    const t = await ticket(srv);
    const c = await srv.call('DELETE', `/console/v1/export/tickets/${t.id}`);
    expect(c.body.state).toBe('cancelled');
    expect((await bare(t.url)).status).toBe(401);
    expect((await srv.call('DELETE', '/console/v1/export/tickets/nope')).status).toBe(404);
    expect((await srv.call('GET', '/console/v1/export/tickets/nope')).status).toBe(404);

  });
});
