// `npm run bench:search`: incident search on 1,000,000 rows, over HTTP (the server on a real
// socket, one keep-alive connection, requests in sequence) beside the limit: the same SQL
// prepared once and run by hand on a second better-sqlite3 connection, COUNT included, plus
// JSON (bench/limit.ts), in the same process and the same run.
//
// Targets: an equal filter ordered by time, and an IN list with a range ordered by risk level,
// within 1.1x of the limit; offset 100,000 within 1.2x; the other scenarios within 2x;
// virtual_search HTTP p50 under 50 ms. A measurement, not a test: it exits 0 whatever the
// figures, and marks misses with FAIL.
//
// Environment:
//   BENCH_DB=<file>    keep the database there and reuse it when it matches (built by this bench)
//   BENCH_ROWS=<n>     incidents (default 1,000,000)
//   BENCH_ITER=<n>     measured iterations per side and scenario (default 200; at least 30)
//   BENCH_BUDGET_S=<s> time budget per scenario, both sides (default 20); slow scenarios run fewer
import Database from 'better-sqlite3';
import os from 'node:os';
import { startServer } from '../src-main/server/start';
import { openDatabase, type Db } from '../src-main/store/db';
import { compileSearch, type CompiledSearch } from '../src-main/store/search';
import { compileSearchPlan } from '../src-main/store/query/plan';
import { limitQuery, type LimitQuery } from './limit';
import { serializerEffect } from './serializer';
import { getResource } from '../src-shared/resources/index';
import { emptySearch, type SearchFilter, type SearchOrdering, type SearchRequest } from '../src-shared/schemas/search';
import {
  bold,
  dbFileSize,
  explainPlan,
  fmtBytes,
  fmtInt,
  fmtMs,
  fmtRatio,
  formatTable,
  gc,
  green,
  heading,
  KeepAliveClient,
  prepareIncidentDb,
  red,
  rssMiB,
  since,
  summarize,
  type Summary,
} from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const MAX_ITER = Math.max(30, Number(process.env.BENCH_ITER ?? 200));
const MIN_ITER = 30;
const WARMUP = 5;
const BUDGET_MS = Number(process.env.BENCH_BUDGET_S ?? 20) * 1000;
const API_KEY = 'bench-search-api-key';
const RESOURCE = getResource('service_asset_findings');
const ROUTE = '/cruddy/v2/service_asset_findings/search';

/** virtual_search over HTTP: p50 under this many milliseconds. */
const VS_TARGET_MS = 50;

// ------------------------------------------------------------------------------------------
// Scenarios

interface Scenario {
  key: string;
  title: string;
  /** Iteration i sends requests[i % length], on both sides. */
  requests: SearchRequest[];
  virtualSearch?: boolean;
  /** HTTP p50 may be at most this many times the limit's p50. */
  ratio: number;
}

const request = (o: Partial<SearchRequest>): SearchRequest => ({ ...emptySearch(50, 0), ...o });
const equal = (field: string, value: unknown): SearchFilter => ({ field, filter_type: 'equal', value });
const range = (field: string, from: unknown, to: unknown): SearchFilter => ({ field, filter_type: 'range', value: [from, to] });
const inList = (field: string, values: unknown[]): SearchFilter => ({ field, filter_type: 'intersection', value: values });
const desc = (field: string): SearchOrdering => ({ field, direction: 'desc' });
const nonStrict = (value: string) => ({ value, strict: false });

const SCENARIOS: Scenario[] = [
  {
    key: 'a1',
    title: 'equal: status = new, ORDER BY created_at DESC, LIMIT 50 (pages 1-4)',
    requests: [0, 50, 100, 150].map((offset) => request({ filters: [equal('status', 'new')], ordering: [desc('created_at')], offset })),
    ratio: 1.1,
  },
  {
    key: 'a2',
    title: 'equal + range: status = new, risklevel in [from, 10], ORDER BY risklevel DESC, created_at DESC, LIMIT 50',
    requests: [7, 7.5, 8, 8.5].map((from) =>
      request({ filters: [equal('status', 'new'), range('risklevel', from, 10)], ordering: [desc('risklevel'), desc('created_at')] }),
    ),
    ratio: 2,
  },
  {
    key: 'a3',
    title: 'intersection + range: status in (new, assigned_customer), risklevel >= 5, ORDER BY risklevel DESC, LIMIT 50',
    requests: [5, 5.5, 6, 6.5].map((from) =>
      request({ filters: [inList('status', ['new', 'assigned_customer']), range('risklevel', from, null)], ordering: [desc('risklevel')] }),
    ),
    ratio: 1.1,
  },
  {
    key: 'b1',
    title: 'virtual_search, host-name fragment (non-strict), ORDER BY created_at DESC, LIMIT 50',
    virtualSearch: true,
    requests: ['db-msk-04', 'web-spb-01', 'mail-nsk-00', 'vpn-ekb-02'].map((v) => request({ virtual_search: nonStrict(v), ordering: [desc('created_at')] })),
    ratio: 2,
  },
  {
    key: 'b2',
    title: 'virtual_search, Cyrillic word in another case than stored (non-strict), ORDER BY created_at DESC, LIMIT 50',
    virtualSearch: true,
    requests: ['ЭКСПЛУАТИРУЕТСЯ', 'Персональные', 'ЭКСПЛОЙТ', 'ложное СРАБАТЫВАНИЕ'].map((v) =>
      request({ virtual_search: nonStrict(v), ordering: [desc('created_at')] }),
    ),
    ratio: 2,
  },
  {
    key: 'c',
    title: 'offset ~100,000, LIMIT 50, ORDER BY created_at DESC, no filter',
    requests: [100_000, 100_050, 100_100, 100_150].map((offset) => request({ ordering: [desc('created_at')], offset })),
    ratio: 1.2,
  },
];

// ------------------------------------------------------------------------------------------
// The limit: the same SQL run by hand (bench/limit.ts), statements prepared once per request

interface DirectResult {
  ids: string;
  total: number;
  rows: number;
}

class Direct {
  private readonly queries = new Map<SearchRequest, LimitQuery>();

  constructor(readonly db: Db) {}

  query(req: SearchRequest): LimitQuery {
    let lq = this.queries.get(req);
    if (!lq) this.queries.set(req, (lq = limitQuery(this.db, compileSearchPlan(RESOURCE, req), 'items')));
    return lq;
  }

}

/** What an answer says, for comparing the two sides (outside any timing). */
function answerOf(text: string): DirectResult {
  const body = JSON.parse(text) as { items: { id: string }[]; total: number };
  return { ids: body.items.map((x) => x.id).join(), total: body.total, rows: body.items.length };
}

// ------------------------------------------------------------------------------------------
// Running a scenario

interface ScenarioResult {
  scenario: Scenario;
  http: Summary;
  direct: Summary;
  page: Summary;
  count: Summary;
  totals: number[];
  ratio: number;
  errors: string[];
  verdicts: { ok: boolean; text: string }[];
}

/** The SQL with a long select list shortened to its column count. */
const shortSql = (sql: string): string =>
  sql.replace(/^SELECT (.*?) FROM /s, (m, list: string) => {
    const n = list.split(' AS ').length - 1;
    return n > 3 ? `SELECT <${n} columns> FROM ` : m;
  });

function printPlans(direct: Direct, compiled: CompiledSearch[]): void {
  const seen = new Set<string>();
  compiled.forEach((c, i) => {
    for (const [what, q] of [
      ['page ids', c.ids],
      ['count', c.count],
    ] as const) {
      const plan = explainPlan(direct.db, q.sql, q.params);
      const key = `${what}\n${q.sql}\n${plan}`;
      if (seen.has(key)) continue;
      seen.add(key);
      console.log(`  ${what} SQL${compiled.length > 1 ? ` (request ${i + 1})` : ''}: ${shortSql(q.sql)}`);
      console.log(`  ${what} params: ${JSON.stringify(q.params)}`);
      console.log(`  ${what} plan:\n${plan}`);
    }
  });
}

async function runScenario(s: Scenario, client: KeepAliveClient, direct: Direct): Promise<ScenarioResult> {
  heading(`(${s.key}) ${s.title}`);
  const compiled = s.requests.map((r) => compileSearch(RESOURCE, r));
  for (const r of s.requests) direct.query(r);
  const bodies = s.requests.map((r) => JSON.stringify(r));
  console.log(`  requests: ${s.requests.map((r) => JSON.stringify({ filters: r.filters, ordering: r.ordering, virtual_search: r.virtual_search.value ? r.virtual_search : undefined, limit: r.limit, offset: r.offset })).join('\n            ')}`);
  printPlans(direct, compiled);

  const errors: string[] = [];
  const httpOnce = async (i: number, check: DirectResult | null): Promise<number> => {
    const k = i % bodies.length;
    const t0 = performance.now();
    const res = await client.post(ROUTE, bodies[k]!);
    const ms = since(t0);
    // Checked outside the timed part: status, and the same answer as the direct side.
    if (res.status !== 200) {
      if (errors.length < 5) errors.push(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 200)}`);
    } else if (check) {
      const got = answerOf(res.body.toString('utf8'));
      if (got.total !== check.total || got.ids !== check.ids) {
        if (errors.length < 5) errors.push(`request ${k + 1}: HTTP total ${got.total} / ${got.rows} items, limit ${check.total} / ${check.rows} rows${got.ids !== check.ids ? ', other ids' : ''}`);
      }
    }
    return ms;
  };
  const directOnce = (i: number): { ms: number; r: DirectResult } => {
    const lq = direct.query(s.requests[i % s.requests.length]!);
    const t0 = performance.now();
    const text = lq.run();
    const ms = since(t0);
    return { ms, r: answerOf(text) };
  };

  // Warm-up, also sizing the run: as many iterations as fit the budget, within [MIN, MAX].
  gc();
  const warmH: number[] = [];
  const warmD: number[] = [];
  for (let i = 0; i < Math.max(WARMUP, compiled.length); i++) {
    const d = directOnce(i);
    warmD.push(d.ms);
    warmH.push(await httpOnce(i, d.r));
  }
  const est = summarize(warmH).p50 + summarize(warmD).p50;
  const iterations = Math.max(MIN_ITER, Math.min(MAX_ITER, Math.floor(BUDGET_MS / Math.max(est, 0.001))));
  gc();

  const http: number[] = [];
  const dir: number[] = [];
  const page: number[] = [];
  const count: number[] = [];
  const totals = new Set<number>();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) {
    // Alternate which side goes first, so neither always runs on the other's warm caches.
    if (i % 2 === 0) {
      const d = directOnce(i);
      http.push(await httpOnce(i, d.r));
      record(d);
    } else {
      const h = await httpOnce(i, null);
      const d = directOnce(i);
      http.push(h);
      record(d);
    }
  }
  function record(d: { ms: number; r: DirectResult }): void {
    dir.push(d.ms);
    totals.add(d.r.total);
  }
  const wallS = since(t0) / 1000;
  // Where the limit's time goes: its page alone and its COUNT alone.
  for (let i = 0; i < Math.min(iterations, 40); i++) {
    const lq = direct.query(s.requests[i % s.requests.length]!);
    let t = performance.now();
    lq.page();
    page.push(since(t));
    t = performance.now();
    lq.count();
    count.push(since(t));
  }

  const h = summarize(http);
  const d = summarize(dir);
  const ratio = h.p50 / d.p50;
  const verdicts = [{ ok: ratio <= s.ratio, text: `HTTP p50 / limit p50 = ${fmtRatio(ratio)} (target <= ${s.ratio}x)` }];
  if (s.virtualSearch) verdicts.push({ ok: h.p50 < VS_TARGET_MS, text: `virtual_search HTTP p50 = ${fmtMs(h.p50)} ms (target < ${VS_TARGET_MS} ms)` });
  if (errors.length) verdicts.push({ ok: false, text: `answers differ or failed: ${errors.join('; ')}` });
  const res: ScenarioResult = {
    scenario: s,
    http: h,
    direct: d,
    page: summarize(page),
    count: summarize(count),
    totals: [...totals].sort((a, b) => a - b),
    ratio,
    errors,
    verdicts,
  };

  console.log(`  ${iterations} iterations per side (after ${warmH.length} warm-up), ${wallS.toFixed(1)} s; matches: ${matches(res)}`);
  const row = (name: string, x: Summary, note = '') => [name, String(x.n), fmtMs(x.p50), fmtMs(x.p90), fmtMs(x.p99), fmtMs(x.min), fmtMs(x.max), note];
  console.log(
    formatTable(
      [{ header: 'side' }, { header: 'n', align: 'right' }, { header: 'p50 ms', align: 'right' }, { header: 'p90 ms', align: 'right' }, { header: 'p99 ms', align: 'right' }, { header: 'min', align: 'right' }, { header: 'max', align: 'right' }, { header: '' }],
      [
        row('http', h, `${fmtRatio(ratio)} the limit's p50`),
        row('limit', d, 'the same SQL by hand: page, COUNT, JSON'),
        row('  page', res.page, "the limit's ids + rows alone"),
        row('  count', res.count, `the limit's COUNT alone: ${((100 * res.count.p50) / (res.page.p50 + res.count.p50)).toFixed(0)}% of page + count`),
      ],
    ),
  );
  for (const v of verdicts) console.log(v.ok ? `  ${green('PASS')}  ${v.text}` : red(`  !! FAIL  ${v.text}`));
  return res;
}

const matches = (r: ScenarioResult): string => {
  const t = r.totals;
  if (!t.length) return '-';
  return t.length === 1 ? fmtInt(t[0]!) : `${fmtInt(t[0]!)}..${fmtInt(t[t.length - 1]!)}`;
};

// ------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  heading('bench:search — incident search, HTTP vs direct better-sqlite3');
  const mem = new Database(':memory:');
  const sqliteVersion = (mem.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  mem.close();
  console.log(`  node ${process.version}, SQLite ${sqliteVersion}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`  ${fmtInt(ROWS)} incidents; up to ${MAX_ITER} iterations per side (at least ${MIN_ITER}), ${BUDGET_MS / 1000} s budget per scenario; gc between phases: ${typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'yes' : 'no (run with --expose-gc)'}`);

  heading('database');
  const prepared = prepareIncidentDb({ incidents: ROWS, assets: 5_000, findings: 500, seed: 20261003 });
  const st = prepared.stats;
  if (st) {
    const rate = (x: { rows: number; ms: number; rowsPerSec: number }) => `${fmtInt(x.rows)} rows in ${(x.ms / 1000).toFixed(1)} s = ${fmtInt(x.rowsPerSec)} rows/s`;
    console.log(`  assets:     ${rate(st.assets)}`);
    console.log(`  findings:   ${rate(st.findings)}`);
    console.log(`  incidents:  ${rate(st.incidents)} (FTS5 trigram triggers firing, transactions of 50,000)`);
    console.log(`    one row per INSERT (the API's write shape): ${rate(st.incidentsSingle)}`);
    console.log(`    ${st.rowsPerStatement} rows per INSERT:                      ${rate(st.incidentsMulti)}`);
    console.log(`  ANALYZE ${(st.analyzeMs / 1000).toFixed(1)} s, WAL checkpoint ${(st.checkpointMs / 1000).toFixed(1)} s`);
  }
  const size = dbFileSize(prepared.file);
  console.log(`  file: ${prepared.file}, ${fmtBytes(size.main)} (+ WAL ${fmtBytes(size.wal)})`);
  {
    const { db } = openDatabase(prepared.file, { readonly: true });
    try {
      const rows = db
        .prepare(
          `SELECT CASE WHEN name LIKE 'service_asset_findings_fts%' THEN 'search index (FTS5 trigram)' WHEN name = 'service_asset_findings' THEN 'incident table' WHEN name LIKE 'ix_service_asset_findings%' OR name LIKE 'sqlite_autoindex_service_asset_findings%' THEN 'incident indexes' ELSE 'other' END AS part, SUM(pgsize) AS bytes FROM dbstat GROUP BY part ORDER BY bytes DESC`,
        )
        .all() as { part: string; bytes: number }[];
      console.log(`  by part: ${rows.map((r) => `${r.part} ${fmtBytes(r.bytes)}`).join(', ')}`);
    } catch {
      // dbstat is not compiled into every SQLite build
    }
    const statuses = db.prepare(`SELECT status, COUNT(*) AS n FROM service_asset_findings GROUP BY status ORDER BY n DESC`).all() as { status: string; n: number }[];
    console.log(`  statuses: ${statuses.map((r) => `${r.status} ${((100 * r.n) / ROWS).toFixed(1)}%`).join(', ')}`);
    db.close();
  }
  console.log(`  rss ${rssMiB()}`);
  gc();

  heading('server');
  const server = await startServer({ db: prepared.file, port: 0, routingPort: 0, apiKey: API_KEY, seed: 'none' });
  const client = new KeepAliveClient(server.main, { PgrApiKey: API_KEY });
  const direct = new Direct(openDatabase(server.db, { readonly: true }).db);
  console.log(`  ${server.main}${ROUTE} (one keep-alive connection, requests in sequence); limit: a second read-only better-sqlite3 connection on the same file`);
  const results: ScenarioResult[] = [];
  try {
    const probe = await client.post(ROUTE, request({ limit: 1 }));
    if (probe.status !== 200) throw new Error(`search answered ${probe.status}: ${probe.body.toString('utf8', 0, 300)}`);
    for (const s of SCENARIOS) results.push(await runScenario(s, client, direct));
    serializerEffect(prepared.file, { ...emptySearch(), filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'created_at', direction: 'desc' }], limit: 50 });
  } finally {
    client.close();
    direct.db.close();
    await server.close();
    prepared.cleanup();
  }

  heading("summary (p50 / p99 in ms; ratio = HTTP p50 / the limit's p50: the same SQL by hand + JSON)");
  console.log(
    formatTable(
      [
        { header: 'scenario' },
        { header: 'matches', align: 'right' },
        { header: 'HTTP p50', align: 'right' },
        { header: 'HTTP p99', align: 'right' },
        { header: 'limit p50', align: 'right' },
        { header: 'limit p99', align: 'right' },
        { header: 'ratio', align: 'right' },
        { header: 'target', align: 'right' },
        { header: 'limit: COUNT', align: 'right' },
        { header: 'verdict' },
      ],
      results.map((r) => [
        r.scenario.key,
        matches(r),
        fmtMs(r.http.p50),
        fmtMs(r.http.p99),
        fmtMs(r.direct.p50),
        fmtMs(r.direct.p99),
        fmtRatio(r.ratio),
        `<= ${r.scenario.ratio}x`,
        `${fmtMs(r.count.p50)} (${((100 * r.count.p50) / (r.page.p50 + r.count.p50)).toFixed(0)}%)`,
        r.verdicts.every((v) => v.ok) ? 'PASS' : `FAIL: ${r.verdicts.filter((v) => !v.ok).map((v) => v.text.split(' = ')[0]).join('; ')}`,
      ]),
    ),
  );
  const failed = results.flatMap((r) => r.verdicts.filter((v) => !v.ok).map((v) => `(${r.scenario.key}) ${v.text}`));
  console.log('');
  if (failed.length) for (const f of failed) console.log(red(`  !! FAIL ${f}`));
  else console.log(`  ${green('all targets met')}`);
  console.log(bold(`\n  ${results.length} scenarios, ${failed.length} target(s) missed; total ${(since(started) / 1000).toFixed(0)} s, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, rss ${rssMiB()}`));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
