// `npm run bench:load`: the server under 50 connections (autocannon) on 1,000,000 incidents,
// beside a bare node:http server answering the same requests with the same SQL by hand in the
// same run (bench/bare-server.mjs): the tiny route (the instance list), the public incident list
// (three filters and an order) and the v2 search. Then what a user feels: the console's requests
// while a script hammers the API with searches nobody asked before; memory (RSS) idle and after
// 2,000 requests; start-up to the ready line; and what the compiled serializer would change.
//
// Every party is its own process: the product as built (out/main/cli.js serve, also with
// --readers 0 for the choice between reader threads and reading on the server's thread), the
// bare server, and this process, which only measures. Medians over BENCH_ROUNDS interleaved
// rounds; ratios against the bare server of the same run, and each server process's CPU time
// per request answered (which depends far less than req/s on what else the machine runs). A
// measurement, not a test: it exits 0 whatever the figures and prints PASS/FAIL per target.
//
// Targets (the issue's table): public list req/s >= 1.0x bare and p99 <= 1.2x bare; the v2
// search the same; tiny route req/s >= 0.8x bare; RSS idle and after 2,000 requests <= 1.3x bare;
// start to ready line under 200 ms on 1,000,000 incidents; the console's requests while a script
// hammers the API: p99 under 300 ms. Printed beside them for information: the first answer, to a
// request sent the moment the ready line is read (the line goes out once the ports listen; the
// request waits for the apps), and Node's own start (`node -e`, writing one line) in the same runs.
//
// Environment:
//   BENCH_DB=<file>        keep the database there and reuse it (shared with the other benches)
//   BENCH_ROWS=<n>         incidents (default 1,000,000)
//   BENCH_DURATION_S=<s>   seconds per autocannon run (default 5)
//   BENCH_ROUNDS=<n>       interleaved rounds per route and server (default 3)
//   BENCH_STARTUP_ONLY=1   measure the start-up alone
//   BENCH_VARIANTS=<list>  reader counts to measure beside the default server (default 0: reading
//                          on the server's thread), e.g. 0,1,2
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileStandardQuery } from '../src-main/store/query/standard';
import { openDatabase } from '../src-main/store/db';
import { compileSearchPlan } from '../src-main/store/query/plan';
import { publicEntity, publicResource } from '../src-shared/public/entities';
import { parseStandardQuery } from '../src-shared/public/standard-filters';
import { getResource } from '../src-shared/resources/index';
import { emptySearch, type SearchRequest } from '../src-shared/schemas/search';
import { microsToTs } from '../src-shared/time';
import { limitSpec, type LimitSpec } from './limit';
import { serializerEffect } from './serializer';
import {
  assetName,
  bold,
  DATASET_END_MICROS,
  fmtInt,
  fmtMs,
  fmtRatio,
  formatTable,
  heading,
  KeepAliveClient,
  makeTempDir,
  prepareIncidentDb,
  red,
  Rng,
  since,
  summarize,
} from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DURATION = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = 50;
const KEY = crypto.randomBytes(12).toString('hex');
const ROOT = path.resolve(__dirname, '..');
const INCIDENTS = getResource('service_asset_findings');
const PUBLIC = publicEntity('incidents')!;
const PUBLIC_R = publicResource(PUBLIC);
const SEARCH = '/cruddy/v2/service_asset_findings/search';

const verdicts: { ok: boolean; text: string }[] = [];

// ------------------------------------------------------------------------------------------
// Requests

interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const since30d = microsToTs(DATASET_END_MICROS - 30 * 86_400_000_000);
const PUBLIC_QUERIES = [
  `status=in,new,assigned_customer&risklevel=gt,7&created_at=gt,${since30d}&order=-created_at&per_page=50`,
  `status=in,new,assigned_customer&risklevel=gt,7&created_at=gt,${since30d}&order=-created_at&per_page=50&page=2`,
  `status=in,new,assigned_customer&risklevel=gt,7.5&created_at=gt,${since30d}&order=-created_at&per_page=50`,
  `status=in,new,assigned_customer&risklevel=gt,6.5&created_at=gt,${since30d}&order=-created_at&per_page=50`,
];
const search = (o: Partial<SearchRequest>): SearchRequest => ({ ...emptySearch(50, 0), ...o });
const SEARCHES = [0, 50, 100, 150].map((offset) => search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'created_at', direction: 'desc' }], offset }));
/** What a script asks that nobody asked before: many host-name fragments, each its own full-text match and count. */
const rng = new Rng(7);
const HEAVY = Array.from({ length: 400 }, (_, i) =>
  search({ virtual_search: { value: assetName(rng.int(0, 4999)).slice(0, 8 + (i % 2)), strict: false }, ordering: [{ field: 'created_at', direction: 'desc' }], offset: 50 * (i % 3) }),
);

const ROUTES = {
  tiny: [{ method: 'GET', path: '/tenancy/instance/list' }] as Req[],
  public: PUBLIC_QUERIES.map((q): Req => ({ method: 'GET', path: `/data/public/api/v1/incidents?${q}` })),
  search: SEARCHES.map((b): Req => ({ method: 'POST', path: SEARCH, body: JSON.stringify(b) })),
  heavy: HEAVY.map((b): Req => ({ method: 'POST', path: SEARCH, body: JSON.stringify(b) })),
};

/** The bare server's routes (bench/bare-server.mjs): each request with its limit, or the instance list. */
interface BareRoute {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  spec?: LimitSpec;
  linkPath?: string;
  instances?: true;
}

function bareRoutes(): BareRoute[] {
  const parse = (q: string) => parseStandardQuery(Object.fromEntries(new URLSearchParams(q)));
  return [
    { method: 'GET', path: '/tenancy/instance/list', instances: true },
    ...PUBLIC_QUERIES.map((q): BareRoute => ({ method: 'GET', path: `/data/public/api/v1/incidents?${q}`, spec: limitSpec(compileStandardQuery(PUBLIC_R, parse(q), PUBLIC.load), 'objects'), linkPath: `/#/${PUBLIC.link}/` })),
    ...[...SEARCHES, ...HEAVY].map((b): BareRoute => ({ method: 'POST', path: SEARCH, body: JSON.stringify(b), spec: limitSpec(compileSearchPlan(INCIDENTS, b), 'items') })),
  ];
}

// ------------------------------------------------------------------------------------------
// Processes

interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function start(name: string, args: string[], prefix: string, parse: (rest: string) => string): Promise<Proc & { readyMs: number; readyCpuMs: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not get ready: ${err}`)), 300_000);
    child.stderr!.on('data', (c) => (err += c));
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith(prefix));
      if (!line) return;
      clearTimeout(timer);
      const readyMs = since(t0);
      resolve({
        name,
        url: parse(line.slice(prefix.length)),
        child,
        readyMs,
        readyCpuMs: cpuMsOf(child.pid!),
        stop: () =>
          new Promise<void>((res) => {
            if (child.exitCode !== null) return res();
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${err}`)));
  });
}

const VARIANTS = (process.env.BENCH_VARIANTS ?? '0').split(',').filter(Boolean).map(Number);
/** The product's serve; `readers` undefined: its default. */
const serveArgs = (db: string, readers?: number) => [
  path.join(ROOT, 'out/main/cli.js'),
  'serve',
  '--db',
  db,
  '--port',
  '0',
  '--routing-port',
  '0',
  '--api-key',
  KEY,
  '--seed',
  'none',
  ...(readers === undefined ? [] : ['--readers', String(readers)]),
];
const startProduct = (db: string, readers?: number) =>
  start(readers === undefined ? 'server' : `server --readers ${readers}`, serveArgs(db, readers), 'radar-console ready ', (rest) => (JSON.parse(rest) as { main: string }).main);
const startBare = (db: string, routes: string) => start('bare node:http', [path.join(ROOT, 'bench/bare-server.mjs'), db, routes, KEY], 'bare ready ', (rest) => rest.trim());

/** Resident memory of a process (all its threads), MiB. */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// ------------------------------------------------------------------------------------------
// Load

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of the server's process (all its threads) per request answered, µs; NaN when not measured. */
  cpuUs: number;
}

/**
 * CPU time (user + system, all threads) a process has used, ms (Linux: /proc, 100 ticks a second).
 * Read when a start's ready line arrives, it says what the start costs whatever else the machine
 * runs: the wall time to the line grows with the load, this does not.
 */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function hammer(url: string, reqs: Req[], opts: { duration?: number; amount?: number; connections?: number; headers?: Record<string, string>; pid?: number } = {}): Promise<LoadResult> {
  const cpu0 = opts.pid ? cpuMsOf(opts.pid) : NaN;
  const r = await autocannon({
    url,
    connections: opts.connections ?? CONNECTIONS,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? DURATION }),
    headers: { PgrApiKey: KEY, 'content-type': 'application/json', ...opts.headers },
    requests: reqs.map((q) => ({ method: q.method, path: q.path, ...(q.body ? { body: q.body } : {}) })),
  });
  const cpuUs = opts.pid && r.requests.total ? ((cpuMsOf(opts.pid) - cpu0) * 1000) / r.requests.total : NaN;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx, cpuUs };
}

const median = (xs: number[]): number => summarize(xs).p50;

async function compareLoad(name: string, reqs: Req[], servers: Proc[]): Promise<Map<string, LoadResult>> {
  heading(`${name}: autocannon -c ${CONNECTIONS} -d ${DURATION}, ${ROUNDS} rounds (${reqs.length} request${reqs.length > 1 ? 's' : ''} in turn per connection)`);
  const runs = new Map<string, LoadResult[]>(servers.map((s) => [s.name, []]));
  for (const s of servers) await hammer(s.url, reqs, { duration: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) runs.get(s.name)!.push(await hammer(s.url, reqs, { pid: s.child.pid }));
  }
  const out = new Map<string, LoadResult>();
  const rows: string[][] = [];
  for (const s of servers) {
    const rs = runs.get(s.name)!;
    const m = { rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), errors: rs.reduce((a, r) => a + r.errors, 0), cpuUs: median(rs.map((r) => r.cpuUs)) };
    out.set(s.name, m);
    rows.push([s.name, fmtInt(m.rps), rs.map((r) => fmtInt(r.rps)).join(' / '), fmtMs(m.p50), fmtMs(m.p99), rs.map((r) => fmtMs(r.p99)).join(' / '), fmtMs(m.cpuUs), String(m.errors)]);
  }
  // CPU time per request depends far less on what else the machine runs than req/s does.
  console.log(
    formatTable(
      [
        { header: 'server' },
        { header: 'req/s', align: 'right' },
        { header: 'rounds', align: 'right' },
        { header: 'p50 ms', align: 'right' },
        { header: 'p99 ms', align: 'right' },
        { header: 'rounds', align: 'right' },
        { header: 'CPU µs/req', align: 'right' },
        { header: 'errors', align: 'right' },
      ],
      rows,
    ),
  );
  return out;
}

/** The console's requests, one at a time as the page makes them, latencies in ms. */
async function consoleLoop(url: string, ms: number): Promise<{ ms: number[]; failed: number }> {
  const client = new KeepAliveClient(url, { PgrApiKey: KEY, 'Sec-Fetch-Site': 'same-origin' });
  const steps: Req[] = [ROUTES.tiny[0]!, ROUTES.search[0]!, ROUTES.public[0]!, ROUTES.search[1]!];
  const out: number[] = [];
  let failed = 0;
  const end = performance.now() + ms;
  try {
    for (let i = 0; performance.now() < end; i++) {
      const s = steps[i % steps.length]!;
      const t0 = performance.now();
      try {
        const res = await client.request(s.method, s.path, s.body);
        if (res.status !== 200) throw new Error(`console request answered ${res.status}`);
        out.push(since(t0));
      } catch {
        failed++;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    client.close();
  }
  return { ms: out, failed };
}

// ------------------------------------------------------------------------------------------

function build(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('electron-vite build failed');
}

/**
 * Start to ready line, N times: the product's serve, better-sqlite3 opening the file and
 * answering one query, and Node writing one line (its own start, the floor of any start). The
 * ready line goes out once the ports listen, before the store and the apps are loaded (requests
 * wait for them): the first answer, to a request sent the moment the line is read, is measured
 * too (the tiny route, from process start).
 */
async function startUp(db: string): Promise<{ serve: number; first: number; limit: number; node: number; serveCpu: number; firstCpu: number; limitCpu: number; nodeCpu: number }> {
  heading('start-up: process start to ready line and to the first answer, on the 1,000,000-incident database (5 runs each, interleaved)');
  const limitScript = `const D=require('better-sqlite3');const db=new D(process.argv[1]);db.pragma('journal_mode = WAL');db.prepare("SELECT id FROM service_asset_findings WHERE status = 'new' ORDER BY created_at DESC LIMIT 50").all();process.stdout.write('ready\\n');`;
  const serve: number[] = [];
  const first: number[] = [];
  const limit: number[] = [];
  const node: number[] = [];
  // CPU time used by each process when its line came (and the server's at its first answer).
  const cpu = { serve: [] as number[], first: [] as number[], limit: [] as number[], node: [] as number[] };
  for (let i = 0; i < 5; i++) {
    const p = await startProduct(db);
    const t = performance.now();
    const client = new KeepAliveClient(p.url, { PgrApiKey: KEY });
    const answer = await client.request('GET', ROUTES.tiny[0]!.path);
    client.close();
    if (answer.status !== 200) throw new Error(`the first request after the ready line was answered ${answer.status}`);
    serve.push(p.readyMs);
    first.push(p.readyMs + since(t));
    cpu.serve.push(p.readyCpuMs);
    cpu.first.push(cpuMsOf(p.child.pid!));
    await p.stop();
    const l = await start('limit', ['-e', limitScript, db], 'ready', () => '');
    limit.push(l.readyMs);
    cpu.limit.push(l.readyCpuMs);
    await l.stop();
    const n = await start('node', ['-e', "process.stdout.write('ready\\n')"], 'ready', () => '');
    node.push(n.readyMs);
    cpu.node.push(n.readyCpuMs);
    await n.stop();
  }
  console.log(`  serve, ready line: ${serve.map(fmtMs).join(', ')} ms; first answer: ${first.map(fmtMs).join(', ')} ms; better-sqlite3 open + query: ${limit.map(fmtMs).join(', ')} ms; node alone: ${node.map(fmtMs).join(', ')} ms`);
  console.log(`  CPU time used by then (all threads; the same whatever the load): serve at its ready line ${cpu.serve.map(fmtMs).join(', ')} ms; at its first answer ${cpu.first.map(fmtMs).join(', ')} ms; better-sqlite3 open + query ${cpu.limit.map(fmtMs).join(', ')} ms; node alone ${cpu.node.map(fmtMs).join(', ')} ms`);
  return { serve: median(serve), first: median(first), limit: median(limit), node: median(node), serveCpu: median(cpu.serve), firstCpu: median(cpu.first), limitCpu: median(cpu.limit), nodeCpu: median(cpu.node) };
}

/** The start's CPU time beside better-sqlite3's open + query: for information, not load-bound. */
function cpuRows(up: Awaited<ReturnType<typeof startUp>>): string[][] {
  return [
    ['serve CPU to ready line, ms', fmtMs(up.serveCpu), fmtMs(up.limitCpu), fmtRatio(up.serveCpu / up.limitCpu), '(information)', '-'],
    ['serve CPU to first answer, ms', fmtMs(up.firstCpu), fmtMs(up.limitCpu), fmtRatio(up.firstCpu / up.limitCpu), '(information)', '-'],
    ['node alone, CPU to one line, ms', fmtMs(up.nodeCpu), fmtMs(up.limitCpu), fmtRatio(up.nodeCpu / up.limitCpu), '(information)', '-'],
  ];
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(bold('== bench:load — the server under 50 connections beside a bare node:http server with the same SQL =='));
  console.log(`  node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  heading('database');
  const prepared = prepareIncidentDb({ incidents: ROWS, assets: 5_000, findings: 500, seed: 20261003 });
  // Migrations (if any) run once here, not inside a timed start.
  openDatabase(prepared.file).db.close();
  build();
  const dir = makeTempDir('radar-bench-load-');
  const routesFile = path.join(dir, 'routes.json');
  fs.writeFileSync(routesFile, JSON.stringify(bareRoutes()));
  const procs: Proc[] = [];
  const table: string[][] = [];
  try {
    const up = await startUp(prepared.file);
    if (process.env.BENCH_STARTUP_ONLY === '1') {
      const rows = [
        ['serve start to ready line, ms', fmtMs(up.serve), fmtMs(up.limit), fmtRatio(up.serve / up.limit), '< 200 ms', up.serve < 200 ? 'PASS' : 'FAIL'],
        ['serve start to first answer, ms', fmtMs(up.first), fmtMs(up.limit), fmtRatio(up.first / up.limit), '(information)', '-'],
        ['node alone, start to one line, ms', fmtMs(up.node), fmtMs(up.limit), fmtRatio(up.node / up.limit), '(information)', '-'],
        ...cpuRows(up),
      ];
      console.log(formatTable([{ header: 'measure' }, { header: 'server', align: 'right' }, { header: 'limit', align: 'right' }, { header: 'ratio', align: 'right' }, { header: 'target' }, { header: 'verdict' }], rows));
      console.log(bold(`\n  total ${(since(started) / 1000).toFixed(0)} s, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`));
      return;
    }

    heading('servers');
    const bare = await startBare(prepared.file, routesFile);
    const ours = await startProduct(prepared.file);
    const variants: Proc[] = [];
    for (const n of VARIANTS) variants.push(await startProduct(prepared.file, n));
    procs.push(bare, ours, ...variants);
    for (const p of procs) console.log(`  ${p.name}: ${p.url} (pid ${p.child.pid})`);
    await new Promise((r) => setTimeout(r, 1500));
    const products = [ours, ...variants];
    const idle = new Map(procs.map((p) => [p.name, rssOf(p.child.pid!)]));
    for (const p of procs) await hammer(p.url, ROUTES.public, { amount: 2000, connections: 10 });
    const after = new Map(procs.map((p) => [p.name, rssOf(p.child.pid!)]));
    console.log(`  RSS idle / after 2,000 public list requests (MiB): ${procs.map((p) => `${p.name} ${idle.get(p.name)!.toFixed(0)} / ${after.get(p.name)!.toFixed(0)}`).join('; ')}`);

    const servers = [bare, ...products];
    const tiny = await compareLoad('tiny route GET /tenancy/instance/list', ROUTES.tiny, servers);
    const pub = await compareLoad('public list, three filters and an order', ROUTES.public, servers);
    const v2 = await compareLoad('v2 search, status = new by time, pages 1-4', ROUTES.search, servers);

    heading(`the console while a script hammers the API (${ROUTES.heavy.length} different full-text searches, -c ${CONNECTIONS}, ${DURATION * 2} s)`);
    const consoleRows: string[][] = [];
    const consoleP99 = new Map<string, number>();
    for (const s of servers) {
      const quiet = summarize((await consoleLoop(s.url, 3000)).ms);
      const [busy, script] = await Promise.all([consoleLoop(s.url, DURATION * 2 * 1000), hammer(s.url, ROUTES.heavy, { duration: DURATION * 2 })]);
      const b = summarize(busy.ms);
      consoleP99.set(s.name, busy.failed || !b.n ? Infinity : b.p99);
      consoleRows.push([s.name, fmtMs(quiet.p50), fmtMs(quiet.p99), fmtMs(b.p50), fmtMs(b.p99), fmtMs(b.max), String(b.n), String(busy.failed), fmtInt(script.rps)]);
    }
    console.log(
      formatTable(
        [
          { header: 'server' },
          { header: 'quiet p50', align: 'right' },
          { header: 'quiet p99', align: 'right' },
          { header: 'hammered p50', align: 'right' },
          { header: 'hammered p99', align: 'right' },
          { header: 'max', align: 'right' },
          { header: 'answered', align: 'right' },
          { header: 'failed', align: 'right' },
          { header: "script's req/s", align: 'right' },
        ],
        consoleRows,
      ),
    );

    serializerEffect(prepared.file, SEARCHES[0]!);

    heading("summary (the issue's table: medians; limit = the bare server or better-sqlite3 alone, same run)");
    const b = (m: Map<string, LoadResult>) => m.get(bare.name)!;
    const o = (m: Map<string, LoadResult>) => m.get(ours.name)!;
    const row = (measure: string, now: string, limit: string, ratio: number, target: string, ok: boolean) => {
      table.push([measure, now, limit, fmtRatio(ratio), target, ok ? 'PASS' : 'FAIL']);
      verdicts.push({ ok, text: `${measure}: ${now} vs ${limit} (${fmtRatio(ratio)}; target ${target})` });
    };
    row('-c 50 public list, req/s', fmtInt(o(pub).rps), fmtInt(b(pub).rps), o(pub).rps / b(pub).rps, '>= 1.0x', o(pub).rps >= b(pub).rps);
    row('-c 50 public list, p99 ms', fmtMs(o(pub).p99), fmtMs(b(pub).p99), o(pub).p99 / b(pub).p99, '<= 1.2x', o(pub).p99 <= 1.2 * b(pub).p99);
    row('-c 50 v2 search, req/s', fmtInt(o(v2).rps), fmtInt(b(v2).rps), o(v2).rps / b(v2).rps, '>= 1.0x', o(v2).rps >= b(v2).rps);
    row('-c 50 v2 search, p99 ms', fmtMs(o(v2).p99), fmtMs(b(v2).p99), o(v2).p99 / b(v2).p99, '<= 1.2x', o(v2).p99 <= 1.2 * b(v2).p99);
    row('-c 50 tiny route, req/s', fmtInt(o(tiny).rps), fmtInt(b(tiny).rps), o(tiny).rps / b(tiny).rps, '>= 0.8x', o(tiny).rps >= 0.8 * b(tiny).rps);
    table.push(['-c 50 tiny route, CPU µs per request', fmtMs(o(tiny).cpuUs), fmtMs(b(tiny).cpuUs), fmtRatio(o(tiny).cpuUs / b(tiny).cpuUs), '(information)', '-']);
    row('serve start to ready line, ms', fmtMs(up.serve), fmtMs(up.limit), up.serve / up.limit, '< 200 ms', up.serve < 200);
    table.push(['serve start to first answer, ms', fmtMs(up.first), fmtMs(up.limit), fmtRatio(up.first / up.limit), '(information)', '-']);
    table.push(['node alone, start to one line, ms', fmtMs(up.node), fmtMs(up.limit), fmtRatio(up.node / up.limit), '(information)', '-']);
    table.push(...cpuRows(up));
    const rss = (m: Map<string, number>, p: Proc) => m.get(p.name)!;
    row('RSS idle, MiB', rss(idle, ours).toFixed(0), rss(idle, bare).toFixed(0), rss(idle, ours) / rss(idle, bare), '<= 1.3x', rss(idle, ours) <= 1.3 * rss(idle, bare));
    row('RSS after 2,000 requests, MiB', rss(after, ours).toFixed(0), rss(after, bare).toFixed(0), rss(after, ours) / rss(after, bare), '<= 1.3x', rss(after, ours) <= 1.3 * rss(after, bare));
    const cp = consoleP99.get(ours.name)!;
    const cb = consoleP99.get(bare.name)!;
    row('console p99 while a script hammers, ms', fmtMs(cp), Number.isFinite(cb) ? fmtMs(cb) : 'no answer', Number.isFinite(cb) ? cp / cb : NaN, '< 300 ms', cp < 300);
    console.log(formatTable([{ header: 'measure' }, { header: 'server', align: 'right' }, { header: 'limit', align: 'right' }, { header: 'ratio', align: 'right' }, { header: 'target' }, { header: 'verdict' }], table));
    if (variants.length) {
      console.log('\n  the same server with other reader counts (medians of the same rounds):');
      console.log(
        formatTable(
          [
            { header: 'server' },
            { header: 'public req/s', align: 'right' },
            { header: 'public p99', align: 'right' },
            { header: 'search req/s', align: 'right' },
            { header: 'search p99', align: 'right' },
            { header: 'tiny req/s', align: 'right' },
            { header: 'console p99 hammered', align: 'right' },
            { header: 'RSS idle / after', align: 'right' },
          ],
          products.map((p) => {
            const x = (m: Map<string, LoadResult>) => m.get(p.name)!;
            return [p.name, fmtInt(x(pub).rps), fmtMs(x(pub).p99), fmtInt(x(v2).rps), fmtMs(x(v2).p99), fmtInt(x(tiny).rps), fmtMs(consoleP99.get(p.name)!), `${rss(idle, p).toFixed(0)} / ${rss(after, p).toFixed(0)} MiB`];
          }),
        ),
      );
    }
    const failed = verdicts.filter((v) => !v.ok);
    for (const f of failed) console.log(red(`  !! FAIL ${f.text}`));
    console.log(bold(`\n  ${failed.length ? `${failed.length} target(s) missed` : 'all targets met'}; total ${(since(started) / 1000).toFixed(0)} s, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`));
  } finally {
    for (const p of procs) await p.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    prepared.cleanup();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
