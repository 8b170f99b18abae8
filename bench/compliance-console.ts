// `npm run bench:compliance-console`: the rule workbench's match as you type, in Chromium, over
// 1,000,000 software records (bench/compliance-data.ts, the data set bench:compliance matches):
// the built server (`serve`, as users start it) and the console at 1440x900. For each query the
// editor first holds a refused query (no count on screen), then the query is typed; the time is
// from that input to the count of matches (equal to the API's) and its page of rows on screen.
// That time includes the console's typing pause (it asks once typing stops); the figure beside
// it is the time after the pause, what the issue's 300 ms target is about (the query itself is
// read in the console at each keystroke; the server is asked for the matches). Beside them, in
// the same run: the same match call made by a script over HTTP, and the server's own took_ms. Each run uses a new query (the query or'ed with a word nothing has), so no kept answer
// is reused. The first query also pays the software index's cold build, reported apart.
//
// A measurement, not a test: it exits 0 and marks misses with FAIL. Needs `npm run build`.
//
// Environment:
//   BENCH_MATCH_ROWS=<n>       software records (default 1,000,000)
//   BENCH_ITER=<n>             measured runs per query (default 5; the median is reported)
//   BENCH_COMPLIANCE_DB=<file> keep the database there and reuse it
//   CHROMIUM_PATH=<file>       the browser (default Debian's headless shell, else chromium)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { openDatabase } from '../src-main/store/db';
import { writeComplianceData } from './compliance-data';
import { bold, fmtInt, fmtMs, fmtRatio, formatTable, green, heading, makeTempDir, red, removeDbFiles, since, summarize } from './lib';

const ROOT = path.resolve(__dirname, '..');
const ROWS = Number(process.env.BENCH_MATCH_ROWS ?? 1_000_000);
const ITER = Math.max(3, Number(process.env.BENCH_ITER ?? 5));
const TARGET_MS = 300;
/** The console's pause after the last keystroke before it asks (views/compliance/RuleWorkbench.tsx). */
const TYPING_MS = 120;
const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const CHROMIUM = process.env.CHROMIUM_PATH ?? (fs.existsSync(SHELL) ? SHELL : '/usr/bin/chromium');
const QUERIES = ['teamviewer | anydesk', "openssh-server & !'7.9':*", 'microsoft & office & !2016', 'kaspersky:* & endpoint', 'java <-> runtime', '!microsoft', 'криптопро & csp', 'chrome | firefox | браузер'];

/**
 * In the page: the editor set to a refused query (no count on screen), then to `query`; the ms from
 * that input to the count `text` and `rows` rows on screen. Kept as text: the bench runs under tsx,
 * whose transform adds helpers the page does not have.
 */
const IN_PAGE = `async ({ query, text, rows }) => {
  const el = document.querySelector('#cw-query');
  const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
  const type = (v) => { setValue.call(el, v); el.dispatchEvent(new Event('input', { bubbles: true })); };
  const until = (ok) => new Promise((resolve, reject) => {
    const t = performance.now();
    const look = () => (ok() ? resolve() : performance.now() - t > 60000 ? reject(new Error('not on screen: ' + query)) : requestAnimationFrame(look));
    look();
  });
  type('bench refused');
  await until(() => !!document.querySelector('.cw-refused') && !document.querySelector('[data-testid="match-count"]'));
  const t0 = performance.now();
  type(query);
  await until(() => {
    const c = document.querySelector('[data-testid="match-count"]');
    return !!c && c.textContent.includes(text) && document.querySelectorAll('.cw-matches tbody tr').length === rows;
  });
  return performance.now() - t0;
}`;

const median = (xs: number[]) => summarize(xs).p50;
const mark = (ok: boolean) => (ok ? green('PASS') : red('FAIL'));

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('no build: run `npm run build` first');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (set CHROMIUM_PATH)`);
  const dir = makeTempDir('radar-bench-compliance-console-');
  const file = process.env.BENCH_COMPLIANCE_DB ?? path.join(dir, 'match.sqlite');
  heading(`the workbench's match as you type in Chromium: ${fmtInt(ROWS)} software records`);
  if (!fs.existsSync(file)) {
    const t0 = performance.now();
    const { db } = openDatabase(file, { create: true });
    writeComplianceData(db, { seed: 1000, software: ROWS, assets: 100, perAsset: 20, groups: 1, ruleSets: 1, rules: 1 });
    db.close();
    console.log(`  data: written in ${fmtMs(since(t0))} ms`);
  }
  const { db } = openDatabase(file, { create: false });
  const rule = db.prepare('SELECT id FROM rules ORDER BY name LIMIT 1').get() as { id: string };
  const count = (db.prepare('SELECT count(*) AS n FROM software').get() as { n: number }).n;
  db.close();
  console.log(`  ${fmtInt(count)} software records; ${CHROMIUM}; viewport 1440x900, en-GB`);

  const apiKey = 'bench-compliance-console';
  const child = spawn(process.execPath, [path.join(ROOT, 'out/main/cli.js'), 'serve', '--db', file, '--port', '0', '--routing-port', '0', '--api-key', apiKey, '--seed', 'none'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const main = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('radar-console ready '));
      if (line) resolve((JSON.parse(line.slice('radar-console ready '.length)) as { main: string }).main);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  const post = async <T>(route: string, body: unknown): Promise<T> => {
    const r = await fetch(`${main}/console/v1/compliance/${route}`, { method: 'POST', headers: { PgrApiKey: apiKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status !== 200) throw new Error(`${route}: ${r.status} ${await r.text()}`);
    return (await r.json()) as T;
  };

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  let misses = 0;
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.goto(`${main}/#key=${apiKey}&/compliance/rules/${rule.id}`);
    await page.waitForSelector('#cw-query');

    /** Types `query` after a refused one; ms from the input to the count `expected` and the rows on screen. */
    const typed = (query: string, expected: number) =>
      page.evaluate(`(${IN_PAGE})(${JSON.stringify({ query, text: expected.toLocaleString('en-US'), rows: Math.min(50, expected) })})`) as Promise<number>;

    // The first query builds the server's software index (cold).
    const first = `${QUERIES[0]} | benchcold`;
    const firstTotal = (await post<{ total: number }>('match', { query: first, limit: 1 })).total;
    const t0 = performance.now();
    await typed(`${QUERIES[0]} | benchcold2`, firstTotal);
    console.log(`  the first query (the software index built cold by the API call before it): ${fmtMs(since(t0))} ms on screen`);

    const rows: string[][] = [];
    let run = 0;
    for (const q of QUERIES) {
      const screen: number[] = [];
      const script: number[] = [];
      const server: number[] = [];
      let total = 0;
      for (let i = 0; i < ITER; i++) {
        const query = `(${q}) | benchnothing${run++}`;
        const s0 = performance.now();
        const answer = await post<{ total: number; took_ms: number }>('match', { query: `${query}x`, limit: 50, offset: 0 });
        script.push(since(s0));
        server.push(answer.took_ms);
        total = answer.total;
        screen.push(await typed(query, total));
      }
      const onScreen = median(screen);
      const afterPause = onScreen - TYPING_MS;
      const ok = afterPause < TARGET_MS;
      if (!ok) misses++;
      rows.push([q, fmtInt(total), fmtMs(onScreen), fmtMs(afterPause), fmtMs(median(script)), fmtMs(median(server)), fmtRatio(afterPause / median(script)), mark(ok)]);
    }
    console.log(
      formatTable(
        [
          { header: 'query' },
          { header: 'matches', align: 'right' },
          { header: 'on screen ms', align: 'right' },
          { header: 'after the pause', align: 'right' },
          { header: 'script HTTP ms', align: 'right' },
          { header: 'server took_ms', align: 'right' },
          { header: 'console / script', align: 'right' },
          { header: '' },
        ],
        rows,
      ),
    );
    console.log(`  target: the count and its page on screen under ${TARGET_MS} ms after the ${TYPING_MS} ms typing pause (median of ${ITER}) ${mark(!misses)}`);
    console.log(`  ${bold(misses ? `${misses} of ${QUERIES.length} queries over the target` : `every query under ${TARGET_MS} ms`)}`);
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (!process.env.BENCH_COMPLIANCE_DB) {
      removeDbFiles(file);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
