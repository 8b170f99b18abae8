// bench:sync — a snapshot's push and pull against its origin over real sockets.
//
// The origin is a separate process (`serve`) holding BENCH_ROWS incidents (10,000). Each run:
//   1. baseline: every incident's status changed directly through the public API
//      (PUT /data/public/api/v1/incidents/update/status), CONCURRENCY requests in flight, on the
//      same HTTP client the push uses (undici, keep-alive);
//   2. pull: the snapshot brings those changes (every incident, and the origin's new
//      status-change row of each);
//   3. push: every incident's status changed in the snapshot (one mass update, recorded in the
//      outbox), then pushed: the origin read in batches for conflicts, the same public API
//      requests, each attempt recorded before it is sent.
// Printed: changes/s of the push beside the baseline's (target: at least 0.8x) and the pull's
// time; medians over BENCH_RUNS (3). Nothing asserts on time.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { getResource } from '../src-shared/resources/index';
import { nowTs } from '../src-shared/time';
import { callJson } from '../src-main/instances/remote-json';
import { RemoteClient } from '../src-main/instances/remote';
import { openDatabase } from '../src-main/store/db';
import { Store } from '../src-main/store/store';
import { pull } from '../src-main/sync/pull';
import { push } from '../src-main/sync/push';
import { openSnapshot } from '../src-main/sync/target';
import { snapshot } from '../src-main/transfer/snapshot';
import { bold, fmtInt, fmtRatio, green, heading, makeTempDir, printTable, red, since, spawnReady, summarize } from './lib';

const API_KEY = 'bench-sync-key-0123456789';
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROOT = path.resolve(__dirname, '..');
const TARGET = 0.8;

/** Statuses each run sets directly (baseline) and through the snapshot (push), all different in turn. */
const DIRECT = ['working_customer', 'feedback_required', 'assigned_customer', 'verify_close'] as const;
const PUSHED = ['closed', 'invalid', 'risk_accepted', 'closed'] as const;

function buildOrigin(file: string): string[] {
  const { db } = openDatabase(file);
  const store = new Store(db);
  const asset = store.create(getResource('service_assets'), { name: 'srv-bench', type: 'Host', location: 'ЦОД' });
  const finding = store.create(getResource('findings'), { title: 'Подбор пароля' });
  const insert = db.prepare(
    `INSERT INTO service_asset_findings (id, title, status, risklevel, risk, service_asset_id, finding_id, display_id, created_at, updated_at) VALUES (?, ?, 'new', 5, 'medium', ?, ?, ?, ?, ?)`,
  );
  const ids: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const id = crypto.randomUUID();
      const at = nowTs();
      insert.run(id, `Инцидент ${i}`, asset.id, finding.id, i + 1, at, at);
      ids.push(id);
    }
  })();
  db.close();
  return ids;
}

/** Sends one status update per incident, CONCURRENCY at a time; answers the changes per second. */
async function direct(client: RemoteClient, ids: readonly string[], status: string): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const res = await callJson(client, 'PUT', '/data/public/api/v1/incidents/update/status', { id, status });
      if (res.status !== 200) throw new Error(`status update answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ids.length / (since(t0) / 1000);
}

async function main(): Promise<void> {
  heading(`bench:sync — ${fmtInt(ROWS)} incidents, ${RUNS} runs, ${CONCURRENCY} requests in flight`);
  const dir = makeTempDir('radar-bench-sync-');
  const originDb = path.join(dir, 'origin.sqlite');
  const ids = buildOrigin(originDb);
  const origin = await spawnReady<{ main: string }>(
    ['--import', 'tsx', path.join(ROOT, 'src-main/cli.ts'), 'serve', '--db', originDb, '--port', '0', '--routing-port', '0', '--api-key', API_KEY, '--seed', 'none'],
    'radar-console ready ',
  );
  const client = new RemoteClient({ url: origin.info.main, apiKey: API_KEY, timeoutMs: 60_000, maxBytes: 512 * 1024 * 1024 });
  const snap = path.join(dir, 'snapshot.sqlite');
  const rows: { run: number; direct: number; push: number; pushMs: number; pullMs: number; pulled: number }[] = [];
  try {
    let t0 = performance.now();
    await snapshot({ remote: { url: origin.info.main, apiKey: API_KEY }, target: snap, perPage: 1000 });
    console.log(`  origin ready (its own process), snapshot of ${fmtInt(ROWS)} incidents in ${(since(t0) / 1000).toFixed(1)} s`);
    for (let run = 0; run < RUNS; run++) {
      const directRate = await direct(client, ids, DIRECT[run % DIRECT.length]!);
      const t = openSnapshot(snap);
      try {
        t0 = performance.now();
        const pulled = await pull(t, { pageSize: 1000 });
        const pullMs = since(t0);
        if (pulled.stopped) throw new Error(`pull stopped: ${pulled.stopped}`);
        const incidents = pulled.lists.incidents!;
        if (incidents.updated < ROWS) throw new Error(`the pull changed ${incidents.updated} incidents, not ${ROWS}`);
        const store = new Store(t.db);
        store.massUpdateFields(getResource('service_asset_findings'), ids, { status: PUSHED[run % PUSHED.length] });
        t0 = performance.now();
        const pushed = await push(t, { concurrency: CONCURRENCY });
        const pushMs = since(t0);
        if (pushed.pushed !== ROWS || pushed.requests !== ROWS || pushed.stopped) throw new Error(`push: ${JSON.stringify({ ...pushed, would_send: undefined })}`);
        rows.push({ run: run + 1, direct: directRate, push: ROWS / (pushMs / 1000), pushMs, pullMs, pulled: pulled.received });
      } finally {
        t.close();
      }
    }
  } finally {
    await client.close();
    const exited = origin.child.exitCode !== null ? Promise.resolve() : new Promise((r) => origin.child.once('exit', r));
    origin.child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    [
      { header: 'run', align: 'right' },
      { header: 'direct changes/s', align: 'right' },
      { header: 'push changes/s', align: 'right' },
      { header: 'push/direct', align: 'right' },
      { header: 'push s', align: 'right' },
      { header: 'pull s', align: 'right' },
      { header: 'pulled records', align: 'right' },
    ],
    rows.map((r) => [String(r.run), fmtInt(r.direct), fmtInt(r.push), fmtRatio(r.push / r.direct), (r.pushMs / 1000).toFixed(2), (r.pullMs / 1000).toFixed(2), fmtInt(r.pulled)]),
  );
  const direct50 = summarize(rows.map((r) => r.direct)).p50;
  const push50 = summarize(rows.map((r) => r.push)).p50;
  const ratio50 = summarize(rows.map((r) => r.push / r.direct)).p50;
  const pull50 = summarize(rows.map((r) => r.pullMs)).p50;
  console.log(`\n  ${bold('medians')}: push ${fmtInt(push50)} changes/s beside ${fmtInt(direct50)} direct (${fmtRatio(ratio50)}); pull of ${fmtInt(ROWS)} changed incidents (with their status-change rows) ${(pull50 / 1000).toFixed(2)} s`);
  const ok = ratio50 >= TARGET;
  console.log(`  ${ok ? green('PASS') : red('!! FAIL')}  push at least ${TARGET}x the direct public-API status updates`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
