// An origin that misbehaves, between `radar-console sync` and a real origin over sockets: a proxy
// that answers in time, never answers, answers 5xx (before or after the origin applied the
// change) or refuses the key. Push and pull stop cleanly with the reason (exit 1); nothing is lost
// or marked pushed that was not, and run again each change reaches the origin exactly once
// (counted on the origin). Also: the progress bar on a terminal.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { nowTs } from '../../src-shared/time';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { snapshot } from '../../src-main/transfer/snapshot';
import { cliArgs, ROOT, runCli } from '../helpers/cli';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const I = getResource('service_asset_findings');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-sync-faults-'));
const STATUS_PATH = '/data/public/api/v1/incidents/update/status';

/**
 * pass: forwarded; hang: never answered; fail: 500 without reaching the origin; applied-then-fail:
 * forwarded, then answered 502 as a gateway that lost the answer; refuse: 401; drop-once: the
 * connection closed without an answer, once (then pass). `only` limits the
 * fault to reads (GET and searches) or writes (the rest); the others pass.
 */
type Mode = 'pass' | 'hang' | 'fail' | 'applied-then-fail' | 'refuse' | 'drop-once';
const fault: { mode: Mode; only: 'reads' | 'writes' | 'all' } = { mode: 'pass', only: 'all' };

let origin: TestServer;
let proxy: http.Server;
let via: string;
let snap: string;
const sockets = new Set<Socket>();
/** Connections closed by drop-once. */
let dropped = 0;
/** Status updates the origin applied, per incident. */
const arrived = new Map<string, number>();

const isRead = (req: http.IncomingMessage) => req.method === 'GET' || (req.url ?? '').endsWith('/search');

function forward(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse | null): void {
  const target = new URL(origin.main);
  const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (r) => {
    if (req.url === STATUS_PATH && r.statusCode === 200) {
      const id = (JSON.parse(body.toString()) as { id: string }).id;
      arrived.set(id, (arrived.get(id) ?? 0) + 1);
    }
    if (!res) {
      r.resume();
      return;
    }
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on('error', () => res?.destroy());
  up.end(body);
}

function error(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: message, error_code: status }));
}

/** Runs the CLI's sync subcommand against the snapshot. */
const sync = (...args: string[]) => runCli(['sync', ...args, '--db', snap]);
const statusJson = async () => {
  const res = await sync('status', '--json');
  return JSON.parse(res.stdout) as { origin: { pulled_at: string | null; pushed_at: string | null }; counts: Record<string, number>; entries: { state: string; record_id: string }[] };
};

/** Incidents of the snapshot changed offline to `status`, through the store's write path. */
function changeOffline(n: number, status: string): string[] {
  const { db } = openDatabase(snap, { create: false });
  try {
    const store = new Store(db);
    const ids = db.prepare(`SELECT id FROM service_asset_findings WHERE status <> ? ORDER BY display_id LIMIT ?`).pluck().all(status, n) as string[];
    expect(ids.length).toBe(n);
    store.massUpdateFields(I, ids, { status });
    return ids;
  } finally {
    db.close();
  }
}

const originStatus = (id: string) => origin.store.get1<{ status: string }>('SELECT status FROM service_asset_findings WHERE id = ?', [id])!.status;
const statusRows = (ids: string[], status: string, since: string) =>
  origin.store.all<{ id: string; n: number }>(
    `SELECT service_asset_finding_id AS id, COUNT(*) AS n FROM service_asset_finding_status_changes WHERE status = ? AND created_at > ? GROUP BY 1`,
    [status, since],
  ).filter((r) => ids.includes(r.id));

beforeAll(async () => {
  origin = await startTestServer({ seed: 'demo' });
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const hit = fault.only === 'all' || (fault.only === 'reads') === isRead(req);
      const mode = hit ? fault.mode : 'pass';
      if (mode === 'pass') forward(req, body, res);
      else if (mode === 'hang') return; // the socket is destroyed when the test ends
      else if (mode === 'fail') error(res, 500, 'Internal Server Error');
      else if (mode === 'refuse') error(res, 401, 'authorization failed');
      else if (mode === 'drop-once') {
        fault.mode = 'pass';
        dropped++;
        req.socket.destroy();
      }
      else {
        forward(req, body, null);
        // The origin applied it; the answer is lost on the way back.
        setTimeout(() => error(res, 502, 'Bad Gateway'), 100);
      }
    });
  });
  proxy.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  via = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  snap = path.join(tmp, 'trip.sqlite');
  await snapshot({ remote: { url: via, apiKey: TEST_KEY }, target: snap, perPage: 200 });
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => proxy?.close(r));
  await origin?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// Each test runs the command line several times (a process each): generous on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

describe('sync against an origin that misbehaves', () => {
  it('an origin that does not answer in time: push and pull stop with the reason; run again, each change arrives once', async () => {
    const since = nowTs();
    const ids = changeOffline(3, 'assigned_customer');
    // Reads hang: nothing is sent.
    Object.assign(fault, { mode: 'hang', only: 'all' });
    let res = await sync('push', '--timeout-ms', '400');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/push stopped: the origin http:\/\/127\.0\.0\.1:\d+ did not answer .*no answer within 400 ms; nothing is lost, run it again/);
    expect((await statusJson()).counts).toMatchObject({ pending: 3, total: 3 });

    res = await sync('pull', '--timeout-ms', '400');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/pull stopped: the origin .* did not answer .*what was received is kept, run it again/);
    expect((await statusJson()).origin.pulled_at).toBeNull();

    // Writes hang: sent, never confirmed: kept as unconfirmed, not as pushed.
    Object.assign(fault, { mode: 'hang', only: 'writes' });
    res = await sync('push', '--timeout-ms', '400', '--concurrency', '1');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/did not answer PUT \/data\/public\/api\/v1\/incidents\/update\/status/);
    const after = await statusJson();
    expect(after.counts.total).toBe(3);
    // One at a time: the first write hangs, and the push stops there.
    expect(after.counts.sending).toBe(1);
    expect(after.origin.pushed_at).toBeNull();
    expect(arrived.size).toBe(0);

    Object.assign(fault, { mode: 'pass', only: 'all' });
    res = await sync('push', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ pushed: 3, requests: 3, conflicts: 0, failed: 0, left: { total: 0 } });
    for (const id of ids) expect(originStatus(id)).toBe('assigned_customer');
    expect(ids.map((id) => arrived.get(id))).toEqual([1, 1, 1]);
    expect(statusRows(ids, 'assigned_customer', since).map((r) => r.n)).toEqual([1, 1, 1]);
  });

  it('an origin that answers 5xx: push and pull stop with its error; a change it applied before failing is not sent again', async () => {
    arrived.clear();
    const since = nowTs();
    const ids = changeOffline(3, 'feedback_required');
    Object.assign(fault, { mode: 'fail', only: 'reads' });
    let res = await sync('push');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/push stopped: the origin .* answered POST \/cruddy\/v2\/service_asset_findings\/search with HTTP 500: Internal Server Error/);
    expect((await statusJson()).counts).toMatchObject({ pending: 3, total: 3 });
    res = await sync('pull');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/pull stopped: the origin .* with HTTP 500/);

    Object.assign(fault, { mode: 'fail', only: 'writes' });
    res = await sync('push', '--concurrency', '1');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/push stopped: the origin .* answered PUT \/data\/public\/api\/v1\/incidents\/update\/status with HTTP 500/);
    expect((await statusJson()).counts.total).toBe(3);
    expect(arrived.size).toBe(0);

    // The origin applies the change, the answer is lost (502): unconfirmed, checked before any resend.
    Object.assign(fault, { mode: 'applied-then-fail', only: 'writes' });
    res = await sync('push', '--concurrency', '1');
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/with HTTP 502: Bad Gateway/);
    expect(arrived.size).toBe(1);
    const [sent] = [...arrived.keys()];
    expect((await statusJson()).entries.find((e) => e.record_id === sent)?.state).toBe('sending');

    Object.assign(fault, { mode: 'pass', only: 'all' });
    res = await sync('push', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ pushed: 3, already: 1, requests: 2, left: { total: 0 } });
    expect(ids.map((id) => arrived.get(id))).toEqual([1, 1, 1]);
    expect(statusRows(ids, 'feedback_required', since).map((r) => r.n)).toEqual([1, 1, 1]);
  });

  it('a connection closed without an answer during a read is read again: push and pull go on', async () => {
    arrived.clear();
    const ids = changeOffline(2, 'invalid');
    Object.assign(fault, { mode: 'drop-once', only: 'reads' });
    let res = await sync('push', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(dropped).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ pushed: 2, stopped: null, left: { total: 0 } });
    expect(ids.map((id) => arrived.get(id))).toEqual([1, 1]);
    // A write is never sent again by itself: it stops the push, unconfirmed, checked at the next.
    changeOffline(1, 'working_customer');
    Object.assign(fault, { mode: 'drop-once', only: 'writes' });
    res = await sync('push');
    expect(res.code, res.stderr).toBe(1);
    expect(dropped).toBe(2);
    expect((await statusJson()).counts).toMatchObject({ sending: 1, total: 1 });
    Object.assign(fault, { mode: 'drop-once', only: 'reads' });
    res = await sync('pull', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(dropped).toBe(3);
    expect(JSON.parse(res.stdout).stopped).toBeNull();
    Object.assign(fault, { mode: 'pass', only: 'all' });
    expect((await sync('push')).code).toBe(0);
  });

  it('an origin that refuses the key: exit 1 with the reason, nothing marked', async () => {
    const ids = changeOffline(1, 'verify_close');
    Object.assign(fault, { mode: 'refuse', only: 'all' });
    for (const cmd of ['push', 'pull']) {
      const res = await sync(cmd);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toMatch(new RegExp(`${cmd} stopped: the origin .* refused the key \\(HTTP 401: authorization failed\\)`));
    }
    expect((await statusJson()).counts).toMatchObject({ pending: 1, total: 1 });
    Object.assign(fault, { mode: 'pass', only: 'all' });
    expect((await sync('push')).code).toBe(0);
    expect(originStatus(ids[0]!)).toBe('verify_close');
  });

  it('shows a progress bar on a terminal, none when the output is not one', async () => {
    changeOffline(40, 'risk_accepted');
    const cmd = [process.execPath, ...cliArgs(['sync', 'push', '--db', snap])].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    // `script` gives the command a terminal and copies what it writes there.
    const { stdout } = await promisify(execFile)('script', ['-q', '-e', '-c', cmd, '/dev/null'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    expect(stdout).toMatch(/sending +\[[█░]+\] +\d+% \| \d+ changes \| [\d,]+ changes\/s/);
    expect(stdout).toMatch(/40 changes pushed/);
    changeOffline(5, 'closed');
    const piped = await sync('push');
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toMatch(/changes\/s/);
    expect(piped.stderr).toMatch(/5 changes pushed/);
  });
});
