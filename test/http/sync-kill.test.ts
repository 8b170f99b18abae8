// kill -9 in the middle of the two writes sync depends on:
// - a bulk change of a snapshot (one mass update through the server): the change and its outbox
//   entries are one transaction, so after the kill there are both or neither, and the database
//   passes SQLite's integrity check;
// - a push (the command line, killed while requests are in flight): run again, it sends each
//   change exactly once, counted on the origin (its own status-change rows).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { nowTs } from '../../src-shared/time';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { changeStatus } from '../../src-main/store/kinds/incidents/status';
import { setOrigin } from '../../src-main/store/origin';
import { snapshot } from '../../src-main/transfer/snapshot';
import { cliArgs, ROOT, runCli, serve } from '../helpers/cli';
import { databaseProblems } from '../helpers/db-check';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-sync-kill-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function check(file: string): { integrity: string; closed: number; entries: number } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      closed: db.prepare(`SELECT COUNT(*) FROM service_asset_findings WHERE status = 'closed'`).pluck().get() as number,
      entries: db.prepare(`SELECT COUNT(*) FROM sync_outbox`).pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe('kill -9 during a bulk change of a snapshot', () => {
  /** Incidents changed at once (SYNC_KILL_ROWS; `npm run test:robust` changes 12,000). */
  const N = Number(process.env.SYNC_KILL_ROWS ?? 5_000);

  /** A snapshot-like database: N incidents and an origin (never contacted here). */
  function makeSnapshot(file: string): string[] {
    const { db } = openDatabase(file);
    const store = new Store(db);
    const asset = store.create(getResource('service_assets'), { name: 'srv-01', type: 'Host', location: 'ЦОД' });
    const finding = store.create(getResource('findings'), { title: 'Подозрительный вход' });
    const ids: string[] = [];
    const insert = db.prepare(
      `INSERT INTO service_asset_findings (id, title, status, risklevel, risk, service_asset_id, finding_id, display_id, created_at, updated_at) VALUES (?, ?, 'new', 3, 'low', ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < N; i++) {
        const id = crypto.randomUUID();
        ids.push(id);
        const at = nowTs();
        insert.run(id, `Инцидент ${i}`, asset.id, finding.id, i + 1, at, at);
      }
    })();
    setOrigin(db, { url: 'https://radar.invalid', remote_instance_id: null, ca_file: null, pinned_sha256: null, timeout_ms: null, key_store: `${file}.keys.json`, key_id: 'origin', snapshot_at: nowTs() });
    db.close();
    return ids;
  }

  it('leaves the change with all its outbox entries, or neither', async () => {
    const base = path.join(tmp, 'bulk-base.sqlite');
    const ids = makeSnapshot(base);
    const measure = path.join(tmp, 'bulk-measure.sqlite');
    const killed = path.join(tmp, 'bulk-killed.sqlite');
    fs.copyFileSync(base, measure);
    fs.copyFileSync(base, killed);
    const body = JSON.stringify({ ids, fields: { status: 'closed' } });
    const massUpdate = (url: string, key: string) =>
      fetch(`${url}/cruddy/v2/service_asset_findings/mass_update`, { method: 'POST', headers: { PgrApiKey: key, 'Content-Type': 'application/json' }, body });

    // The whole change, uninterrupted: every record changed, an entry for each.
    const a = await serve(['--db', measure, '--seed', 'none', '--port', '0', '--routing-port', '0']);
    const t0 = performance.now();
    const res = await massUpdate(a.ready.main, a.ready.apiKey);
    const took = performance.now() - t0;
    expect(res.status, await res.text()).toBe(200);
    await a.stop();
    expect(check(measure)).toEqual({ integrity: 'ok', closed: N, entries: N });

    // The same change killed a third of the way through: neither.
    const b = await serve(['--db', killed, '--seed', 'none', '--port', '0', '--routing-port', '0']);
    let answered = false;
    massUpdate(b.ready.main, b.ready.apiKey).then(
      () => (answered = true),
      () => {},
    );
    await sleep(Math.max(150, took / 3));
    b.child.kill('SIGKILL');
    await new Promise((r) => b.child.once('exit', r));
    expect(answered, `the change answered within ${Math.round(took / 3)} ms of ${Math.round(took)}`).toBe(false);
    expect(check(killed)).toEqual({ integrity: 'ok', closed: 0, entries: 0 });
    expect(databaseProblems(killed)).toEqual([]);
  }, 300_000);
});

describe('kill -9 during a push', () => {
  let origin: TestServer;
  afterAll(async () => origin?.stop());

  it('run again, it sends each change exactly once', async () => {
    origin = await startTestServer({ seed: 'demo' });
    // Between the push and the origin: a little network delay, and a count of what arrives.
    const arrived = new Map<string, number>();
    let statusPuts = 0;
    const target = new URL(origin.main);
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        setTimeout(() => {
          const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (r) => {
            if (req.url === '/data/public/api/v1/incidents/update/status' && r.statusCode === 200) {
              statusPuts++;
              const id = (JSON.parse(body.toString()) as { id: string }).id;
              arrived.set(id, (arrived.get(id) ?? 0) + 1);
            }
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          });
          up.on('error', () => res.destroy());
          up.end(body);
        }, 15);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const via = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const file = path.join(tmp, 'push.sqlite');
      await snapshot({ remote: { url: via, apiKey: TEST_KEY }, target: file, perPage: 200 });
      const since = nowTs();
      // Offline: every incident not yet accepted gets "risk accepted", a third of them with a reason.
      const { db } = openDatabase(file, { create: false });
      const changed = db.prepare(`SELECT id FROM service_asset_findings WHERE status <> 'risk_accepted'`).pluck().all() as string[];
      const withReason = changed.filter((_, i) => i % 3 === 0);
      const store = new Store(db);
      store.massUpdateFields(getResource('service_asset_findings'), changed.filter((_, i) => i % 3 !== 0), { status: 'risk_accepted' });
      const reasons = new Map(changeStatus(store, withReason, 'risk_accepted', { note: { subject: 'Риск принят', body: '' } }, {}).results.map((r) => [r.id, r.message_id!]));
      db.close();
      expect(changed.length).toBeGreaterThan(200);

      const child = spawn(process.execPath, cliArgs(['sync', 'push', '--db', file, '--concurrency', '4']), { cwd: ROOT });
      const exited = new Promise((r) => child.once('exit', r));
      const killAt = Math.floor(changed.length / 3);
      for (let i = 0; i < 600 && statusPuts < killAt; i++) await sleep(50);
      child.kill('SIGKILL');
      await exited;
      const half = check(file);
      expect(half.integrity).toBe('ok');
      expect(databaseProblems(file)).toEqual([]);
      expect(statusPuts).toBeGreaterThanOrEqual(killAt);
      // Halfway: some changes confirmed (out of the outbox), the rest waiting or sent unconfirmed.
      expect(half.entries).toBeGreaterThan(0);
      expect(half.entries).toBeLessThan(changed.length + reasons.size); // a status entry each, a message entry per reason

      const again = await runCli(['sync', 'push', '--db', file, '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ conflicts: 0, failed: 0, left: { total: 0 } });
      expect(check(file)).toMatchObject({ integrity: 'ok', entries: 0 });

      // On the origin: each incident's change arrived once, and it recorded one status change for it.
      expect([...arrived.values()].every((n) => n === 1)).toBe(true);
      expect(arrived.size).toBe(changed.length);
      const rows = origin.store.all<{ id: string; n: number }>(
        `SELECT service_asset_finding_id AS id, COUNT(*) AS n FROM service_asset_finding_status_changes WHERE status = 'risk_accepted' AND created_at > ? GROUP BY 1`,
        [since],
      );
      expect(rows.length).toBe(changed.length);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(origin.store.get1<{ n: number }>(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE status <> 'risk_accepted'`)!.n).toBe(0);
      // Each reason arrived once, linked to the origin's one new row for its incident's change.
      const rowOf = new Map(
        origin.store
          .all<{ id: string; f: string }>(`SELECT id, service_asset_finding_id AS f FROM service_asset_finding_status_changes WHERE status = 'risk_accepted' AND created_at > ?`, [since])
          .map((r) => [r.f, r.id]),
      );
      const sent = origin.store.all<{ id: string; f: string; link: string | null }>(
        `SELECT id, service_asset_finding_id AS f, service_asset_finding_status_change_id AS link FROM messages WHERE id IN (SELECT value FROM json_each(?))`,
        [JSON.stringify([...reasons.values()])],
      );
      expect(sent.length).toBe(reasons.size);
      expect(sent.filter((m) => m.link !== rowOf.get(m.f))).toEqual([]);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  }, 300_000);
});
