// The store's reads behind the console's slowest views, each against the hand-written SQL that
// answers the same question, in the same run: the totals, aggregates and groupings of the owner
// and group views (kept counts), the pages of an owner's, a group's and the title-sorted views
// (indexes), the groupings by finding type and asset (kept counts), and the aggregates of a text search (matches looked up by row id). Each store read
// runs on a fresh connection (nothing kept from an earlier run) and its answer is checked against
// the hand-written SQL's. The pages are measured before and after the indexes of migration 11
// on a copy of the database (dropped, then made again), with their query plans.
//
//   BENCH_DB=<file> npm run bench:store      (the incident data set: built when missing)
//   BENCH_ROWS=<n>   incidents (default 1,000,000)   BENCH_RUNS=<n> runs per read (default 5)
import fs from 'node:fs';
import path from 'node:path';
import { getResource } from '../src-shared/resources/index';
import { riskBandSql } from '../src-shared/resources/fields';
import { LOCAL_USER_ID } from '../src-shared/ids';
import { emptySearch, type SearchFilter, type SearchRequest } from '../src-shared/schemas/search';
import { parseStandardQuery } from '../src-shared/public/standard-filters';
import { publicEntity, publicResource } from '../src-shared/public/entities';
import { openDatabase, type Db } from '../src-main/store/db';
import { registryIndexDdl } from '../src-main/store/ddl';
import { compileSearchPlan, fillSlots, idsSqlOf } from '../src-main/store/query/plan';
import { Runner } from '../src-main/store/query/runner';
import { compileStandardQuery } from '../src-main/store/query/standard';
import { createdRange } from '../src-main/store/query/stats';
import { Store } from '../src-main/store/store';
import { DATASET_GROUPS, DATASET_PEOPLE, explainPlan, fmtMs, fmtRatio, formatTable, heading, makeTempDir, prepareIncidentDb, summarize } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const I = getResource('service_asset_findings');
const T = I.table;
const NEW_INDEXES = ['ix_service_asset_findings_user_id_created_at', 'ix_service_asset_findings_group_id_created_at', 'ix_service_asset_findings_title'];

/** The median time of `fn` over RUNS runs; `fresh` makes its argument before each run, untimed. */
function median<A>(fn: (a: A) => unknown, fresh: () => A = () => undefined as A): { ms: number; value: unknown } {
  const ms: number[] = [];
  let value: unknown;
  for (let i = 0; i < RUNS; i++) {
    const a = fresh();
    const t0 = performance.now();
    value = fn(a);
    ms.push(performance.now() - t0);
  }
  return { ms: summarize(ms).p50, value };
}

const rows: string[][] = [];
const problems: string[] = [];

/** A store read (fresh connection each run) against hand-written SQL; their answers must agree. */
function compare(db: Db, what: string, store: (s: Store) => unknown, hand: (db: Db) => unknown, same: (a: unknown, b: unknown) => boolean = (a, b) => JSON.stringify(a) === JSON.stringify(b)) {
  const s = median(store, () => new Store(db));
  const h = median(() => hand(db));
  const ok = same(s.value, h.value);
  if (!ok) problems.push(`${what}: store ${JSON.stringify(s.value).slice(0, 200)} vs SQL ${JSON.stringify(h.value).slice(0, 200)}`);
  rows.push([what, fmtMs(s.ms), fmtMs(h.ms), fmtRatio(s.ms / h.ms), ok ? 'equal' : 'DIFFERENT']);
}

const search = (filters: SearchFilter[], over: Partial<SearchRequest> = {}): SearchRequest => ({ ...emptySearch(100, 0), filters, ...over });
const count1 = (db: Db, sql: string, params: unknown[] = []) => (db.prepare(sql).get(...params) as { n: number }).n;
const totalOf = (s: Store, req: SearchRequest) => new Runner(s).page(compileSearchPlan(I, { ...req, limit: 1, offset: 0 })).total;

/** Counts per status and band of a condition, as the aggregates' sums. */
function handAggregates(db: Db, where: string, params: unknown[]) {
  const rs = db.prepare(`SELECT t.status AS s, ${riskBandSql('t.risklevel')} AS r, COUNT(*) AS n FROM ${T} t WHERE ${where} GROUP BY 1, 2`).all(...params) as { s: string; r: string; n: number }[];
  return byStatus(rs.map((x) => ({ status: x.s, count: x.n })));
}
function byStatus(list: { status: string; count: number }[]) {
  const m = new Map<string, number>();
  for (const x of list) m.set(x.status, (m.get(x.status) ?? 0) + x.count);
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}
function storeAggregates(s: Store, qs: string) {
  const query = parseStandardQuery(Object.fromEntries(new URLSearchParams(qs)));
  const plan = compileStandardQuery(publicResource(publicEntity('incidents')!), query);
  return byStatus(new Runner(s).stats(plan, 'auto', createdRange(query)).by_status);
}
const groups = (list: { value: unknown; count: number }[]) => [...list].map((x) => [x.value ?? null, x.count] as const).sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));

/** Incidents inserted per second into a fresh database with and without what migrations 11 and 12 add (interleaved runs, medians). */
function writeCost(source: string, dir: string): string {
  const N = Math.min(20_000, ROWS);
  const src = openDatabase(source, { create: false, readonly: true }).db;
  const cols = (src.prepare(`PRAGMA table_info(${T})`).all() as { name: string }[]).map((c) => c.name);
  const data = src.prepare(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM ${T} ORDER BY _rid LIMIT ?`).raw().all(N) as unknown[][];
  src.close();
  const rates: Record<'without' | 'with', number[]> = { without: [], with: [] };
  for (let run = 0; run < Math.max(3, Math.min(RUNS, 5)); run++) {
    for (const variant of ['without', 'with'] as const) {
      const file = path.join(dir, `write-${variant}-${run}.sqlite`);
      const { db } = openDatabase(file);
      db.pragma('foreign_keys = OFF');
      if (variant === 'without') {
        for (const name of ['finding', 'asset']) for (const w of ['ai', 'ad', 'au']) db.exec(`DROP TRIGGER ${T}_${name}_${w}`);
        db.exec('DROP TABLE incident_finding_counts');
        db.exec('DROP TABLE incident_asset_counts');
        for (const name of NEW_INDEXES) db.exec(`DROP INDEX ${name}`);
      }
      const insert = db.prepare(`INSERT INTO ${T} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      const t0 = performance.now();
      db.transaction(() => {
        for (const row of data) insert.run(...row);
      })();
      rates[variant].push(N / ((performance.now() - t0) / 1000));
      db.close();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    }
  }
  const without = summarize(rates.without).p50;
  const withAll = summarize(rates.with).p50;
  return formatTable(
    [{ header: `insert of ${N.toLocaleString('en-US')} incidents, one transaction` }, { header: 'rows/s', align: 'right' }, { header: 'ratio', align: 'right' }],
    [
      ['without the owner, group and title indexes and the finding and asset counts', Math.round(without).toLocaleString('en-US'), '1.00x'],
      ['with them (this build)', Math.round(withAll).toLocaleString('en-US'), fmtRatio(withAll / without)],
    ],
  );
}

function main() {
  heading(`store reads at ${ROWS.toLocaleString('en-US')} incidents (median of ${RUNS}; store on a fresh connection each run)`);
  const prepared = prepareIncidentDb({ incidents: ROWS, assets: 5_000, findings: 500, seed: 20261003 });
  const dir = makeTempDir('radar-store-reads-');
  const file = path.join(dir, 'copy.sqlite');
  try {
    // A copy, so that dropping and making indexes leaves the shared database alone.
    const src = openDatabase(prepared.file, { create: false }).db;
    src.pragma('wal_checkpoint(TRUNCATE)');
    src.close();
    fs.copyFileSync(prepared.file, file);
    const { db } = openDatabase(file, { create: false });
    const me = LOCAL_USER_ID;
    const person = DATASET_PEOPLE[1]!.id;
    const group = DATASET_GROUPS[0]!.id;

    // Kept counts: totals, aggregates and groupings of the owner and group views.
    compare(db, 'page of 1 + total: owner none', (s) => totalOf(s, search([{ field: 'user_id', filter_type: 'exists', value: null }])), (d) => count1(d, `SELECT COUNT(*) AS n FROM ${T} WHERE user_id IS NULL`));
    compare(db, 'page of 1 + total: owner me + status new', (s) => totalOf(s, search([{ field: 'user_id', filter_type: 'equal', value: me }, { field: 'status', filter_type: 'equal', value: 'new' }])), (d) => count1(d, `SELECT COUNT(*) AS n FROM ${T} WHERE user_id = ? AND status = 'new'`, [me]));
    compare(db, 'page of 1 + total: a group + critical', (s) => totalOf(s, search([{ field: 'group_id', filter_type: 'equal', value: group }, { field: 'risklevel', filter_type: 'range', value: [9, null] }])), (d) => count1(d, `SELECT COUNT(*) AS n FROM ${T} WHERE group_id = ? AND risklevel >= 9`, [group]));
    compare(db, 'page of 1 + total: no condition', (s) => totalOf(s, search([])), (d) => count1(d, `SELECT COUNT(*) AS n FROM ${T}`));
    compare(db, 'page of 1 + total: status new + assigned', (s) => totalOf(s, search([{ field: 'status', filter_type: 'intersection', value: ['new', 'assigned'] }])), (d) => count1(d, `SELECT COUNT(*) AS n FROM ${T} WHERE status IN ('new', 'assigned')`));
    compare(db, 'aggregates: owner none', (s) => storeAggregates(s, 'user_id=isnull'), (d) => handAggregates(d, 'user_id IS NULL', []));
    compare(db, 'aggregates: owner a person', (s) => storeAggregates(s, `user_id=eq,${person}`), (d) => handAggregates(d, 'user_id = ?', [person]));
    compare(db, 'aggregates: a group', (s) => storeAggregates(s, `group_id=eq,${group}`), (d) => handAggregates(d, 'group_id = ?', [group]));
    for (const field of ['user_id', 'group_id', 'status', 'finding_id', 'service_asset_id']) {
      compare(db, `group by ${field}`, (s) => groups(new Runner(s).group(I, field, []).items), (d) => groups(d.prepare(`SELECT ${field} AS value, COUNT(*) AS count FROM ${T} GROUP BY 1`).all() as { value: unknown; count: number }[]));
    }
    compare(db, 'group by finding_id, status new', (s) => groups(new Runner(s).group(I, 'finding_id', [{ field: 'status', filter_type: 'equal', value: 'new' }]).items), (d) => groups(d.prepare(`SELECT finding_id AS value, COUNT(*) AS count FROM ${T} WHERE status = 'new' GROUP BY 1`).all() as { value: unknown; count: number }[]));
    compare(db, 'group by service_asset_id, critical', (s) => groups(new Runner(s).group(I, 'service_asset_id', [{ field: 'risklevel', filter_type: 'range', value: [9, null] }]).items), (d) => groups(d.prepare(`SELECT service_asset_id AS value, COUNT(*) AS count FROM ${T} WHERE risklevel >= 9 GROUP BY 1`).all() as { value: unknown; count: number }[]));
    compare(db, 'group by user_id, status new', (s) => groups(new Runner(s).group(I, 'user_id', [{ field: 'status', filter_type: 'equal', value: 'new' }]).items), (d) => groups(d.prepare(`SELECT user_id AS value, COUNT(*) AS count FROM ${T} WHERE status = 'new' GROUP BY 1`).all() as { value: unknown; count: number }[]));

    // Text: the aggregates of a match, by row id (the store) vs probing it from an index (the page's rule).
    for (const word of ['maintenance', 'nginx', 'пароль']) {
      const qs = `search=${encodeURIComponent(word)}`;
      compare(db, `aggregates: text "${word}" (vs probing the match)`, (s) => storeAggregates(s, qs), (d) => {
        const plan = compileStandardQuery(publicResource(publicEntity('incidents')!), parseStandardQuery({ search: word }));
        d.exec('CREATE TEMP TABLE IF NOT EXISTS bench_hits (rid INTEGER PRIMARY KEY)');
        d.exec('DELETE FROM temp.bench_hits');
        d.prepare(`INSERT INTO temp.bench_hits (rid) SELECT rowid FROM ${plan.fts[0]!.table} WHERE ${plan.fts[0]!.table} MATCH ?`).run(plan.fts[0]!.match);
        const where = fillSlots(plan.where.sql, () => '+t._rid IN temp.bench_hits');
        return handAggregates(d, where, plan.where.params);
      });
    }

    // Pages in time order / by title, before and after migration 11's indexes.
    const pages: { what: string; req: SearchRequest }[] = [
      { what: 'page: owner me + status new', req: search([{ field: 'user_id', filter_type: 'equal', value: me }, { field: 'status', filter_type: 'equal', value: 'new' }], { ordering: [{ field: 'created_at', direction: 'desc' }] }) },
      { what: 'page: owner a person + critical', req: search([{ field: 'user_id', filter_type: 'equal', value: person }, { field: 'risklevel', filter_type: 'range', value: [9, null] }], { ordering: [{ field: 'created_at', direction: 'desc' }] }) },
      { what: 'page: a group + status new', req: search([{ field: 'group_id', filter_type: 'equal', value: group }, { field: 'status', filter_type: 'equal', value: 'new' }], { ordering: [{ field: 'created_at', direction: 'desc' }] }) },
      { what: 'page: owner none, row order (API default)', req: search([{ field: 'user_id', filter_type: 'exists', value: null }]) },
      { what: 'page: owner me, row order (API default)', req: search([{ field: 'user_id', filter_type: 'equal', value: me }]) },
      { what: 'page: sorted by title', req: search([], { ordering: [{ field: 'title', direction: 'asc' }] }) },
      { what: 'page: sorted by title desc, status new', req: search([{ field: 'status', filter_type: 'equal', value: 'new' }], { ordering: [{ field: 'title', direction: 'desc' }] }) },
    ];
    const plans: string[] = [];
    const pageRows: string[][] = [];
    const pageMs = (req: SearchRequest) => {
      const plan = compileSearchPlan(I, req);
      const ids = idsSqlOf(I, plan);
      return { ms: median(() => db.prepare(ids.sql).all(...ids.params)).ms, explain: explainPlan(db, ids.sql, ids.params) };
    };
    for (const name of NEW_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    const without = pages.map((p) => pageMs(p.req));
    for (const sql of registryIndexDdl()) db.exec(sql);
    for (const name of NEW_INDEXES) db.exec(`ANALYZE ${name}`);
    const withIdx = pages.map((p) => pageMs(p.req));
    pages.forEach((p, i) => {
      pageRows.push([p.what, fmtMs(without[i]!.ms), fmtMs(withIdx[i]!.ms), fmtRatio(withIdx[i]!.ms / without[i]!.ms)]);
      plans.push(`${p.what}\n  without:\n${without[i]!.explain}\n  with:\n${withIdx[i]!.explain}`);
    });
    db.close();

    console.log(formatTable([{ header: 'read' }, { header: 'store', align: 'right' }, { header: 'hand SQL', align: 'right' }, { header: 'ratio', align: 'right' }, { header: 'answer' }], rows));
    console.log('');
    console.log(formatTable([{ header: 'page of 100 (ids)' }, { header: 'without', align: 'right' }, { header: 'with indexes', align: 'right' }, { header: 'ratio', align: 'right' }], pageRows));
    console.log(`\n${plans.join('\n')}`);
    console.log('');
    console.log(writeCost(prepared.file, dir));
    if (problems.length) {
      console.log(`\nanswers that differ:\n  ${problems.join('\n  ')}`);
      process.exitCode = 1;
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    prepared.cleanup();
  }
}

main();
