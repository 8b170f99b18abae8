// `node --import tsx bench/textsearch.ts`: the text search module (src-shared/textsearch) on
// 1,000,000 software records: vectors built per second (to_tsvector('simple', name || ' ' ||
// version)), the columnar store's memory, and compliance rule queries matched against every
// record, beside the same scan done by PostgreSQL 15 (`count(*) where v @@ to_tsquery(...)` over
// a table of the same tsvectors) in the same run when a local PostgreSQL is reachable. Match
// counts must agree with PostgreSQL's.
//
// Targets (the rule workbench): a query over 1,000,000 records in under 300 ms; 50 rules over
// the software of 2,000,000 asset links in under 10 s. A measurement, not a test: it exits 0
// whatever the figures, and marks misses with FAIL.
//
// Environment:
//   BENCH_ROWS=<n>   software records (default 1,000,000)
//   BENCH_ITER=<n>   measured runs per query (default 7; the median is reported)
import os from 'node:os';
import pg from 'pg';
import { compileTsQuery, softwareText, softwareVector, toTsQueryOrThrow, TsVectorStore } from '../src-shared/textsearch';
import { PRODUCTS, VENDORS } from './compliance-data';
import { bold, fmtInt, fmtMs, fmtRatio, formatTable, gc, green, heading, red, Rng, rssMiB, since, summarize } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ITER = Math.max(3, Number(process.env.BENCH_ITER ?? 7));
const QUERY_TARGET_MS = 300;
const CHECK_TARGET_MS = 10_000;

const EDITIONS = ['', '', '', ' (x64)', ' (x86)', ' 2019', ' 2016', ' - ru-ru', ' (64-bit)', ' Update 14'];

function record(rng: Rng): { name: string; version: string } {
  const product = rng.pick(PRODUCTS);
  const name = /^[a-z]/.test(product) ? product : `${rng.pick(VENDORS)} ${product}${rng.pick(EDITIONS)}`;
  const version = rng.chance(0.1) ? '' : `${rng.int(1, 30)}.${rng.int(0, 20)}.${rng.int(0, 9999)}${rng.chance(0.3) ? `-${rng.int(1, 9)}+deb12u${rng.int(1, 5)}` : ''}`;
  return { name, version };
}

const QUERIES = [
  'teamviewer | anydesk',
  '(adobe & photoshop) | (gnu & gimp)',
  'openssh-server',
  'microsoft & office & !2016',
  'kaspersky:* & endpoint',
  'java <-> runtime',
  "'visual c++' & 2015:*",
  '!microsoft',
  'криптопро & csp',
  'chrome | firefox | браузер',
];

async function postgres(): Promise<pg.Client | null> {
  for (const database of process.env.PGDATABASE ? [process.env.PGDATABASE] : ['textsearch', 'postgres']) {
    const c = new pg.Client({ host: process.env.PGHOST ?? '/var/run/postgresql', user: process.env.PGUSER ?? os.userInfo().username, database });
    c.on('error', () => {});
    try {
      await c.connect();
      return c;
    } catch {}
  }
  return null;
}

async function main(): Promise<void> {
  heading(`text search: ${fmtInt(ROWS)} software records, ${QUERIES.length} rule queries`);
  const rng = new Rng(24);
  const records = Array.from({ length: ROWS }, () => record(rng));

  gc();
  let t0 = performance.now();
  const store = new TsVectorStore();
  for (const r of records) store.add(softwareVector(r));
  const buildMs = since(t0);
  gc();
  console.log(`  vectors: ${fmtInt(ROWS)} built and stored in ${fmtMs(buildMs)} (${fmtInt(ROWS / (buildMs / 1000))}/s), ${fmtInt(store.lexicon.size)} distinct lexemes, rss ${rssMiB()}`);

  const db = await postgres();
  if (db) {
    t0 = performance.now();
    await db.query('create temp table sw (v tsvector)');
    const texts = records.map((r) => softwareText(r.name, r.version));
    for (let i = 0; i < texts.length; i += 20_000) {
      await db.query(`insert into sw select to_tsvector('simple', t) from unnest($1::text[]) t`, [texts.slice(i, i + 20_000)]);
    }
    await db.query('analyze sw');
    console.log(`  PostgreSQL: the same ${fmtInt(ROWS)} vectors loaded in ${fmtMs(since(t0))}`);
  } else console.log('  PostgreSQL: not reachable, no baseline');

  const rows: string[][] = [];
  let misses = 0;
  for (const q of QUERIES) {
    const compiled = compileTsQuery(toTsQueryOrThrow(q));
    const bound = compiled.bind(store);
    let count = 0;
    const ours: number[] = [];
    for (let i = 0; i < ITER + 1; i++) {
      t0 = performance.now();
      count = bound.matching().length;
      if (i) ours.push(since(t0));
    }
    let pgMs = NaN;
    let pgCount = NaN;
    if (db) {
      const theirs: number[] = [];
      for (let i = 0; i < Math.min(ITER, 3) + 1; i++) {
        t0 = performance.now();
        const r = await db.query(`select count(*)::int n from sw where v @@ to_tsquery('simple', $1)`, [q]);
        if (i) theirs.push(since(t0));
        pgCount = r.rows[0].n;
      }
      pgMs = summarize(theirs).p50;
    }
    const p50 = summarize(ours).p50;
    const ok = p50 < QUERY_TARGET_MS && (!db || pgCount === count);
    if (!ok) misses++;
    rows.push([
      q,
      fmtInt(count),
      db ? (pgCount === count ? 'equal' : red(`PostgreSQL ${fmtInt(pgCount)}`)) : '-',
      fmtMs(p50),
      `${fmtInt(ROWS / (p50 / 1000))}/s`,
      db ? fmtMs(pgMs) : '-',
      db ? fmtRatio(p50 / pgMs) : '-',
      ok ? green('ok') : red('FAIL'),
    ]);
  }
  console.log(
    formatTable(
      [
        { header: 'query' },
        { header: 'matches', align: 'right' },
        { header: 'vs PostgreSQL' },
        { header: 'ours p50', align: 'right' },
        { header: 'records/s', align: 'right' },
        { header: 'PostgreSQL', align: 'right' },
        { header: 'ratio', align: 'right' },
        { header: `< ${QUERY_TARGET_MS} ms` },
      ],
      rows,
    ),
  );

  // 50 rules over the distinct software of the links: every rule against every record once.
  const rules = Array.from({ length: 50 }, (_, i) => compileTsQuery(toTsQueryOrThrow(QUERIES[i % QUERIES.length]!)).bind(store));
  t0 = performance.now();
  let verdicts = 0;
  for (const rule of rules) verdicts += rule.matching().length;
  const checkMs = since(t0);
  const checkOk = checkMs < CHECK_TARGET_MS;
  if (!checkOk) misses++;
  console.log(
    `  50 rules x ${fmtInt(ROWS)} records: ${fmtMs(checkMs)} (${fmtInt((50 * ROWS) / (checkMs / 1000))} evaluations/s, ${fmtInt(verdicts)} matches) ${checkOk ? green('ok') : red('FAIL')} (< ${CHECK_TARGET_MS / 1000} s)`,
  );
  console.log(bold(misses ? red(`${misses} target(s) missed`) : green('all targets met')));
  await db?.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
