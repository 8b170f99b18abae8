// The console's transfer endpoints over a real socket: export in every format, upload import
// (into an instance or a new one), job progress and cancel, a client leaving an export, and a
// snapshot of a second server, interrupted and resumed.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource, type ResourceDef } from '../../src-shared/resources/index';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let src: TestServer;
let dst: TestServer;

beforeAll(async () => {
  [src, dst] = await Promise.all([startTestServer({ seed: 'demo' }), startTestServer()]);
});

afterAll(async () => {
  await Promise.all([src?.stop(), dst?.stop()]);
});

const H = { PgrApiKey: TEST_KEY };

async function download(s: TestServer, query: string) {
  const res = await fetch(`${s.main}/console/v1/export?${query}`, { headers: H });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function upload(s: TestServer, query: string, body: string, type = 'application/octet-stream') {
  const res = await fetch(`${s.main}/console/v1/import?${query}`, { method: 'POST', headers: { ...H, 'content-type': type }, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** Rows of a resource table by id, every column but _rid (and those named), json parsed. */
function table(file: string, r: ResourceDef, opts: { where?: string; omit?: string[] } = {}): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare(`SELECT * FROM "${r.table}" WHERE ${opts.where ?? '1'} ORDER BY id`).all() as Record<string, unknown>[];
    return rows.map((row) =>
      Object.fromEntries(
        Object.entries(row)
          .filter(([k]) => k !== '_rid' && !opts.omit?.includes(k))
          .map(([k, v]) => [k, r.fields[k]?.kind === 'json' && typeof v === 'string' ? JSON.parse(v) : v]),
      ),
    );
  } finally {
    db.close();
  }
}

/** Every table's rows, as text: to tell "nothing changed" (search index and schema included). */
function dump(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const out: Record<string, string> = { schema: JSON.stringify(db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all()) };
    for (const { name } of db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'`).all() as { name: string }[]) {
      out[name] = (db.prepare(`SELECT * FROM "${name}"`).raw(true).all() as unknown[][]).map((r) => JSON.stringify(r.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : v)))).join('\n');
    }
    return out;
  } finally {
    db.close();
  }
}

const R = (n: string) => getResource(n);

describe('export', () => {
  it('streams JSON in the public shape, NDJSON in the v2 one and CSV, as attachments', async () => {
    const pub = await download(src, `resource=incidents&format=json&query=${encodeURIComponent('status=in,new,closed&order=-risklevel')}`);
    expect(pub.status).toBe(200);
    expect(pub.headers.get('content-type')).toMatch(/^application\/json/);
    expect(pub.headers.get('content-disposition')).toMatch(/^attachment; filename="incidents-\d{8}T\d{6}Z\.json"$/);
    const body = JSON.parse(pub.text) as { objects: Record<string, unknown>[]; total: number };
    expect(body.total).toBe(Number(pub.headers.get('x-total-count')));
    expect(body.objects.length).toBe(body.total);
    expect(body.objects.every((o) => o.status === 'new' || o.status === 'closed')).toBe(true);
    expect(body.objects[0]!.front_link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#\/incidents\//);
    const risks = body.objects.map((o) => o.risklevel as number);
    expect([...risks].sort((a, b) => b - a)).toEqual(risks);

    const search = { filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], include_fields: ['id', 'title', 'status'] };
    const res = await fetch(`${src.main}/console/v1/export`, {
      method: 'POST',
      headers: { ...H, 'content-type': 'application/json' },
      body: JSON.stringify({ resource: 'service_asset_findings', format: 'ndjson', search }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBe(Number(res.headers.get('x-total-count')));
    expect(Object.keys(lines[0])).toEqual(['id', 'status', 'title']);

    const csv = await download(src, `resource=findings&format=csv&columns=display_id,title,is_system&delimiter=${encodeURIComponent(';')}`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = csv.text.replace(/^\ufeff/, '').trim().split('\n');
    expect(rows[0]).toBe('display_id;title;is_system');
    expect(rows.length).toBe(41);
  });

  it('every transfer endpoint needs the key', async () => {
    for (const [method, p] of [
      ['POST', '/console/v1/import'],
      ['GET', '/console/v1/export?resource=findings&format=json'],
      ['POST', '/console/v1/export'],
      ['GET', '/console/v1/jobs'],
      ['POST', '/console/v1/snapshot'],
    ] as const) {
      const res = await fetch(src.main + p, { method, body: method === 'POST' ? '{}' : undefined, headers: { 'content-type': 'application/json' } });
      expect(res.status, `${method} ${p}`).toBe(401);
    }
  });

  it('answers 400 for a bad request and for a remote instance, 404 for an unknown one', async () => {
    expect((await download(src, 'resource=nope&format=json')).status).toBe(400);
    expect((await download(src, 'resource=findings&format=xml')).status).toBe(400);
    expect((await download(src, 'resource=findings&format=csv&columns=title,nope')).text).toMatch(/unknown column: nope/);
    expect((await download(src, `resource=findings&format=json&search=${encodeURIComponent('{"filters": 1}')}`)).status).toBe(400);
    expect((await download(src, 'resource=findings&format=json&instance=nope')).status).toBe(404);
    const add = await src.call('POST', '/console/v1/instances', { kind: 'remote', name: 'Far', url: 'https://192.0.2.1:9000', api_key: 'k-123456789' });
    expect(add.status).toBe(201);
    const remote = await download(src, 'resource=findings&format=json&instance=Far');
    expect(remote.status).toBe(400);
    expect(JSON.parse(remote.text).error).toMatch(/remote instance: take a snapshot of it first/);
  });

  it('a client that goes away stops the export and ends its read transaction', async () => {
    // Enough rows that the export outlasts the socket's buffers.
    const many = Array.from({ length: 8_000 }, (_, i) => JSON.stringify({ name: `pkg-${i}`, tsvector: 'x'.repeat(2000), id: `6f1c1b8e-2f0f-4a44-9a39-${String(i).padStart(12, '0')}` })).join('\n');
    expect((await upload(dst, 'filename=software.ndjson&wait=1', many)).status).toBe(200);
    // A passive checkpoint copies the log up to the oldest reader's snapshot, and never waits.
    const pinned = () => {
      const c = (dst.store.db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[])[0]!;
      return c.checkpointed < c.log;
    };
    expect(pinned()).toBe(false);
    const controller = new AbortController();
    const res = await fetch(`${dst.main}/console/v1/export?resource=software&format=json`, { headers: H, signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    // A write after the export's snapshot: the export's reader keeps the log from being emptied.
    expect((await dst.call('POST', '/cruddy/v2/rule_sets/create', { name: 'после начала выгрузки' })).status).toBe(201);
    expect(pinned()).toBe(true);
    controller.abort();
    let still = true;
    for (let i = 0; i < 100 && still; i++) {
      await new Promise((r) => setTimeout(r, 20));
      still = pinned();
    }
    expect(still).toBe(false);
  });
});

describe('import', () => {
  let findingsNdjson: string;
  let incidentsJson: string;
  beforeAll(async () => {
    findingsNdjson = (await download(src, 'resource=findings&format=ndjson')).text;
    incidentsJson = (await download(src, 'resource=incidents&format=json&query=')).text;
  });

  it('imports an upload into the main instance and answers the summary; the same upload again changes nothing', async () => {
    const first = await upload(dst, 'filename=findings.ndjson&wait=1', findingsNdjson);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ type: 'import', state: 'done', summary: { records: 40, resources: { findings: { inserted: 40 } } } });
    expect(first.body.progress).toMatchObject({ records: 40, bytes: Buffer.byteLength(findingsNdjson), total_bytes: Buffer.byteLength(findingsNdjson) });
    const before = dump(dst.db);
    const again = await upload(dst, 'filename=findings.ndjson&wait=1', findingsNdjson);
    expect(again.body.summary.resources.findings).toMatchObject({ inserted: 0, updated: 0, unchanged: 40 });
    expect(dump(dst.db)).toEqual(before);
    expect(table(dst.db, R('findings'))).toEqual(table(src.db, R('findings')));
  });

  it('creates a new local instance from an upload, served by the routing port', async () => {
    const res = await upload(dst, 'filename=incidents.json&new_instance=Review&wait=1', `${findingsNdjson}`);
    expect(res.status).toBe(200);
    const second = await upload(dst, 'filename=incidents.json&instance=Review&wait=1', incidentsJson, 'application/json');
    expect(second.status).toBe(200);
    expect(second.body.summary.resources.service_asset_findings.inserted).toBe(400);
    expect(second.body.instance.name).toBe('Review');
    const list = (await dst.call('GET', '/console/v1/instances')).body as { name: string; id: string; db_file: string }[];
    const review = list.find((i) => i.name === 'Review')!;
    expect(fs.existsSync(review.db_file)).toBe(true);
    const routed = await dst.call('GET', '/data/public/api/v1/incidents?per_page=1', undefined, { PgrSelectedInstance: review.id }, dst.routing);
    expect(routed.status).toBe(200);
    expect(routed.body[0].data.total).toBe(400);
    expect(table(review.db_file, R('service_asset_findings'))).toEqual(table(src.db, R('service_asset_findings')));
    const taken = await upload(dst, 'new_instance=Review', findingsNdjson);
    expect(taken.status).toBe(409);
  });

  it("imports the routing port's answer (an array of envelopes) as it came", async () => {
    const main = ((await src.call('GET', '/console/v1/instances')).body as { id: string; kind: string }[]).find((i) => i.kind === 'main')!;
    const routed = await fetch(`${src.routing}/data/public/api/v1/findings?per_page=1000`, { headers: { ...H, PgrSelectedInstance: main.id } });
    const text = await routed.text();
    expect(JSON.parse(text)[0].data.total).toBe(40);
    const res = await upload(dst, 'filename=routed.json&new_instance=Routed&wait=1', text, 'application/json');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.summary.files[0]).toMatchObject({ shape: 'envelope', kinds: ['findings'], records: 40 });
    const list = (await dst.call('GET', '/console/v1/instances')).body as { name: string; db_file: string }[];
    expect(table(list.find((i) => i.name === 'Routed')!.db_file, R('findings'))).toEqual(table(src.db, R('findings')));
  });

  it('refuses a bad upload with its position and leaves the database as it was', async () => {
    const before = dump(dst.db);
    const cut = incidentsJson.slice(0, 5000);
    const res = await upload(dst, 'filename=incidents.json&wait=1', cut, 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^incidents\.json:\d+:\d+: invalid JSON: the file ends in the middle of a value \(truncated\?\)/);
    const started = await upload(dst, 'filename=incidents.json', cut);
    expect(started.status).toBe(202);
    const job = await waitJob(dst, started.body.id);
    expect(job).toMatchObject({ state: 'failed', error: { file: 'incidents.json', line: expect.any(Number), column: expect.any(Number) } });
    expect((await upload(dst, 'wait=1', '')).status).toBe(400);
    expect((await upload(dst, 'kind=nope', '[]')).status).toBe(400);
    expect((await upload(dst, 'instance=Far&wait=1', '[]')).status).toBe(404);
    expect(dump(dst.db)).toEqual(before);
  });

  it('reports progress and cancels a running import, leaving the database as it was', async () => {
    // Long enough to be running still when the cancel arrives right after the answer
    // (IMPORT_CANCEL_ROWS; `npm run test:robust` uploads 40,000).
    const n = Number(process.env.IMPORT_CANCEL_ROWS ?? 15_000);
    const big = Array.from({ length: n }, (_, i) =>
      JSON.stringify({ id: `6f1c1b8e-2f0f-4a44-9a39-${String(i).padStart(12, '0')}`, title: `Тип инцидента ${i} с описанием`, description: 'x'.repeat(200), display_id: 10_000 + i }),
    ).join('\n');
    const before = dump(dst.db);
    const started = await upload(dst, 'filename=findings.ndjson', big);
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/console/v1/jobs/${started.body.id}`);
    const cancelled = await dst.call('DELETE', `/console/v1/jobs/${started.body.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    expect(dump(dst.db)).toEqual(before);
    const list = await dst.call('GET', '/console/v1/jobs');
    expect(list.body.some((j: { id: string }) => j.id === started.body.id)).toBe(true);
    expect((await dst.call('GET', '/console/v1/jobs/nope')).status).toBe(404);

    const again = await upload(dst, 'filename=findings.ndjson', big);
    const seen: { records: number; rate: number }[] = [];
    let job;
    for (;;) {
      job = (await dst.call('GET', `/console/v1/jobs/${again.body.id}`)).body;
      seen.push(job.progress);
      if (job.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job.state).toBe('done');
    expect(job.summary.resources.findings.inserted).toBe(n);
    expect(seen.at(-1)!.records).toBe(n);
    expect(job.progress.total_bytes).toBe(Buffer.byteLength(big));
  }, 120_000);

  it('an upload whose client goes away before the answer (a cancelled upload) writes nothing', async () => {
    const ids = Array.from({ length: 3_000 }, (_, i) => `7a2d0c4e-1b3f-4c5d-8e9f-${String(i).padStart(12, '0')}`);
    const body = ids.map((id, i) => JSON.stringify({ id, title: `Брошенная загрузка ${i}`, description: 'y'.repeat(300), display_id: 90_000 + i })).join('\n');
    const before = dump(dst.db);
    const jobsBefore = new Set(((await dst.call('GET', '/console/v1/jobs')).body as { id: string }[]).map((j) => j.id));
    const u = new URL(`${dst.main}/console/v1/import?filename=findings.ndjson`);
    // The whole file is sent, then the connection is dropped before the answer is read.
    await new Promise<void>((resolve) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', headers: { ...H, 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(body) } });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.end(body, () => req.destroy());
    });
    // Whatever the server started for it ends cancelled, and nothing was written.
    let jobs: { id: string; state: string }[] = [];
    for (let i = 0; i < 200; i++) {
      jobs = ((await dst.call('GET', '/console/v1/jobs')).body as { id: string; state: string }[]).filter((j) => !jobsBefore.has(j.id));
      if (jobs.every((j) => j.state !== 'running')) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 300));
    jobs = ((await dst.call('GET', '/console/v1/jobs')).body as { id: string; state: string }[]).filter((j) => !jobsBefore.has(j.id));
    expect(jobs.map((j) => j.state).filter((s) => s !== 'cancelled')).toEqual([]);
    expect(dump(dst.db)).toEqual(before);
  });
});

async function waitJob(s: TestServer, id: string): Promise<any> {
  for (;;) {
    const job = (await s.call('GET', `/console/v1/jobs/${id}`)).body;
    if (job.state !== 'running') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A proxy in front of `target` that can fail requests (a network going away). */
async function proxy(target: string, fail: (req: http.IncomingMessage, n: number) => number | null): Promise<{ url: string; close: () => Promise<void>; count: () => number }> {
  const t = new URL(target);
  let n = 0;
  const server = http.createServer((req, res) => {
    const status = fail(req, ++n);
    if (status !== null) {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'proxy says no', error_code: status }));
      return;
    }
    const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, count: () => n, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('snapshot', () => {
  const snap = (body: Record<string, unknown>) => dst.call('POST', '/console/v1/snapshot?wait=1', { api_key: TEST_KEY, per_page: 40, ...body });

  it('copies finding types, assets and incidents with occurrences and status changes, and adds the instance', async () => {
    const res = await snap({ url: src.main, name: 'Snapshot A', db_file: 'snap-a.sqlite' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.summary).toMatchObject({ resumed: false, status_changes: 'copied', counts: { service_asset_findings: 400, findings: 40 } });
    expect(res.body.instance.name).toBe('Snapshot A');
    const file = path.join(dst.dir, 'snap-a.sqlite');
    expect(table(file, R('findings'))).toEqual(table(src.db, R('findings')));
    expect(table(file, R('service_asset_findings'))).toEqual(table(src.db, R('service_asset_findings')));
    expect(table(file, R('service_asset_finding_status_changes'))).toEqual(table(src.db, R('service_asset_finding_status_changes')));
    expect(table(file, R('occurrences'))).toEqual(table(src.db, R('occurrences'), { where: 'service_asset_finding_id IS NOT NULL' }));
    expect(table(file, R('service_assets'), { omit: ['responsible_group_id'] })).toEqual(table(src.db, R('service_assets'), { omit: ['responsible_group_id'] }));
    expect(res.body.summary.cleared_references['service_assets.responsible_group_id']).toBeGreaterThan(0);
    // Messages, custom fields and their values come too, for the offline triage to push back.
    expect(res.body.summary.related).toEqual({ custom_fields: 'copied', messages: 'copied', custom_field_values: 'copied' });
    for (const r of ['custom_fields', 'messages', 'custom_field_values']) {
      const where = r === 'custom_fields' ? undefined : 'service_asset_finding_id IS NOT NULL';
      const omit: string[] = [];
      expect(table(file, R(r), { omit }), r).toEqual(table(src.db, R(r), { where, omit }));
    }
    // The origin is remembered, its key kept in a key store beside the snapshot, never in it.
    const db = new Database(file, { readonly: true });
    try {
      const origin = db.prepare('SELECT * FROM sync_origin').get() as Record<string, unknown>;
      expect(origin).toMatchObject({ url: src.main, key_store: `${file}.instance-keys.json`, key_id: 'origin' });
      expect(JSON.stringify(db.prepare('SELECT * FROM sync_origin').all())).not.toContain(TEST_KEY);
      // The origin's version of each record copied, and where the first pull starts.
      const versions = db.prepare('SELECT resource, COUNT(*) AS n FROM sync_remote GROUP BY resource').all() as { resource: string; n: number }[];
      expect(Object.fromEntries(versions.map((v) => [v.resource, v.n]))).toMatchObject({ service_asset_findings: 400, findings: 40, service_asset_finding_status_changes: 930 });
      const newest = (src.store.get1(`SELECT MAX(updated_at) AS m FROM service_asset_findings`) as { m: string }).m;
      expect(db.prepare(`SELECT updated_at FROM sync_cursors WHERE list = 'incidents'`).pluck().get()).toBe(newest);
      expect(db.prepare('SELECT COUNT(*) FROM sync_outbox').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
    expect(JSON.parse(fs.readFileSync(`${file}.instance-keys.json`, 'utf8')).keys.origin).toEqual({ cipher: 'plain', value: TEST_KEY });
    expect(fs.statSync(`${file}.instance-keys.json`).mode & 0o077).toBe(0);
    const again = await snap({ url: src.main, db_file: 'snap-a.sqlite' });
    expect(again.status).toBe(409);
  });

  it('resumes after an interruption and ends with the same data as an uninterrupted run', async () => {
    let failing = true;
    const p = await proxy(src.main, (_req, n) => (failing && n > 7 ? 503 : null));
    try {
      const broken = await snap({ url: p.url, db_file: 'snap-b.sqlite', name: 'Snapshot B' });
      expect(broken.status).toBe(400);
      expect(broken.body.error).toMatch(/HTTP 503/);
      const file = path.join(dst.dir, 'snap-b.sqlite');
      const cp = JSON.parse(fs.readFileSync(`${file}.snapshot.json`, 'utf8'));
      expect(cp.complete).toBe(false);
      expect(cp.pages).toBeGreaterThan(0);
      expect((await dst.call('GET', '/console/v1/instances')).body.some((i: { name: string }) => i.name === 'Snapshot B')).toBe(false);
      failing = false;
      const resumed = await snap({ url: p.url, db_file: 'snap-b.sqlite', name: 'Snapshot B' });
      expect(resumed.status, resumed.text).toBe(200);
      expect(resumed.body.summary.resumed).toBe(true);
      const a = path.join(dst.dir, 'snap-a.sqlite');
      for (const r of ['findings', 'service_assets', 'service_asset_findings', 'occurrences', 'service_asset_finding_status_changes', 'custom_fields', 'messages', 'custom_field_values']) {
        expect(table(file, R(r)), r).toEqual(table(a, R(r)));
      }
      const versions = (f: string) => {
        const db = new Database(f, { readonly: true });
        try {
          return db.prepare('SELECT * FROM sync_remote ORDER BY resource, id').all();
        } finally {
          db.close();
        }
      };
      expect(versions(file)).toEqual(versions(a));
    } finally {
      await p.close();
    }
  });

  it('goes on without status changes when the remote has no v2 search, and says so', async () => {
    const p = await proxy(src.main, (req) => (req.url?.startsWith('/cruddy/v2/service_asset_finding_status_changes/search') ? 404 : null));
    try {
      const res = await snap({ url: p.url, db_file: 'snap-c.sqlite' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.summary.status_changes).toMatch(/^unavailable: .* answered HTTP 404/);
      const file = path.join(dst.dir, 'snap-c.sqlite');
      expect(table(file, R('service_asset_finding_status_changes'))).toEqual([]);
      expect(table(file, R('service_asset_findings')).length).toBe(400);
    } finally {
      await p.close();
    }
  });

  it('goes on without custom fields and their values when the remote has no search of custom fields, and says so', async () => {
    const p = await proxy(src.main, (req) => (req.url?.startsWith('/cruddy/v2/custom_fields/search') ? 404 : null));
    try {
      const res = await snap({ url: p.url, db_file: 'snap-cf.sqlite' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.summary.related.custom_fields).toMatch(/^unavailable: .* answered HTTP 404/);
      // the values name the custom fields: not copied without them (the messages are)
      expect(res.body.summary.related.custom_field_values).toBe('unavailable: custom fields could not be copied');
      expect(res.body.summary.related.messages).toBe('copied');
      const file = path.join(dst.dir, 'snap-cf.sqlite');
      expect(table(file, R('custom_field_values'))).toEqual([]);
      expect(table(file, R('messages')).length).toBeGreaterThan(0);
      expect(table(file, R('service_asset_findings')).length).toBe(400);
    } finally {
      await p.close();
    }
  });

  it("reads a remote through its routing port (PgrSelectedInstance), unwrapping the envelopes", async () => {
    const main = ((await src.call('GET', '/console/v1/instances')).body as { id: string; kind: string }[]).find((i) => i.kind === 'main')!;
    const res = await snap({ url: src.routing, remote_instance_id: main.id, db_file: 'snap-e.sqlite', per_page: 200 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.summary).toMatchObject({ status_changes: 'copied', counts: { service_asset_findings: 400, service_asset_finding_status_changes: 930 } });
    const file = path.join(dst.dir, 'snap-e.sqlite');
    expect(table(file, R('service_asset_findings'))).toEqual(table(src.db, R('service_asset_findings')));
  });

  it('refuses a wrong key and a bad request', async () => {
    const res = await dst.call('POST', '/console/v1/snapshot?wait=1', { url: src.main, api_key: 'wrong-key-123', db_file: 'snap-d.sqlite' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/refused the API key \(HTTP 401\)/);
    expect(fs.existsSync(path.join(dst.dir, 'snap-d.sqlite'))).toBe(false);
    expect(fs.existsSync(path.join(dst.dir, 'snap-d.sqlite.instance-keys.json'))).toBe(false);
    expect((await dst.call('POST', '/console/v1/snapshot', { url: src.main })).status).toBe(400);
    expect((await dst.call('POST', '/console/v1/snapshot', { instance: 'Main' })).status).toBe(400);
  });
});
