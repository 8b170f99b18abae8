// `npm run bench:console`: the console in Chromium against `serve` on 1,000,000 incidents.
//
// Measures, in the page (performance.now(), requestAnimationFrame), over several runs:
//   - first page visible: navigation start → the first incident rows rendered (a fresh browser
//     context each run: no cache, no stored state);
//   - filter change: a click on a status chip → the table showing that status's rows and total;
//   - chips and charts after a filter change: a time range chosen → the status chips' counts and
//     the charts drawn for it (the table's page first, then the aggregates, as the console asks);
//   - scrolling 10,000 rows at a steady speed, frame by frame: frame gaps, and "blank" frames
//     (the rows area on screen holds no loaded row, only placeholders), their longest run.
// Prints medians and PASS/FAIL against the targets: 1 s, 300 ms, 300 ms, 100 ms. A measurement,
// not a test: it exits 0 whatever the figures.
//
// Environment:
//   BENCH_DB=<file>      keep the database there and reuse it (shared with bench:search)
//   BENCH_ROWS=<n>       incidents (default 1,000,000)
//   BENCH_RUNS=<n>       runs of each measurement (default 5)
//   BENCH_SCROLL_ROWS=<n> rows scrolled per run (default 10,000)
//   BENCH_ROWS_PER_FRAME=<n> scrolling speed in rows per animation frame (default 20)
//   CHROMIUM_PATH        the browser (default /usr/bin/chromium)
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { bold, fmtInt, fmtMs, formatTable, green, heading, prepareIncidentDb, red, summarize, type Summary } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const SCROLL_ROWS = Number(process.env.BENCH_SCROLL_ROWS ?? 10_000);
const ROWS_PER_FRAME = Number(process.env.BENCH_ROWS_PER_FRAME ?? 20);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The flags the Playwright tests use (playwright.config.ts). */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1280, height: 800 };

const TARGET_FIRST_MS = 1000;
const TARGET_FILTER_MS = 300;
const TARGET_CHARTS_MS = 300;
const TARGET_BLANK_MS = 100;

const ROOT = path.resolve(__dirname, '..');

interface Served {
  main: string;
  stop(): Promise<void>;
}

function build(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('electron-vite build failed');
}

async function serve(db: string, apiKey: string): Promise<Served> {
  const child = spawn(process.execPath, [path.join(ROOT, 'out/main/cli.js'), 'serve', '--db', db, '--port', '0', '--routing-port', '0', '--api-key', apiKey, '--seed', 'none'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const main = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not get ready: ${err}`)), 120_000);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('radar-console ready '));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line.slice('radar-console ready '.length)) as { main: string }).main);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return {
    main,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}

// ------------------------------------------------------------------------------------------
// In-page probes, as JavaScript text (functions compiled by tsx carry helpers the page lacks).
// performance.now() in the page counts from navigation start.

/** Records when the first loaded incident row is on screen (the frame after it appears). */
const FIRST_ROWS_PROBE = `(() => {
  const seen = () => document.querySelector('table[aria-label="Incidents"] tbody tr[data-loaded="true"]');
  const done = () => requestAnimationFrame(() => { window.__firstRows = performance.now(); });
  const obs = new MutationObserver(() => { if (seen()) { obs.disconnect(); done(); } });
  document.addEventListener('DOMContentLoaded', () => {
    if (seen()) done();
    else obs.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-loaded'] });
  });
})()`;

/** Clicks a chip and resolves, in the frame after, when the table shows only rows of that
 * status and the total changed: the time from the click. */
const MEASURE_FILTER = `(args) => new Promise((resolve, reject) => {
  const table = document.querySelector('table[aria-label="Incidents"]');
  const total = document.querySelector('[data-testid="total"]');
  const ok = () => {
    const rows = [...table.querySelectorAll('tbody tr[data-loaded="true"]')];
    if (!rows.length || total.textContent === args.previousTotal || total.textContent === '…') return false;
    if (args.status === null) return true;
    return rows.every((r) => r.querySelector('[data-status]')?.getAttribute('data-status') === args.status);
  };
  const timer = setTimeout(() => reject(new Error('the table did not change in 20 s (' + args.chip + ')')), 20000);
  const button = document.querySelector(args.chip);
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    if (!ok()) return;
    obs.disconnect();
    requestAnimationFrame(() => { clearTimeout(timer); resolve({ ms: performance.now() - t0, total: total.textContent ?? '' }); });
  });
  obs.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  button.click();
})`;

/** Chooses a time range and resolves, in the frame after, when the status chips show new
 * counts and the charts are drawn again: the time from the choice. */
const MEASURE_CHARTS = `(args) => new Promise((resolve, reject) => {
  const select = document.querySelector('.range-control select');
  const chip = () => document.querySelector('[data-testid="count-status-new"]')?.textContent ?? '';
  const before = chip();
  const done = () => {
    const wrap = document.querySelector('.charts-wrap');
    const c = chip();
    return c !== '' && c !== '…' && c !== before && wrap && wrap.getAttribute('aria-busy') === 'false' && wrap.querySelector('.charts:not(.charts-placeholder)');
  };
  const timer = setTimeout(() => reject(new Error('the chips and charts did not change in 30 s (' + args.preset + ')')), 30000);
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    if (!done()) return;
    obs.disconnect();
    requestAnimationFrame(() => { clearTimeout(timer); resolve({ ms: performance.now() - t0, count: chip() }); });
  });
  obs.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  select.value = args.preset;
  select.dispatchEvent(new Event('change', { bubbles: true }));
})`;

interface ScrollResult {
  frames: number;
  ms: number;
  maxGap: number;
  p99Gap: number;
  blankFrames: number;
  maxBlank: number;
  rowsScrolled: number;
}

/** Scrolls the incident table by rowsPerFrame rows each animation frame until rows rows are
 * passed, then waits (up to 10 s) for the last screen to fill. Per frame: the gap since the
 * previous frame, and whether the rows on screen include a loaded one (if not, it is blank). */
const MEASURE_SCROLL = `(args) => new Promise((resolve) => {
  const el = document.querySelector('[data-testid="incidents-scroll"]');
  const head = 30;
  const height = el.clientHeight;
  const gaps = [];
  let blankFrames = 0, blankSince = null, maxBlank = 0, settling = 0;
  let last = performance.now();
  const t0 = last;
  const target = args.rows * args.rowHeight;
  let pos = 0;
  el.scrollTop = 0;
  const blank = () => {
    const first = Math.floor(pos / args.rowHeight);
    const lastRow = Math.floor((pos + height - head - 1) / args.rowHeight);
    for (const tr of el.querySelectorAll('tbody tr[data-loaded="true"]')) {
      const i = Number(tr.getAttribute('data-index'));
      if (i >= first && i <= lastRow) return false;
    }
    return true;
  };
  const frame = (now) => {
    gaps.push(now - last);
    last = now;
    if (blank()) { blankFrames++; if (blankSince === null) blankSince = now; }
    else if (blankSince !== null) { maxBlank = Math.max(maxBlank, now - blankSince); blankSince = null; }
    if (pos + args.rowHeight < target) {
      pos = Math.min(target, pos + args.rowsPerFrame * args.rowHeight);
      el.scrollTop = pos;
      requestAnimationFrame(frame);
      return;
    }
    if (blankSince !== null && settling++ < 600) { requestAnimationFrame(frame); return; }
    const sorted = gaps.slice(1).sort((a, b) => a - b);
    resolve({
      frames: gaps.length, ms: now - t0,
      maxGap: sorted[sorted.length - 1] ?? 0, p99Gap: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
      blankFrames, maxBlank, rowsScrolled: Math.round(pos / args.rowHeight),
    });
  };
  requestAnimationFrame((now) => { last = now; requestAnimationFrame(frame); });
})`;

const call = (fn: string, args: unknown): string => `(${fn})(${JSON.stringify(args)})`;

/** Polls an expression in the page until it is truthy (page.evaluate with text runs over the
 * DevTools protocol, which the page's Content-Security-Policy does not restrict). */
async function waitFor(page: Page, expr: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(expr))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ------------------------------------------------------------------------------------------

async function openConsole(browser: Browser, main: string, apiKey: string): Promise<{ page: Page; firstMs: number; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-GB' });
  const page = await context.newPage();
  await page.addInitScript({ content: FIRST_ROWS_PROBE });
  await page.goto(`${main}/#key=${apiKey}`);
  await waitFor(page, 'window.__firstRows !== undefined', 60_000);
  const firstMs = (await page.evaluate('window.__firstRows')) as number;
  return { page, firstMs, close: () => context.close() };
}

/** Until the counts are shown (the aggregates answered) and nothing is in flight. */
async function settle(page: Page): Promise<void> {
  await waitFor(page, `(document.querySelector('[data-testid="count-status-new"]')?.textContent ?? '…') !== '…'`, 120_000);
  await waitFor(page, `document.querySelector('.dt')?.getAttribute('aria-busy') === 'false'`, 60_000);
}

const verdict = (ok: boolean) => (ok ? green('PASS') : red('FAIL'));

async function main(): Promise<void> {
  const started = performance.now();
  heading('bench:console — the console in Chromium on a large incident list');
  const chromiumVersion = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`  node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`  ${chromiumVersion || CHROMIUM}, viewport ${VIEWPORT.width}x${VIEWPORT.height}; ${RUNS} runs per measurement`);

  heading('database');
  const prepared = prepareIncidentDb({ incidents: ROWS, assets: 5_000, findings: 500, seed: 20261003 });
  console.log(`  ${prepared.file}: ${fmtInt(ROWS)} incidents${prepared.reused ? ' (reused)' : ''}`);

  heading('server');
  build();
  const apiKey = crypto.randomBytes(16).toString('hex');
  const served = await serve(prepared.file, apiKey);
  console.log(`  serve at ${served.main} (the built console, out/main/cli.js)`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (set CHROMIUM_PATH)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

  const first: number[] = [];
  const filter: number[] = [];
  const charts: number[] = [];
  const scroll: ScrollResult[] = [];
  let coldFirst = NaN;
  try {
    // A first, untimed open warms the server's caches (and is reported as "cold").
    {
      const o = await openConsole(browser, served.main, apiKey);
      coldFirst = o.firstMs;
      await settle(o.page);
      await o.close();
    }

    heading(`first page visible (navigation start → first rows on screen), ${RUNS} runs`);
    for (let i = 0; i < RUNS; i++) {
      const o = await openConsole(browser, served.main, apiKey);
      first.push(o.firstMs);
      const total = await o.page.locator('[data-testid="total"]').textContent();
      console.log(`  run ${i + 1}: ${fmtMs(o.firstMs)} ms (${total})`);
      await settle(o.page);

      if (i === 0) heading(`filter change (status chip click → table re-rendered), ${RUNS} runs x 4 changes`);
      const chips: { chip: string; status: string | null }[] = [
        { chip: 'button.status-chip.status-new', status: 'new' },
        { chip: 'button.status-chip.status-new', status: null },
        { chip: 'button.status-chip.status-closed', status: 'closed' },
        { chip: 'button.status-chip.status-closed', status: null },
      ];
      const line: string[] = [];
      for (const c of chips) {
        const previousTotal = (await o.page.locator('[data-testid="total"]').textContent()) ?? '';
        const r = (await o.page.evaluate(call(MEASURE_FILTER, { ...c, previousTotal }))) as { ms: number; total: string };
        filter.push(r.ms);
        line.push(`${c.status ?? 'all'} ${fmtMs(r.ms)} ms (${r.total})`);
        await settle(o.page);
      }
      console.log(`  run ${i + 1}: ${line.join(', ')}`);

      if (i === 0) heading(`chips and charts after a filter change (time range chosen → chip counts and charts redrawn), ${RUNS} runs x 5 changes`);
      const ranges: string[] = [];
      for (const preset of ['1y', '90d', '30d', '7d', 'all']) {
        const r = (await o.page.evaluate(call(MEASURE_CHARTS, { preset }))) as { ms: number; count: string };
        charts.push(r.ms);
        ranges.push(`${preset} ${fmtMs(r.ms)} ms (new: ${r.count})`);
        await settle(o.page);
      }
      console.log(`  run ${i + 1}: ${ranges.join(', ')}`);

      const s = (await o.page.evaluate(call(MEASURE_SCROLL, { rows: SCROLL_ROWS, rowsPerFrame: ROWS_PER_FRAME, rowHeight: 28 }))) as ScrollResult;
      scroll.push(s);
      await o.close();
    }

    heading(`scrolling ${fmtInt(SCROLL_ROWS)} rows, ${ROWS_PER_FRAME} rows per frame, ${RUNS} runs`);
    for (const [i, s] of scroll.entries()) {
      console.log(
        `  run ${i + 1}: ${fmtInt(s.rowsScrolled)} rows in ${fmtMs(s.ms)} ms (${fmtInt((s.rowsScrolled / s.ms) * 1000)} rows/s), ${s.frames} frames; ` +
          `frame gap max ${fmtMs(s.maxGap)} ms, p99 ${fmtMs(s.p99Gap)} ms; blank frames ${s.blankFrames}, longest blank ${fmtMs(s.maxBlank)} ms`,
      );
    }
  } finally {
    await browser.close();
    await served.stop();
    prepared.cleanup();
  }

  heading('summary (medians over runs)');
  const f = summarize(first);
  const fl = summarize(filter);
  const ch = summarize(charts);
  const blank = summarize(scroll.map((s) => s.maxBlank));
  const gap = summarize(scroll.map((s) => s.maxGap));
  const row = (name: string, x: Summary, target: string, ok: boolean | null) => [name, String(x.n), fmtMs(x.p50), fmtMs(x.min), fmtMs(x.max), target, ok === null ? '' : verdict(ok)];
  console.log(
    formatTable(
      [{ header: 'measure' }, { header: 'n', align: 'right' }, { header: 'median ms', align: 'right' }, { header: 'min', align: 'right' }, { header: 'max', align: 'right' }, { header: 'target' }, { header: '' }],
      [
        row('first page visible', f, `< ${TARGET_FIRST_MS} ms`, f.p50 < TARGET_FIRST_MS),
        row('filter change re-rendered', fl, `< ${TARGET_FILTER_MS} ms`, fl.p50 < TARGET_FILTER_MS),
        row('chips and charts after a filter change', ch, `< ${TARGET_CHARTS_MS} ms`, ch.p50 < TARGET_CHARTS_MS),
        row(`longest blank while scrolling ${fmtInt(SCROLL_ROWS)} rows`, blank, `<= ${TARGET_BLANK_MS} ms`, blank.p50 <= TARGET_BLANK_MS),
        row('longest frame gap while scrolling', gap, '(information)', null),
      ],
    ),
  );
  console.log(`  first page on a cold server (untimed warm-up open): ${fmtMs(coldFirst)} ms`);
  const failed = [f.p50 < TARGET_FIRST_MS, fl.p50 < TARGET_FILTER_MS, ch.p50 < TARGET_CHARTS_MS, blank.p50 <= TARGET_BLANK_MS].filter((x) => !x).length;
  console.log(bold(`\n  ${failed ? `${failed} target(s) missed` : 'all targets met'}; total ${(performance.now() - started) / 1000 > 0 ? ((performance.now() - started) / 1000).toFixed(0) : '0'} s, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
