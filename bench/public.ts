// bench:public — the public API's incident list on 1,000,000 incidents (three standard filters
// and an order), over HTTP beside the limit: the same SQL run by hand on better-sqlite3 with its
// COUNT, plus JSON (bench/limit.ts); then the routing port's fan-out over 8 instances beside each
// instance asked alone.
//
// Targets: the list's HTTP p50 under 20 ms and within 1.1x of the limit; the fan-out within 1.5x
// of the slowest instance alone. Beside them, for information, the same 8 instances asked at once
// (one request each): the cost of every instance answering at the same moment on one machine. BENCH_FANOUT=0 measures the list only.
//
// The fan-out instances are the router's own main database and 7 remote platforms: every party
// is a separate process (the remotes, a proxy process adding a fixed network delay per remote as
// a platform across a WAN answers, and the router); asking them in parallel should cost about
// the slowest one.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { compileStandardQuery } from '../src-main/store/query/standard';
import { startServer } from '../src-main/server/start';
import { openDatabase } from '../src-main/store/db';
import { countSqlOf, idsSqlOf } from '../src-main/store/query/plan';
import { limitQuery } from './limit';
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
  spawnReady,
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
  {
    const c = compileStandardQuery(r, parsed[0]!, entity.load);
    const ids = idsSqlOf(r, c);
    const count = countSqlOf(r, c);
    console.log(`  page ids plan:\n${explainPlan(directDb, ids.sql, ids.params)}`);
    console.log(`  count plan:\n${explainPlan(directDb, count.sql, count.params)}`);
  }
  // The limit: the same SQL by hand (ids, rows, the asset and occurrences, COUNT) + JSON.
  const link = { prefix: `${server.main}/#/${entity.link}/`, suffix: '' };
  const limits = parsed.map((p) => limitQuery(directDb, compileStandardQuery(r, p, entity.load), 'objects', link));
  const runDirect = (i: number) => limits[i % limits.length]!.run();
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
  for (let i = 0; i < queries.length; i++) {
    const got = (await client.request('GET', `/data/public/api/v1/incidents?${queries[i]}`)).body.toString('utf8');
    if (got !== runDirect(i)) throw new Error(`HTTP and limit answers differ for ?${queries[i]}`);
  }
  const check = JSON.parse(runDirect(0)) as { total: number };
  console.log(`  matches: ${fmtInt(check.total)}; answers byte for byte equal on both sides`);
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
  // Where the limit's time goes: its page (ids, rows) and its COUNT, each alone.
  const pageT: number[] = [];
  const countT: number[] = [];
  for (let i = 0; i < 40; i++) {
    const lq = limits[i % limits.length]!;
    let t = performance.now();
    lq.page();
    pageT.push(since(t));
    t = performance.now();
    lq.count();
    countT.push(since(t));
  }
  const hs = summarize(h);
  const ds = summarize(d);
  const ps = summarize(pageT);
  const cs = summarize(countT);
  printTable(COLUMNS, [
    summaryRow('http', hs, `${fmtRatio(hs.p50 / ds.p50)} the limit's p50`),
    summaryRow('limit', ds, 'the same SQL by hand: ids, rows, asset, occurrences, COUNT, JSON'),
    summaryRow('  page', ps, "the limit's ids + rows alone"),
    summaryRow('  count', cs, `the limit's COUNT alone: ${((100 * cs.p50) / (ps.p50 + cs.p50)).toFixed(0)}% of page + count`),
  ]);
  verdict(hs.p50 < 20, `p1 HTTP p50 = ${fmtMs(hs.p50)} ms on ${fmtInt(ROWS)} incidents (target < 20 ms)`);
  verdict(hs.p50 / ds.p50 <= 1.1, `p1 HTTP p50 / limit p50 = ${fmtRatio(hs.p50 / ds.p50)} (${fmtMs(hs.p50)} / ${fmtMs(ds.p50)} ms; target <= 1.1x)`);
  client.close();
  directDb.close();
  await server.close();
  prepared.cleanup();
}

// ------------------------------------------------------------------------------------------
// Part 2: fan-out over 8 instances

const serveArgs = (db: string) => ['--import', 'tsx', path.join(ROOT, 'src-main/cli.ts'), 'serve', '--db', db, '--port', '0', '--routing-port', '0', '--api-key', API_KEY, '--seed', 'demo'];

async function call(base: string, method: string, p: string, agent: http.Agent, headers: Record<string, string> = {}, body?: unknown) {
  const u = new URL(base);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const t = performance.now();
  const res = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path: p, agent, headers: { PgrApiKey: API_KEY, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (r) => {
        const c: Buffer[] = [];
        r.on('data', (d) => c.push(d));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body: Buffer.concat(c) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  return { ms: since(t), ...res };
}

async function fanOut(): Promise<void> {
  heading(`fan-out: the routing port over 8 instances (the main database + ${REMOTES} remote platforms)`);
  const dir = makeTempDir('radar-bench-fanout-');
  const children: ChildProcess[] = [];
  try {
    const t0 = performance.now();
    // Every party is its own process: the remotes, the network delays, the router; this
    // process only measures.
    const remotes = await Promise.all(
      Array.from({ length: REMOTES }, (_, i) => spawnReady<{ main: string }>(serveArgs(path.join(dir, `remote-${i}.sqlite`)), 'radar-console ready ')),
    );
    children.push(...remotes.map((r) => r.child));
    const proxies = await spawnReady<{ urls: string[] }>(
      ['--import', 'tsx', path.join(ROOT, 'bench/delay-proxy.ts'), ...remotes.flatMap((r, i) => [r.info.main, String(delayOf(i))])],
      'proxies ',
    );
    children.push(proxies.child);
    const profile = process.env.BENCH_PROFILE_ROUTER ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_ROUTER}`] : [];
    const router = await spawnReady<{ main: string; routing: string }>([...profile, ...serveArgs(path.join(dir, 'router.sqlite'))], 'radar-console ready ');
    children.push(router.child);
    console.log(`  ${REMOTES} remote servers (demo data, 400 incidents each) and the router ready in ${(since(t0) / 1000).toFixed(1)} s; added delays ${Array.from({ length: REMOTES }, (_, i) => 2 * delayOf(i)).join(', ')} ms per request`);
    const agents = new Map<string, http.Agent>();
    const agent = (key: string) => {
      let a = agents.get(key);
      if (!a) agents.set(key, (a = new http.Agent({ keepAlive: true, maxSockets: 1 })));
      return a;
    };
    for (const [i, url] of proxies.info.urls.entries()) {
      const res = await call(router.info.main, 'POST', '/console/v1/instances', agent('admin'), {}, { kind: 'remote', name: `remote-${i} (+${2 * delayOf(i)} ms)`, url, api_key: API_KEY });
      if (res.status !== 201) throw new Error(`adding a remote: ${res.status} ${res.body.toString()}`);
    }
    const instances = JSON.parse((await call(router.info.main, 'GET', '/tenancy/instance/list', agent('admin'))).body.toString()) as { id: string; name: string }[];
    const path_ = '/data/public/api/v1/incidents?status=in,new,assigned_customer&risklevel=gt,5&order=-created_at&per_page=50';
    console.log(`  request: GET ${path_}`);
    const ask = async (id?: string) => {
      const res = await call(router.info.routing, 'GET', path_, agent(id ?? 'fanout'), id ? { PgrSelectedInstance: id } : {});
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 300)}`);
      return res;
    };
    const first = JSON.parse((await ask()).body.toString('utf8')) as { name: string; status_code: number; data: { total: number } }[];
    if (first.length !== 8 || first.some((e) => e.status_code !== 200)) throw new Error(`fan-out elements: ${JSON.stringify(first.map((e) => [e.name, e.status_code]))}`);
    console.log(`  fan-out answer: ${first.length} elements, totals ${first.map((e) => e.data.total).join(', ')}, ${fmtInt((await ask()).body.length)} bytes`);
    for (let i = 0; i < 5; i++) {
      await ask();
      for (const inst of instances) await ask(inst.id);
    }
    const single = new Map<string, number[]>(instances.map((i) => [i.id, []]));
    const fan: number[] = [];
    // The same 8 answers asked at once, one request per instance (PgrSelectedInstance): what the
    // machine gives when every instance answers at the same moment, without the fan-out's merge.
    const together: number[] = [];
    for (let k = 0; k < FANOUT_ITER; k++) {
      for (const inst of instances) single.get(inst.id)!.push((await ask(inst.id)).ms);
      fan.push((await ask()).ms);
      const t = performance.now();
      await Promise.all(instances.map((inst) => ask(inst.id)));
      together.push(since(t));
    }
    const rows = instances.map((inst) => summaryRow(`alone: ${inst.name}`, summarize(single.get(inst.id)!)));
    const slowest = Math.max(...instances.map((inst) => summarize(single.get(inst.id)!).p50));
    const serial = instances.reduce((sum, inst) => sum + summarize(single.get(inst.id)!).p50, 0);
    const fs_ = summarize(fan);
    const ts = summarize(together);
    rows.push(summaryRow('8 at once, one each', ts, `${fmtRatio(ts.p50 / slowest)} the slowest alone: the instances answering at the same moment on this machine`));
    rows.push(summaryRow('fan-out, all 8', fs_, `${fmtRatio(fs_.p50 / slowest)} the slowest alone, ${fmtRatio(fs_.p50 / ts.p50)} the 8 at once; one after another would take ~${fmtMs(serial)} ms`));
    printTable(COLUMNS, rows);
    verdict(fs_.p50 <= 1.5 * slowest, `fan-out p50 = ${fmtMs(fs_.p50)} ms, slowest single instance p50 = ${fmtMs(slowest)} ms: ${fmtRatio(fs_.p50 / slowest)} (target <= 1.5x)`);
    for (const a of agents.values()) a.destroy();
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(bold('== bench:public — public API list on 1M incidents, and the routing fan-out =='));
  console.log(`  node ${process.version}, ${ITER} iterations per side (list), ${FANOUT_ITER} rounds (fan-out)`);
  await listOnMillion();
  if (process.env.BENCH_FANOUT === '0') console.log('\n  fan-out skipped (BENCH_FANOUT=0)');
  else await fanOut();
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
