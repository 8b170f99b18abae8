// bench:public — the public API's incident list on 1,000,000 incidents (three standard filters
// and an order), over HTTP beside the same query path run directly on better-sqlite3; then the
// routing port's fan-out over 8 instances beside each instance asked alone.
//
// The fan-out instances are the router's own main database and 7 remote platforms, each a
// separate `serve` process (its own CPU) behind a proxy that adds a fixed network delay, as a
// platform across a WAN answers. Asking them in parallel should cost about the slowest one.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { request } from 'undici';
import { compileStandardQuery } from '../src-main/public/query';
import { startServer, type RunningServer } from '../src-main/server/start';
import { openDatabase } from '../src-main/store/db';
import { Store } from '../src-main/store/store';
import { publicEntity, publicResource } from '../src-shared/public/entities';
import { parseStandardQuery } from '../src-shared/public/standard-filters';
import {
  bold,
  DATASET_END_MICROS,
  explainPlan,
  fmtInt,
  fmtMs,
  fmtRatio,
  gc,
  green,
  heading,
  KeepAliveClient,
  makeTempDir,
  prepareIncidentDb,
  printTable,
  red,
  rssMiB,
  since,
  summarize,
  type Column,
  type Summary,
} from './lib';
import { microsToTs } from '../src-shared/time';

const API_KEY = 'bench-public-key-0123456789';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ITER = Number(process.env.BENCH_ITER ?? 200);
const FANOUT_ITER = Number(process.env.BENCH_FANOUT_ITER ?? 60);
const REMOTES = 7;
/** One-way delay each remote's proxy adds before and after its answer (ms). */
const delayOf = (i: number) => 8 + 4 * i;

const ROOT = path.resolve(__dirname, '..');
const verdicts: { ok: boolean; text: string }[] = [];
const verdict = (ok: boolean, text: string) => {
  verdicts.push({ ok, text });
  console.log(`  ${ok ? green('PASS') : red('!! FAIL')}  ${text}`);
};

const summaryRow = (name: string, s: Summary, note = ''): string[] => [name, String(s.n), fmtMs(s.p50), fmtMs(s.p90), fmtMs(s.p99), fmtMs(s.min), fmtMs(s.max), note];
const COLUMNS: Column[] = [
  { header: 'side' },
  { header: 'n', align: 'right' },
  { header: 'p50 ms', align: 'right' },
  { header: 'p90 ms', align: 'right' },
  { header: 'p99 ms', align: 'right' },
  { header: 'min', align: 'right' },
  { header: 'max', align: 'right' },
  { header: '' },
];

// ------------------------------------------------------------------------------------------
// Part 1: one instance, 1M incidents

async function listOnMillion(): Promise<void> {
  heading('database');
  const prepared = prepareIncidentDb({ incidents: ROWS, assets: 5_000, findings: 500, seed: 20261003 });
  const server = await startServer({ db: prepared.file, port: 0, routingPort: 0, apiKey: API_KEY, seed: 'none' });
  const directDb = openDatabase(server.db, { readonly: true }).db;
  const direct = new Store(directDb);
  const entity = publicEntity('incidents')!;
  const r = publicResource(entity);
  const since30d = microsToTs(DATASET_END_MICROS - 30 * 86_400_000_000);
  const queries = [
    `status=in,new,assigned_customer&risklevel=gt,7&created_at=gt,${since30d}&order=-created_at&per_page=50`,
    `status=in,new,assigned_customer&risklevel=gt,7&created_at=gt,${since30d}&order=-created_at&per_page=50&page=2`,
    `status=in,new,assigned_customer&risklevel=gt,7.5&created_at=gt,${since30d}&order=-created_at&per_page=50`,
    `status=in,new,assigned_customer&risklevel=gt,6.5&created_at=gt,${since30d}&order=-created_at&per_page=50`,
  ];
  heading('(p1) GET /data/public/api/v1/incidents: status in (new, assigned_customer), risklevel > 7, created_at in the last 30 days, newest first, 50 per page');
  for (const qs of queries) console.log(`  ?${qs}`);
  const parsed = queries.map((qs) => parseStandardQuery(Object.fromEntries(new URLSearchParams(qs))));
  direct.withHits((hits) => {
    const c = compileStandardQuery(r, parsed[0]!, hits);
    const ids = `SELECT t._rid FROM "service_asset_findings" t WHERE ${c.where.sql} ORDER BY ${c.order} LIMIT 50`;
    console.log(`  page ids plan:\n${explainPlan(directDb, ids, c.where.params)}`);
    console.log(`  count plan:\n${explainPlan(directDb, `SELECT COUNT(*) FROM "service_asset_findings" t WHERE ${c.where.sql}`, c.where.params)}`);
  });
  const runDirect = (i: number) =>
    direct.withHits((hits) => {
      const c = compileStandardQuery(r, parsed[i % parsed.length]!, hits);
      return direct.page(r, c.where, c.order, c.limit, c.offset, entity.load, hits, false);
    });
  const client = new KeepAliveClient(server.main, { PgrApiKey: API_KEY });
  const httpOnce = async (i: number) => {
    const t0 = performance.now();
    const res = await client.request('GET', `/data/public/api/v1/incidents?${queries[i % queries.length]}`);
    const ms = since(t0);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 200)}`);
    return ms;
  };
  for (let i = 0; i < 8; i++) {
    runDirect(i);
    await httpOnce(i);
  }
  const check = JSON.parse((await client.request('GET', `/data/public/api/v1/incidents?${queries[0]}`)).body.toString('utf8')) as { objects: { id: string }[]; total: number };
  const mine = runDirect(0);
  if (check.total !== mine.total || check.objects.map((o) => o.id).join() !== mine.items.map((o) => o.id).join()) throw new Error('HTTP and direct answers differ');
  console.log(`  matches: ${fmtInt(check.total)}; answers equal on both sides`);
  gc();
  const h: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < ITER; i++) {
    // Alternate which side goes first so neither always runs on a warmer cache.
    if (i % 2 === 0) {
      h.push(await httpOnce(i));
      const t0 = performance.now();
      runDirect(i);
      d.push(since(t0));
    } else {
      const t0 = performance.now();
      runDirect(i);
      d.push(since(t0));
      h.push(await httpOnce(i));
    }
  }
  const hs = summarize(h);
  const ds = summarize(d);
  printTable(COLUMNS, [summaryRow('http', hs, `${fmtRatio(hs.p50 / ds.p50)} direct p50`), summaryRow('direct', ds, 'Store.page: ids, rows, count, relations (same code as the route)')]);
  verdict(hs.p50 < 20, `p1 HTTP p50 = ${fmtMs(hs.p50)} ms on ${fmtInt(ROWS)} incidents (target < 20 ms); HTTP/direct ${fmtRatio(hs.p50 / ds.p50)}`);
  client.close();
  directDb.close();
  await server.close();
  prepared.cleanup();
}

// ------------------------------------------------------------------------------------------
// Part 2: fan-out over 8 instances

interface Remote {
  child: ChildProcess;
  main: string;
  proxy: http.Server;
  proxyUrl: string;
  delay: number;
}

function spawnServe(db: string): Promise<{ child: ChildProcess; main: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src-main/cli.ts'), 'serve', '--db', db, '--port', '0', '--routing-port', '0', '--api-key', API_KEY, '--seed', 'demo'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`serve did not get ready: ${err}`)), 180_000);
    child.stderr!.on('data', (c) => (err += c));
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('radar-console ready '));
      if (line) {
        clearTimeout(timer);
        resolve({ child, main: (JSON.parse(line.slice('radar-console ready '.length)) as { main: string }).main });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

/** A proxy that holds each request and each answer for `delay` ms (a network in between). */
function delayProxy(target: string, delay: number): Promise<{ server: http.Server; url: string }> {
  const wait = () => new Promise((res) => setTimeout(res, delay));
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    await wait();
    try {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const up = await request(`${target}${req.url}`, { method: req.method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const body = Buffer.from(await up.body.arrayBuffer());
      await wait();
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json'), 'x-radar-platform-version': String(up.headers['x-radar-platform-version'] ?? '') });
      res.end(body);
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

async function fanOut(): Promise<void> {
  heading(`fan-out: the routing port over 8 instances (the main database + ${REMOTES} remote platforms)`);
  const dir = makeTempDir('radar-bench-fanout-');
  const t0 = performance.now();
  const spawned = await Promise.all(Array.from({ length: REMOTES }, (_, i) => spawnServe(path.join(dir, `remote-${i}.sqlite`))));
  const remotes: Remote[] = [];
  for (const [i, s] of spawned.entries()) {
    const p = await delayProxy(s.main, delayOf(i));
    remotes.push({ child: s.child, main: s.main, proxy: p.server, proxyUrl: p.url, delay: delayOf(i) });
  }
  console.log(`  ${REMOTES} remote servers (demo data, 400 incidents each) ready in ${(since(t0) / 1000).toFixed(1)} s; added delays ${remotes.map((r) => `${2 * r.delay}`).join(', ')} ms per request`);
  let router: RunningServer | undefined;
  try {
    router = await startServer({ db: path.join(dir, 'router.sqlite'), port: 0, routingPort: 0, apiKey: API_KEY, seed: 'demo' });
    for (const [i, r] of remotes.entries()) {
      await router.manager.add({ kind: 'remote', name: `remote-${i} (+${2 * r.delay} ms)`, url: r.proxyUrl, api_key: API_KEY, timeout_ms: 10_000 });
    }
    const instances = router.manager.list();
    const path_ = '/data/public/api/v1/incidents?status=in,new,assigned_customer&risklevel=gt,5&order=-created_at&per_page=50';
    console.log(`  request: GET ${path_}`);
    const ask = async (headers: Record<string, string>) => {
      const t = performance.now();
      const res = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
        const u = new URL(router!.routing);
        const req = http.request({ host: u.hostname, port: u.port, path: path_, headers: { PgrApiKey: API_KEY, ...headers }, agent: agentFor(headers) }, (r) => {
          const c: Buffer[] = [];
          r.on('data', (d) => c.push(d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: Buffer.concat(c) }));
        });
        req.on('error', reject);
        req.end();
      });
      const ms = since(t);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 300)}`);
      return { ms, body: res.body };
    };
    // One keep-alive agent per instance and one for the fan-out, so connections stay warm.
    const agents = new Map<string, http.Agent>();
    const agentFor = (h: Record<string, string>) => {
      const key = h.PgrSelectedInstance ?? 'fanout';
      let a = agents.get(key);
      if (!a) agents.set(key, (a = new http.Agent({ keepAlive: true, maxSockets: 1 })));
      return a;
    };
    const first = JSON.parse((await ask({})).body.toString('utf8')) as { name: string; status_code: number; data: { total: number } }[];
    if (first.length !== 8 || first.some((e) => e.status_code !== 200)) throw new Error(`fan-out elements: ${JSON.stringify(first.map((e) => [e.name, e.status_code]))}`);
    console.log(`  fan-out answer: ${first.length} elements, totals ${first.map((e) => e.data.total).join(', ')}`);
    for (let i = 0; i < 5; i++) {
      await ask({});
      for (const inst of instances) await ask({ PgrSelectedInstance: inst.id });
    }
    gc();
    const single = new Map<string, number[]>(instances.map((i) => [i.id, []]));
    const fan: number[] = [];
    for (let k = 0; k < FANOUT_ITER; k++) {
      for (const inst of instances) single.get(inst.id)!.push((await ask({ PgrSelectedInstance: inst.id })).ms);
      fan.push((await ask({})).ms);
    }
    const rows = instances.map((inst) => summaryRow(`alone: ${inst.name}`, summarize(single.get(inst.id)!)));
    const slowest = Math.max(...instances.map((inst) => summarize(single.get(inst.id)!).p50));
    const serial = instances.reduce((sum, inst) => sum + summarize(single.get(inst.id)!).p50, 0);
    const fs_ = summarize(fan);
    rows.push(summaryRow('fan-out, all 8', fs_, `${fmtRatio(fs_.p50 / slowest)} the slowest alone; one after another would take ~${fmtMs(serial)} ms`));
    printTable(COLUMNS, rows);
    verdict(fs_.p50 <= 1.5 * slowest, `fan-out p50 = ${fmtMs(fs_.p50)} ms, slowest single instance p50 = ${fmtMs(slowest)} ms: ${fmtRatio(fs_.p50 / slowest)} (target <= 1.5x)`);
    for (const a of agents.values()) a.destroy();
  } finally {
    await router?.close();
    for (const r of remotes) {
      r.proxy.close();
      r.child.kill('SIGTERM');
    }
    for (const s of spawned) s.child.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(bold('== bench:public — public API list on 1M incidents, and the routing fan-out =='));
  console.log(`  node ${process.version}, ${ITER} iterations per side (list), ${FANOUT_ITER} rounds (fan-out)`);
  await listOnMillion();
  await fanOut();
  heading('summary');
  for (const v of verdicts) console.log(`  ${v.ok ? green('PASS') : red('!! FAIL')}  ${v.text}`);
  const failed = verdicts.filter((v) => !v.ok).length;
  console.log(`\n  ${failed ? `${failed} target(s) missed` : 'all targets met'}; total ${(since(started) / 1000).toFixed(0)} s, rss ${rssMiB()}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
