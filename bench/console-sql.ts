// Where a console request's time goes in the database: a request the console made (its method,
// URL and body, as bench:console captured it) compiled the way the server compiles it and run
// statement by statement on a connection of its own with nothing kept from earlier requests (no
// kept totals, anchors or aggregates): the full-text matches materialised, the page's ids, the
// total (kept per-day counts or a COUNT), the aggregates behind the chips and charts, a grouping;
// each statement's time and its query plan. `BENCH_EXPLAIN=1 npm run bench:console` prints it
// for every request of the views over the target.
import { fieldOf, getResource } from '../src-shared/resources/index';
import { publicEntity, publicResource } from '../src-shared/public/entities';
import { parseStandardQuery } from '../src-shared/public/standard-filters';
import { riskBandSql } from '../src-shared/resources/fields';
import { groupRequestSchema, searchRequestSchema, type SearchFilter } from '../src-shared/schemas/search';
import { compileStandardQuery } from '../src-main/store/query/standard';
import { openDatabase } from '../src-main/store/db';
import { countOf } from '../src-main/store/query/days';
import { compileSearchPlan, countSqlOf, fillSlots, idsSqlOf, type Plan } from '../src-main/store/query/plan';
import { incidentStats } from '../src-main/store/query/stats';
import { columnExpr, whereClause, whereSql } from '../src-main/store/search';
import { q } from '../src-main/store/sql';
import { Store } from '../src-main/store/store';
import { explainPlan, fmtInt, fmtMs, since } from './lib';

export interface CapturedRequest {
  method: string;
  url: string;
  body: string | null;
}

/** One statement: what it does, its time, rows, and query plan. */
interface Step {
  what: string;
  ms: number;
  rows?: number;
  plan?: string;
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, ms: since(t0) };
}

/** Materialises a plan's full-text matches on `store` (as FtsHits does) and answers the filler. */
function materialised(store: Store, plan: Plan, steps: Step[]): { fill: (sql: string) => string; cleanup: () => void } {
  const slots: string[] = [];
  plan.fts.forEach((s, i) => {
    const name = `bench_hits_${i}`;
    store.db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${name} (rid INTEGER PRIMARY KEY)`);
    store.db.exec(`DELETE FROM temp.${name}`);
    const t = timed(() => store.db.prepare(`INSERT INTO temp.${name} (rid) SELECT rowid FROM ${q(s.table)} WHERE ${q(s.table)} MATCH ?`).run(s.match).changes);
    steps.push({ what: `full-text match ${JSON.stringify(s.match)} materialised`, ms: t.ms, rows: t.value });
    slots.push(`${t.value > 3000 ? '+' : ''}t._rid IN temp.${name}`);
  });
  return {
    fill: (sql) => fillSlots(sql, (i) => slots[i]!),
    cleanup: () => plan.fts.forEach((_s, i) => store.db.exec(`DELETE FROM temp.bench_hits_${i}`)),
  };
}

function searchSteps(store: Store, resource: string, body: unknown): Step[] {
  const r = getResource(resource);
  const plan = compileSearchPlan(r, searchRequestSchema.parse(body));
  const steps: Step[] = [];
  const { fill, cleanup } = materialised(store, plan, steps);
  try {
    const ids = idsSqlOf(r, plan);
    const idsSql = fill(ids.sql);
    const page = timed(() => store.db.prepare(idsSql).all(...(ids.params as unknown[])).length);
    steps.push({ what: `page ids (limit ${plan.limit}, offset ${plan.offset})`, ms: page.ms, rows: page.value, plan: explainPlan(store.db, idsSql, ids.params as unknown[], '          ') });
    // As the server takes it (query/run.ts): the match's own count, a page that proves it, kept counts, or a COUNT.
    if (plan.fts.length === 1 && !plan.cte && plan.where.sql === '{{fts:0}}') {
      steps.push({ what: 'total: the full-text match\'s own count (above)', ms: 0 });
    } else if ((page.value > 0 && (plan.limit < 0 || page.value < plan.limit)) || (page.value === 0 && plan.offset === 0)) {
      steps.push({ what: 'total: proven by the page', ms: 0, rows: plan.offset + page.value });
    } else if (plan.tally) {
      const c = timed(() => countOf(store, plan.tally!));
      steps.push({ what: 'total from the kept per-day counts and the edge days', ms: c.ms, rows: c.value });
    } else {
      const count = countSqlOf(r, plan);
      const countSql = fill(count.sql);
      const c = timed(() => (store.db.prepare(countSql).get(...(count.params as unknown[])) as { n: number }).n);
      steps.push({ what: 'COUNT of the matches (when the page does not prove the total)', ms: c.ms, rows: c.value, plan: explainPlan(store.db, countSql, count.params as unknown[], '          ') });
    }
  } finally {
    cleanup();
  }
  return steps;
}

function statsSteps(store: Store, url: URL): Step[] {
  const entity = publicEntity('incidents')!;
  const r = publicResource(entity);
  const params: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const had = params[k];
    params[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  const { bucket = 'day', ...rest } = params as Record<string, string>;
  const query = parseStandardQuery(rest);
  const plan = compileStandardQuery(r, query);
  const steps: Step[] = [];
  if (plan.tally) {
    const t = timed(() => incidentStats(store, plan, bucket as 'day', null));
    steps.push({ what: `aggregates of a creation-time range from the kept per-day counts (${t.value.over_time.length} cells)`, ms: t.ms, rows: t.value.total });
    return steps;
  }
  const { fill, cleanup } = materialised(store, plan, steps);
  try {
    const sql = fill(`${plan.cte}SELECT substr(t.created_at, 1, 10) AS day, t.status AS status, ${riskBandSql('t.risklevel')} AS risk, COUNT(*) AS n FROM service_asset_findings t WHERE ${plan.where.sql} GROUP BY 1, 2, 3`);
    const t = timed(() => store.db.prepare(sql).all(...(plan.where.params as unknown[])).length);
    steps.push({ what: 'aggregates: the matches grouped by day, status and risk band', ms: t.ms, rows: t.value, plan: explainPlan(store.db, sql, plan.where.params as unknown[], '          ') });
  } finally {
    cleanup();
  }
  return steps;
}

function groupSteps(store: Store, resource: string, body: unknown): Step[] {
  const r = getResource(resource);
  const req = groupRequestSchema.parse(body);
  const f = fieldOf(r, req.group_field ?? '')!;
  const where = whereSql(r, (req.filters ?? []) as SearchFilter[]);
  const sql = `SELECT ${columnExpr(r, f)} AS value, COUNT(*) AS count FROM ${q(r.table)} t ${whereClause(where)} GROUP BY 1 ORDER BY count DESC, value ASC`;
  const t = timed(() => store.db.prepare(sql).all(...(where.params as unknown[])).length);
  return [{ what: `group by ${f.name} (on the server's thread)`, ms: t.ms, rows: t.value, plan: explainPlan(store.db, sql, where.params as unknown[], '          ') }];
}

/** The database steps of one captured request, as lines; [] when it is not a read this explains. */
export function explainRequest(file: string, req: CapturedRequest): string[] {
  const url = new URL(req.url, 'http://local');
  const search = /^\/cruddy\/v2\/([^/]+)\/search$/.exec(url.pathname);
  const group = /^\/cruddy\/v2\/([^/]+)\/group$/.exec(url.pathname);
  const isStats = url.pathname === '/console/v1/stats/incidents';
  if (!search && !group && !isStats) return [];
  const { db } = openDatabase(file, { create: false });
  try {
    const store = new Store(db);
    const body = req.body ? (JSON.parse(req.body) as unknown) : {};
    const steps = search ? searchSteps(store, search[1]!, body) : group ? groupSteps(store, group[1]!, body) : statsSteps(store, url);
    const lines: string[] = [];
    for (const s of steps) {
      lines.push(`        ${fmtMs(s.ms).padStart(6)} ms  ${s.what}${s.rows !== undefined ? `: ${fmtInt(s.rows)}` : ''}`);
      if (s.plan) lines.push(s.plan);
    }
    return lines;
  } finally {
    db.close();
  }
}

// ------------------------------------------------------------------------------------------
// The API's own cost of each view, without a browser: `node --import tsx bench/console-sql.ts`
// (BENCH_DB, BENCH_VIEWS a pattern of view names). For each view of the matrix, on a store of its
// own (nothing kept from another view), the v2 search as bench:console asks it (a page of 1 and
// its total) and the console's aggregates of the same conditions, each timed as the runner
// answers it; with BENCH_EXPLAIN=1 the statements behind the slow ones.

/** A v2 filter of the matrix in the public API's standard grammar (the aggregates' query). */
function standardOf(f: SearchFilter): Record<string, string> {
  const v = f.value as unknown;
  if (f.filter_type === 'equal') return { [f.field]: `eq,${String(v)}` };
  if (f.filter_type === 'intersection') return { [f.field]: `in,${(v as unknown[]).join(',')}` };
  if (f.filter_type === 'exists') return { [f.field]: 'isnull' };
  if (f.filter_type === 'range') {
    const [from, to] = v as [string | null, string | null];
    if (from && !to) return { [f.field]: `gt,${from}` };
    if (from && to) return { [f.field]: [`gt,${from}`, `lt,${to}`] as unknown as string };
    if (to && !from) return { [f.field]: `lt,${to}` };
  }
  throw new Error(`no standard form for ${JSON.stringify(f)}`);
}

async function apiMain(): Promise<void> {
  const { views, viewOrder } = await import('./console-views');
  const { Runner } = await import('../src-main/store/query/runner');
  const { emptySearch } = await import('../src-shared/schemas/search');
  const file = process.env.BENCH_DB ?? 'bench/.data/bench.sqlite';
  const pattern = new RegExp(process.env.BENCH_VIEWS ?? '.', 'i');
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const { db } = openDatabase(file, { create: false });
  const one = (sql: string, p: unknown[]) => (db.prepare(sql).get(...p) as { id: string }).id;
  const fx = {
    asset: { id: one('SELECT id FROM service_assets WHERE name = ?', ['web-msk-001']), name: 'web-msk-001' },
    finding: { id: one('SELECT id FROM findings WHERE title = ?', ['OpenSSH Remote code execution']), title: 'OpenSSH Remote code execution' },
    person: (await import('./console-views')).PERSON,
    group: (await import('./console-views')).GROUP,
  };
  const incidents = getResource('service_asset_findings');
  const entity = publicEntity('incidents')!;
  const pub = publicResource(entity);
  const rows: string[][] = [];
  for (const v of views(fx).filter((x) => pattern.test(x.name) && !x.groupBy && !x.ordering)) {
    // As the view asks it: in its order (the console's default, the newest first).
    const body = { ...emptySearch(1), include_fields: ['id'], filters: v.filters, virtual_search: { value: v.text, strict: false }, ordering: viewOrder(v) };
    const search = [] as number[];
    const stats = [] as number[];
    let total = 0;
    let kept = '';
    for (let i = 0; i < runs; i++) {
      const store = new Store(db);
      const runner = new Runner(store);
      const plan = compileSearchPlan(incidents, searchRequestSchema.parse(body));
      kept = plan.tally ? 'kept' : plan.fts.length ? 'text' : 'counted';
      const t = timed(() => runner.page(plan));
      search.push(t.ms);
      total = t.value.total;
      const params: Record<string, string> = {};
      for (const f of v.filters) Object.assign(params, standardOf(f));
      const sq = parseStandardQuery({ ...params, ...(v.text ? { search: v.text } : {}) });
      const sp = compileStandardQuery(pub, sq);
      const s = timed(() => runner.stats(sp, 'auto', null));
      stats.push(s.ms);
      if (s.value.total !== total) throw new Error(`${v.name}: aggregates total ${s.value.total} vs search total ${total}`);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    rows.push([v.name, fmtInt(total), kept, fmtMs(med(search)), fmtMs(med(stats))]);
    console.log(`  ${v.name.padEnd(52)} ${fmtInt(total).padStart(9)}  ${kept.padEnd(8)} search ${fmtMs(med(search)).padStart(7)} ms  aggregates ${fmtMs(med(stats)).padStart(7)} ms  (${search.map(fmtMs).join(', ')} / ${stats.map(fmtMs).join(', ')})`);
    if (process.env.BENCH_EXPLAIN === '1' && med(search) + med(stats) > 50) {
      const store = new Store(db);
      for (const s of searchSteps(store, 'service_asset_findings', body)) {
        console.log(`        ${fmtMs(s.ms).padStart(6)} ms  ${s.what}${s.rows !== undefined ? `: ${fmtInt(s.rows)}` : ''}`);
        if (s.plan) console.log(s.plan);
      }
    }
  }
  db.close();
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  apiMain().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
