// `npm run bench:console`: the console in Chromium (1440x900) against `serve` on 1,000,000 incidents.
//
// 1. The first rows after opening the console: on a cold server (started just before, its first
//    requests), and warm (a fresh browser context each run: no cache, no stored state): from
//    navigation start to the first incident rows on screen, and to the view complete (the total
//    shown and no request in flight).
// 2. The view matrix (bench/console-views.ts): every filter the incident list offers alone and
//    combined with a status, a risk band or a time range, the groupings by each field, a large
//    group opened, the sort by each column. Each view is reached the way an analyst does: its
//    starting view opened by its address (untimed), then the control used (a chip, the search
//    box and Enter, a picker's checkbox, a quick filter, a range, a date typed, the grouping, a
//    group's toggle, a column's header). Its time runs from that input event (the moment the
//    list's query changes) until the header shows the total and no request is in flight (see
//    VIEW_PROBE), median and worst of several runs. Each view's total is checked against the
//    API's answer to the same view, stated independently in the API's own terms (and a grouped
//    view's groups against the group operation): a failed check is printed and makes the run
//    exit non-zero. For each view over the target, the requests of its median run (a waterfall)
//    and the browser's long tasks.
// 3. The measurements kept from before: a filter change (status chip click → table re-rendered),
//    the chips and charts after a time range is chosen, scrolling 10,000 rows.
//
// The console's clock is set to 09:00 UTC on the day the data set's year ends (console-views.ts
// NOW_MS), so that its relative ranges cover the data's last days as they cover an analyst's; its
// time zone is UTC; the live list's interval is set to off (its periodic check would land inside
// some measurements). Targets: views 300 ms median and 1 s worst; first rows 1 s; the kept
// measurements 300 ms, 300 ms and no blank frame over 100 ms. A figure over its target is
// printed, not failed: only a wrong total fails the run.
//
// Environment:
//   BENCH_DB=<file>        keep the database there and reuse it (shared with the other benches)
//   BENCH_ROWS=<n>         incidents (default 1,000,000)
//   BENCH_RUNS=<n>         runs of each view and of each kept measurement (default 3)
//   BENCH_COLD_RUNS=<n>    cold-server opens (default 3), and as many opens of a server started
//                          BENCH_COLD_AFTER_MS before (default 1000; 0: none)
//   BENCH_VIEWS=<regexp>   only the views whose name or family matches (default: all)
//   BENCH_PARTS=<list>     open,views,kept (default: all three)
//   BENCH_BASELINE=<dir>   another built checkout (out/main, out/renderer): its cold opens are
//                          interleaved with this build's (turn about, the order swapped each round)
//                          and printed beside them, with the ratio of the medians
//   BENCH_EXPLAIN=1        for each view over the target, each of its reads run again statement by
//                          statement with their query plans (bench/console-sql.ts)
//   BENCH_SCROLL_ROWS=<n>  rows scrolled per run (default 10,000)
//   BENCH_ROWS_PER_FRAME=<n> scrolling speed in rows per animation frame (default 20)
//   CHROMIUM_PATH          the browser (default /usr/bin/chromium)
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { emptySearch, type SearchFilter } from '../src-shared/schemas/search';
import { explainRequest } from './console-sql';
import { call, FIRST_ROWS_PROBE, MEASURE_CHARTS, MEASURE_FILTER, MEASURE_SCROLL, NETWORK_PROBE, VIEW_PROBE, type ScrollResult } from './console-probe';
import { ASSET_NAME, FINDING_TITLE, GROUP, NOW_MS, PERSON, viewOrder, views as matrixViews, type Fixtures, type View } from './console-views';
import { bold, fmtInt, fmtMs, formatTable, green, heading, KeepAliveClient, prepareIncidentDb, red, since, summarize, type Summary } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const COLD_RUNS = Math.max(1, Number(process.env.BENCH_COLD_RUNS ?? 3));
/**
 * The second series of cold opens: the console opened this long after the server's ready line, as
 * a person opens the address `serve` prints (the desktop app opens its window once the server is
 * built); the first series opens it at the ready line, while the server is still building its app.
 */
const COLD_AFTER_MS = Math.max(0, Number(process.env.BENCH_COLD_AFTER_MS ?? 1000));
const ONLY = process.env.BENCH_VIEWS ? new RegExp(process.env.BENCH_VIEWS, 'i') : null;
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const PARTS = new Set((process.env.BENCH_PARTS ?? 'open,views,kept').split(',').map((s) => s.trim()));
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : null;
const SCROLL_ROWS = Number(process.env.BENCH_SCROLL_ROWS ?? 10_000);
const ROWS_PER_FRAME = Number(process.env.BENCH_ROWS_PER_FRAME ?? 20);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The flags the Playwright tests use (playwright.config.ts). */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1440, height: 900 };

const TARGET_VIEW_MEDIAN_MS = 300;
const TARGET_VIEW_WORST_MS = 1000;
const TARGET_FIRST_MS = 1000;
const TARGET_FILTER_MS = 300;
const TARGET_CHARTS_MS = 300;
const TARGET_BLANK_MS = 100;
/** The console's periodic requests, made whatever the view: not waited for in the matrix (listed). */
const BACKGROUND = ['^GET /console/v1/sync', '^GET /console/v1/instances/health', '^GET /console/v1/instances$'];
/** A view is shown once its state has held this long with no request sent. */
const QUIET_MS = 300;
const VIEW_TIMEOUT_MS = 60_000;

const ROOT = path.resolve(__dirname, '..');
const SEARCH = (resource: string) => `/cruddy/v2/${resource}/search`;
const INCIDENTS = 'service_asset_findings';

interface Served {
  main: string;
  stop(): Promise<void>;
}

function build(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('electron-vite build failed');
}

async function serve(db: string, apiKey: string, root = ROOT): Promise<Served> {
  const child = spawn(process.execPath, [path.join(root, 'out/main/cli.js'), 'serve', '--db', db, '--port', '0', '--routing-port', '0', '--api-key', apiKey, '--seed', 'none'], {
    cwd: root,
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

/** Polls an expression in the page until it is truthy (page.evaluate with text runs over the
 * DevTools protocol, which the page's Content-Security-Policy does not restrict). */
async function waitFor(page: Page, expr: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(expr))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const loadAvg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const verdict = (ok: boolean) => (ok ? green('PASS') : red('FAIL'));

// ------------------------------------------------------------------------------------------
// The browser side

async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-GB', timezoneId: 'UTC' });
  // The probes first: they keep the document's own clock before the fake one replaces it (console-probe.ts).
  await context.addInitScript({ content: NETWORK_PROBE });
  await context.addInitScript({ content: VIEW_PROBE });
  await context.addInitScript({ content: FIRST_ROWS_PROBE });
  await context.clock.setFixedTime(NOW_MS);
  return context;
}

interface ViewResult {
  ms?: number;
  error?: string;
  shown: { totalText: string; total: number | null; groups: { count: number; sum: number } | null; openCount: number | null; openRows: number; rows: number };
  requests: { method: string; url: string; body: string | null; start: number; headers: number | null; end: number | null; status: number; background: boolean }[];
  long: { start: number; duration: number }[];
}

interface OpenResult {
  firstRows: number;
  complete: ViewResult;
}

/** Opens the console (a fresh context): navigation start → first rows, and → the view complete. */
async function openConsole(browser: Browser, main: string, apiKey: string): Promise<{ page: Page; open: OpenResult; close(): Promise<void> }> {
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.addInitScript({ content: `window.__view.arm({ trigger: 'navigation', quietMs: ${QUIET_MS}, timeoutMs: 120000, rows: true }); window.__view.mark(0);` });
  await page.goto(`${main}/#key=${apiKey}`);
  const complete = (await page.evaluate('window.__view.wait()')) as ViewResult;
  await waitFor(page, 'window.__firstRows !== undefined', 60_000);
  const firstRows = (await page.evaluate('window.__firstRows')) as number;
  return { page, open: { firstRows, complete }, close: () => context.close() };
}

/** Until the total is shown and nothing has been in flight for QUIET_MS. */
async function settle(page: Page, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let quietSince: number | null = null;
  for (;;) {
    const ok = (await page.evaluate(`window.__view.inflight(${JSON.stringify(BACKGROUND)}) === 0 && window.__view.shown().total !== null`)) as boolean;
    if (!ok) quietSince = null;
    else if (quietSince === null) quietSince = Date.now();
    else if (Date.now() - quietSince >= QUIET_MS) return;
    if (Date.now() > end) throw new Error('the console did not settle');
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** Opens the incident list at `params` by its address (untimed), and waits for it. */
async function openAddress(page: Page, params: string): Promise<void> {
  await page.evaluate(`(() => { const h = ${JSON.stringify(params ? `#/incidents?${params}` : '#/incidents')}; if (location.hash !== h) location.hash = h; })()`);
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  await settle(page);
}

const arm = (page: Page, o: { trigger: string; groups?: boolean; expand?: boolean }) =>
  page.evaluate(`window.__view.arm(${JSON.stringify({ ...o, quietMs: QUIET_MS, timeoutMs: VIEW_TIMEOUT_MS, ignore: BACKGROUND })})`);

/** One timed run of a view: its starting view, then the control. */
async function runView(page: Page, v: View, expect: Expected): Promise<ViewResult> {
  await openAddress(page, v.base);
  const a = v.act;
  switch (a.kind) {
    case 'status':
      await arm(page, { trigger: 'click' });
      await page.locator(`button.status-chip.status-${a.status}`).click();
      break;
    case 'risk':
      await arm(page, { trigger: 'click' });
      await page.locator(`button.risk-chip.risk-${a.band}`).click();
      break;
    case 'quick':
      await arm(page, { trigger: 'click' });
      await page.locator(`[data-testid="${a.testId}"]`).click();
      break;
    case 'range':
      await arm(page, { trigger: 'change' });
      await page.locator('.range-control select').selectOption(a.preset);
      break;
    case 'rangeTo': {
      const [y, m, d] = a.day.split('-');
      const to = page.locator('.range-control input[aria-label="To"]');
      await to.fill(`${d}/${m}/${y}`);
      await arm(page, { trigger: 'keydown' });
      await to.press('Enter');
      break;
    }
    case 'text':
      // Typed and Enter pressed at once (the box's own pause before searching is not counted).
      await arm(page, { trigger: 'keydown' });
      await page.evaluate(`(() => {
        const input = document.querySelector('input[data-search="incidents"]');
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${JSON.stringify(a.text)});
        input.dispatchEvent(new Event('input', { bubbles: true }));
        setTimeout(() => input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })), 0);
      })()`);
      break;
    case 'pick': {
      const label = a.picker === 'assets' ? 'Assets' : 'Finding types';
      await page.locator(`.filter-bar button[aria-label="${label}"]`).click();
      await page.locator(`input[aria-label="Search ${label}"]`).fill(a.find);
      const option = page.locator('.picker-list li[role="option"]').filter({ hasText: new RegExp(`^${a.find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
      await option.first().waitFor({ timeout: 30_000 });
      await waitFor(page, `window.__view.inflight(${JSON.stringify(BACKGROUND)}) === 0`, 30_000);
      await arm(page, { trigger: 'click' });
      await option.first().locator('input[type="checkbox"]').click();
      break;
    }
    case 'address':
      await arm(page, { trigger: 'navigation' });
      await page.evaluate(`(() => { window.__view.mark(); location.hash = ${JSON.stringify(`#/incidents?${a.params}`)}; })()`);
      break;
    case 'groupBy':
      await arm(page, { trigger: 'change', groups: true });
      await page.locator('.group-control select').selectOption(a.field);
      break;
    case 'expand': {
      await waitFor(page, `document.querySelectorAll('[data-testid="group"]').length > 0`, 60_000);
      // The list keeps a group open across runs of the same address: closed first (untimed).
      const open = page.locator('[data-testid="group"].is-open .group-toggle');
      if ((await open.count()) > 0) {
        await open.first().click();
        await settle(page);
      }
      const index = (await page.evaluate(`[...document.querySelectorAll('[data-testid="group"]')].findIndex((g) => Number((g.querySelector('[data-testid="group-count"]')?.textContent ?? '').replace(/[^0-9]/g, '')) === ${expect.largest ?? -1})`)) as number;
      if (index < 0) throw new Error(`${v.name}: no group of ${expect.largest} incidents on screen`);
      await arm(page, { trigger: 'click', expand: true });
      await page.locator('[data-testid="group"] .group-toggle').nth(index).click();
      break;
    }
    case 'sort': {
      const header = page.locator('table[aria-label="Incidents"] thead button.dt-sort').filter({ has: page.locator('.dt-th-label', { hasText: new RegExp(`^${a.label.replace(/[#]/g, '\\$&')}$`) }) });
      await arm(page, { trigger: 'click' });
      await header.click();
      break;
    }
  }
  const r = (await page.evaluate('window.__view.wait()')) as ViewResult;
  if (a.kind === 'pick') await page.keyboard.press('Escape');
  return r;
}

// ------------------------------------------------------------------------------------------
// The API side: the view in the API's own terms

interface Expected {
  total: number;
  /** The group operation's answer: how many groups and their sum. */
  groups?: { count: number; sum: number };
  /** The largest group's count (the one opened). */
  largest?: number;
  /** The API's time for the search of the view (a page of 1 in the view's order, and the total), ms. */
  apiMs: number;
}

async function expected(client: KeepAliveClient, v: View): Promise<Expected> {
  const body = { ...emptySearch(1), include_fields: ['id'], filters: v.filters, virtual_search: { value: v.text, strict: false }, ordering: viewOrder(v) };
  const t0 = performance.now();
  const res = await client.post(SEARCH(INCIDENTS), body);
  const apiMs = since(t0);
  if (res.status !== 200) throw new Error(`${v.name}: the API answered ${res.status}: ${res.body.toString()}`);
  const total = (JSON.parse(res.body.toString()) as { total: number }).total;
  if (!v.groupBy) return { total, apiMs };
  const g = await client.post(`/cruddy/v2/${INCIDENTS}/group`, { group_field: v.groupBy, filters: v.filters });
  if (g.status !== 200) throw new Error(`${v.name}: the group operation answered ${g.status}`);
  const items = (JSON.parse(g.body.toString()) as { items: { count: number }[] }).items;
  let sum = 0;
  let largest = 0;
  for (const i of items) {
    sum += i.count;
    largest = Math.max(largest, i.count);
  }
  return { total, groups: { count: items.length, sum }, largest, apiMs };
}

/** Whether what the console showed agrees with the API; the disagreement in words otherwise. */
function checkShown(v: View, r: ViewResult, e: Expected): string | null {
  if (r.error) return r.error;
  if (r.shown.total !== e.total) return `the header shows "${r.shown.totalText}", the API's total is ${fmtInt(e.total)}`;
  if (v.act.kind === 'expand') {
    if (r.shown.openCount !== e.largest) return `the opened group shows ${r.shown.openCount}, the API's largest group is ${e.largest}`;
  } else if (e.groups) {
    const g = r.shown.groups;
    if (!g || g.count !== e.groups.count || g.sum !== e.groups.sum) {
      return `the groups shown: ${g ? `${fmtInt(g.count)} summing to ${fmtInt(g.sum)}` : 'none'}; the API's: ${fmtInt(e.groups.count)} summing to ${fmtInt(e.groups.sum)}`;
    }
  }
  return null;
}

async function fixtures(client: KeepAliveClient): Promise<Fixtures> {
  const find = async (resource: string, field: string, value: string): Promise<string> => {
    const res = await client.post(SEARCH(resource), { ...emptySearch(1), include_fields: ['id'], filters: [{ field, filter_type: 'equal', value }] });
    if (res.status !== 200) throw new Error(`searching ${resource} answered ${res.status}: ${res.body.toString()}`);
    const item = (JSON.parse(res.body.toString()) as { items: { id: string }[] }).items[0];
    if (!item) throw new Error(`no ${resource} with ${field} = ${value}`);
    return item.id;
  };
  return {
    asset: { id: await find('service_assets', 'name', ASSET_NAME), name: ASSET_NAME },
    finding: { id: await find('findings', 'title', FINDING_TITLE), title: FINDING_TITLE },
    person: PERSON,
    group: GROUP,
  };
}

// ------------------------------------------------------------------------------------------
// Printing

/** A request of the waterfall in a few words. */
function describeRequest(q: ViewResult['requests'][number]): string {
  const url = new URL(q.url, 'http://x');
  const p = url.pathname;
  const m = /^\/cruddy\/v2\/([^/]+)\/(search|group)$/.exec(p);
  if (m) {
    let body: { filters?: SearchFilter[]; virtual_search?: { value: string }; limit?: number; offset?: number; group_field?: string; include_fields?: string[]; ordering?: { field: string; direction: string }[] } = {};
    try {
      body = JSON.parse(q.body ?? '{}');
    } catch {
      // not JSON: described by its path alone
    }
    const filters = (body.filters ?? []).map((f) => `${f.field} ${f.filter_type}${Array.isArray(f.value) && f.value.length > 2 ? `[${f.value.length}]` : ''}`).join(', ');
    const text = body.virtual_search?.value ? ` text "${body.virtual_search.value}"` : '';
    if (m[2] === 'group') return `group ${m[1]} by ${body.group_field} [${filters}]`;
    const order = body.ordering?.length ? ` by ${body.ordering.map((o) => `${o.field} ${o.direction}`).join(',')}` : '';
    return `search ${m[1]} [${filters}]${text}${order} limit ${body.limit} offset ${body.offset}${body.include_fields?.length === 2 ? ` (${body.include_fields.join(',')})` : ''}`;
  }
  const qs = decodeURIComponent(url.search).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, (t) => t.slice(0, 10));
  return `${q.method} ${p}${qs.length > 90 ? `${qs.slice(0, 90)}…` : qs}`;
}

/** The browser's long tasks (main thread busy 50 ms or more) between the change and the view shown, ms. */
function longTaskMs(r: ViewResult): number {
  const end = r.ms ?? Number.POSITIVE_INFINITY;
  return r.long.filter((x) => x.start < end).reduce((s, x) => s + Math.min(x.duration, end - Math.max(0, x.start)), 0);
}

function printWaterfall(r: ViewResult, indent = '      '): void {
  const end = r.ms ?? NaN;
  for (const q of [...r.requests].sort((a, b) => a.start - b.start)) {
    const span = q.end === null ? 'no answer' : `${fmtMs(q.start).padStart(5)} → ${fmtMs(q.end).padStart(5)} ms (${fmtMs(q.end - q.start)} ms${q.headers !== null ? `, first byte ${fmtMs(q.headers - q.start)}` : ''})`;
    console.log(`${indent}${span}  ${q.status || '-'}  ${describeRequest(q)}${q.background ? ' (periodic, not waited for)' : ''}`);
  }
  const lastAnswer = Math.max(0, ...r.requests.filter((q) => !q.background).map((q) => q.end ?? 0));
  const longMs = r.long.filter((x) => x.start < end).reduce((s, x) => s + Math.min(x.duration, end - x.start), 0);
  console.log(`${indent}last answer at ${fmtMs(lastAnswer)} ms, shown at ${fmtMs(end)} ms; long tasks in the browser: ${fmtMs(longMs)} ms (${r.long.filter((x) => x.start < end).length})`);
}

// ------------------------------------------------------------------------------------------

/**
 * Where an opening's time went: when the first incident page was asked and answered, the rest
 * until the first rows being the browser's (the application's code and its first render).
 */
function firstPageSpan(o: OpenResult): string {
  const q = o.complete.requests.filter((r) => r.url.includes(`${SEARCH(INCIDENTS)}`)).sort((a, b) => a.start - b.start)[0];
  if (!q) return '';
  return `; first page asked at ${fmtMs(q.start)} ms, answered at ${q.end === null ? 'never' : `${fmtMs(q.end)} ms`}`;
}

/**
 * How much of the database file the system holds in its file cache (util-linux's fincore, when
 * the machine has it): a view's first run reads from the disk what it does not hold.
 */
function fileCached(file: string): string {
  const r = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES,SIZE', file], { encoding: 'utf8' });
  const [res, size] = (r.status === 0 ? r.stdout.trim().split(/\s+/) : []).map(Number);
  if (res === undefined || size === undefined || !Number.isFinite(res) || !(size > 0)) return 'the share of the database file in the file cache: unknown (no fincore)';
  return `the database file in the system's file cache: ${fmtInt(res / 1048576)} of ${fmtInt(size / 1048576)} MiB (${((100 * res) / size).toFixed(0)}%)`;
}

async function measureOpen(browser: Browser, dbFile: string, apiKey: string, served: { current: Served }): Promise<{ cold: OpenResult[]; coldAfter: OpenResult[]; warm: OpenResult[]; baseline: OpenResult[] }> {
  heading(
    `first rows after opening the console: a cold server (${COLD_RUNS} starts, opened at the ready line${COLD_AFTER_MS ? ` and ${COLD_RUNS} more opened ${fmtMs(COLD_AFTER_MS)} ms after it` : ''}) and a warm one (${RUNS} opens)${BASELINE ? `; the cold starts interleaved with ${BASELINE}'s` : ''}`,
  );
  console.log(`  ${fileCached(dbFile)}`);
  if (BASELINE && !fs.existsSync(path.join(BASELINE, 'out/main/cli.js'))) throw new Error(`BENCH_BASELINE: no built server at ${BASELINE}/out/main/cli.js (npm run build there first)`);
  const cold: OpenResult[] = [];
  const baseline: OpenResult[] = [];
  const coldOpen = async (root: string | null, i: number) => {
    await served.current.stop();
    served.current = await serve(dbFile, apiKey, root ?? ROOT);
    const o = await openConsole(browser, served.current.main, apiKey);
    (root ? baseline : cold).push(o.open);
    console.log(`  ${root ? 'baseline ' : ''}cold ${i + 1}: first rows ${fmtMs(o.open.firstRows)} ms, complete ${fmtMs(o.open.complete.ms ?? NaN)} ms (${o.open.complete.shown.totalText}; ${o.open.complete.requests.length} requests)${firstPageSpan(o.open)}`);
    if (i === 0 && !root) printWaterfall(o.open.complete);
    await o.close();
  };
  for (let i = 0; i < COLD_RUNS; i++) {
    const order = BASELINE ? (i % 2 ? [BASELINE, null] : [null, BASELINE]) : [null];
    for (const root of order) await coldOpen(root, i);
  }
  // A server just started, opened once its start is over: its readers, route areas and caches
  // are as cold, only the start-up's own work no longer shares the cores with the opening.
  const coldAfter: OpenResult[] = [];
  for (let i = 0; COLD_AFTER_MS > 0 && i < COLD_RUNS; i++) {
    await served.current.stop();
    served.current = await serve(dbFile, apiKey);
    await new Promise((r) => setTimeout(r, COLD_AFTER_MS));
    const o = await openConsole(browser, served.current.main, apiKey);
    coldAfter.push(o.open);
    console.log(`  cold, opened ${fmtMs(COLD_AFTER_MS)} ms after the ready line ${i + 1}: first rows ${fmtMs(o.open.firstRows)} ms, complete ${fmtMs(o.open.complete.ms ?? NaN)} ms (${o.open.complete.shown.totalText}; ${o.open.complete.requests.length} requests)${firstPageSpan(o.open)}`);
    await o.close();
  }
  if (BASELINE) {
    // The warm opens below are this build's.
    await served.current.stop();
    served.current = await serve(dbFile, apiKey);
    const o = await openConsole(browser, served.current.main, apiKey);
    await o.close();
  }
  const warm: OpenResult[] = [];
  for (let i = 0; i < RUNS; i++) {
    const o = await openConsole(browser, served.current.main, apiKey);
    warm.push(o.open);
    console.log(`  warm ${i + 1}: first rows ${fmtMs(o.open.firstRows)} ms, complete ${fmtMs(o.open.complete.ms ?? NaN)} ms (${o.open.complete.shown.totalText})${firstPageSpan(o.open)}`);
    if (i === RUNS - 1) printWaterfall(o.open.complete);
    await o.close();
  }
  return { cold, coldAfter, warm, baseline };
}

interface ViewRow {
  view: View;
  expect: Expected;
  runs: ViewResult[];
  ms: number[];
  failure: string | null;
}

async function measureViews(browser: Browser, main: string, apiKey: string, dbFile: string): Promise<ViewRow[]> {
  const client = new KeepAliveClient(main, { PgrApiKey: apiKey });
  const fx = await fixtures(client);
  const all = matrixViews(fx).filter((v) => !ONLY || ONLY.test(v.name) || ONLY.test(v.family));
  heading(`the view matrix: ${all.length} views x ${RUNS} runs (the control used → the total shown, nothing in flight)`);
  console.log(`  ${fileCached(dbFile)}`);
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${main}/#key=${apiKey}`);
  if (!(await page.evaluate('window.__net.realClock'))) throw new Error("the probes read a replaced clock: install them before the page's clock");
  await settle(page);
  // The live list's periodic check (every 30 s by default) would land inside some measurements.
  await page.locator('.live select').selectOption('0');
  const rows: ViewRow[] = [];
  try {
    for (const v of all) {
      let expect: Expected;
      try {
        expect = await expected(client, v);
      } catch (e) {
        const failure = `the API did not answer the view: ${(e as Error).message}`;
        rows.push({ view: v, expect: { total: NaN, apiMs: NaN }, runs: [], ms: [], failure });
        console.log(`  ${v.name}: ${red(failure)}`);
        continue;
      }
      const runs: ViewResult[] = [];
      let failure: string | null = null;
      for (let i = 0; i < RUNS; i++) {
        let r: ViewResult;
        try {
          r = await runView(page, v, expect);
        } catch (e) {
          r = { error: (e as Error).message.split('\n')[0], shown: { totalText: '', total: null, groups: null, openCount: null, openRows: 0, rows: 0 }, requests: [], long: [] };
          await page.keyboard.press('Escape').catch(() => {});
        }
        runs.push(r);
        failure ??= checkShown(v, r, expect);
      }
      const ms = runs.map((r) => r.ms ?? NaN).filter(Number.isFinite);
      const s = summarize(ms);
      rows.push({ view: v, expect, runs, ms, failure });
      const flag = failure ? red(`CHECK FAILED: ${failure}`) : s.p50 > TARGET_VIEW_MEDIAN_MS || s.max > TARGET_VIEW_WORST_MS ? 'over target' : 'ok';
      console.log(`  ${v.name}: ${ms.map(fmtMs).join(', ')} ms; long tasks ${runs.map(longTaskMs).map(fmtMs).join(', ')} ms; total ${fmtInt(expect.total)} (API ${fmtMs(expect.apiMs)} ms); ${flag}`);
    }
  } finally {
    client.close();
    await context.close();
  }
  return rows;
}

async function measureKept(browser: Browser, main: string, apiKey: string, dbFile: string): Promise<{ filter: number[]; charts: number[]; scroll: ScrollResult[] }> {
  console.log(`  before the filter, chart and scrolling runs, ${fileCached(dbFile)}`);
  const filter: number[] = [];
  const charts: number[] = [];
  const scroll: ScrollResult[] = [];
  for (let i = 0; i < RUNS; i++) {
    const o = await openConsole(browser, main, apiKey);
    await settle(o.page);
    await o.page.locator('.live select').selectOption('0');
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
  return { filter, charts, scroll };
}

async function main(): Promise<void> {
  const started = performance.now();
  heading('bench:console — the console in Chromium on a large incident list');
  const chromiumVersion = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`  node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${loadAvg()}`);
  console.log(`  ${chromiumVersion || CHROMIUM}, viewport ${VIEWPORT.width}x${VIEWPORT.height}, the console's clock at ${new Date(NOW_MS).toISOString()} (UTC); ${RUNS} runs per measurement`);

  heading('database');
  const prepared = prepareIncidentDb({ incidents: ROWS, assets: 5_000, findings: 500, seed: 20261003 });
  console.log(`  ${prepared.file}: ${fmtInt(ROWS)} incidents${prepared.reused ? ' (reused)' : ''}`);

  heading('server');
  build();
  const apiKey = crypto.randomBytes(16).toString('hex');
  const served = { current: await serve(prepared.file, apiKey) };
  console.log(`  serve at ${served.current.main} (the built console, out/main/cli.js)`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM} (set CHROMIUM_PATH)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

  let open: { cold: OpenResult[]; coldAfter: OpenResult[]; warm: OpenResult[]; baseline: OpenResult[] } | null = null;
  let rows: ViewRow[] = [];
  let kept: Awaited<ReturnType<typeof measureKept>> | null = null;
  try {
    if (PARTS.has('open')) open = await measureOpen(browser, prepared.file, apiKey, served);
    else {
      // An untimed open warms the server (its first requests) before the views.
      const o = await openConsole(browser, served.current.main, apiKey);
      await o.close();
    }
    if (PARTS.has('views')) rows = await measureViews(browser, served.current.main, apiKey, prepared.file);
    if (PARTS.has('kept')) kept = await measureKept(browser, served.current.main, apiKey, prepared.file);
  } finally {
    await browser.close();
    await served.current.stop();
  }

  const failures = rows.filter((r) => r.failure);
  const over = rows.filter((r) => r.failure === null && (summarize(r.ms).p50 > TARGET_VIEW_MEDIAN_MS || summarize(r.ms).max > TARGET_VIEW_WORST_MS));
  if (over.length) {
    heading('views over the target: the requests of the median run and of a run over 1 s (from the control, ms) and the browser');
    for (const r of over) {
      const sorted = r.runs.filter((x) => x.ms !== undefined).sort((a, b) => a.ms! - b.ms!);
      const med = sorted[Math.floor((sorted.length - 1) / 2)];
      if (!med) continue;
      console.log(`  ${r.view.name} — ${fmtMs(med.ms!)} ms (median run)`);
      printWaterfall(med);
      // The worst run, when it is what puts the view over (a first run that pays for something once).
      const worst = sorted[sorted.length - 1]!;
      if (worst !== med && worst.ms! > TARGET_VIEW_WORST_MS) {
        console.log(`  ${r.view.name} — ${fmtMs(worst.ms!)} ms (worst run, run ${r.runs.indexOf(worst) + 1} of ${r.runs.length})`);
        printWaterfall(worst);
      }
      if (!EXPLAIN) continue;
      const seen = new Set<string>();
      for (const q of med.requests.filter((x) => !x.background)) {
        const key = `${q.method} ${q.url} ${q.body ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const lines = explainRequest(prepared.file, q);
        if (!lines.length) continue;
        console.log(`      ${describeRequest(q)}, in the database alone:`);
        for (const l of lines) console.log(l);
      }
    }
  }

  if (rows.length) {
    heading(`the view matrix (ms from the control to the total shown with nothing in flight; ${RUNS} runs each; targets: median < ${TARGET_VIEW_MEDIAN_MS} ms, worst < ${TARGET_VIEW_WORST_MS} ms)`);
    console.log(
      formatTable(
        [
          { header: 'family' },
          { header: 'view' },
          { header: 'median', align: 'right' },
          { header: 'worst', align: 'right' },
          { header: 'requests', align: 'right' },
          { header: 'total', align: 'right' },
          { header: 'API alone', align: 'right' },
          { header: 'total check' },
          { header: 'target' },
        ],
        rows.map((r) => {
          const s = summarize(r.ms);
          const reqs = summarize(r.runs.map((x) => (x.requests ?? []).filter((q) => !q.background).length));
          return [
            r.view.family,
            r.view.name,
            fmtMs(s.p50),
            fmtMs(s.max),
            String(Math.round(reqs.p50)),
            fmtInt(r.expect.total),
            fmtMs(r.expect.apiMs),
            r.failure ? red('FAIL') : 'equal',
            r.failure ? '' : verdict(s.p50 <= TARGET_VIEW_MEDIAN_MS && s.max <= TARGET_VIEW_WORST_MS),
          ];
        }),
      ),
    );
    const medians = rows.map((r) => summarize(r.ms).p50).filter(Number.isFinite);
    const all = summarize(medians);
    console.log(`  ${rows.length} views: median of medians ${fmtMs(all.p50)} ms, slowest median ${fmtMs(all.max)} ms, slowest run ${fmtMs(Math.max(...rows.flatMap((r) => r.ms)))} ms; ${rows.length - over.length - failures.length} within the target, ${over.length} over, ${failures.length} with a total other than the API's or not shown in time`);
    for (const f of failures) console.log(red(`  !! ${f.view.name}: ${f.failure}`));
  }

  heading('summary (medians over runs)');
  const summaryRows: string[][] = [];
  const row = (name: string, x: Summary, target: string, ok: boolean | null) => summaryRows.push([name, String(x.n), fmtMs(x.p50), fmtMs(x.min), fmtMs(x.max), target, ok === null ? '' : verdict(ok)]);
  if (open) {
    const c = summarize(open.cold.map((o) => o.firstRows));
    const w = summarize(open.warm.map((o) => o.firstRows));
    row('first rows, cold server (opened at the ready line)', c, `< ${TARGET_FIRST_MS} ms`, c.p50 < TARGET_FIRST_MS);
    if (open.coldAfter.length) {
      const a = summarize(open.coldAfter.map((o) => o.firstRows));
      row(`first rows, cold server (opened ${fmtMs(COLD_AFTER_MS)} ms after)`, a, `< ${TARGET_FIRST_MS} ms`, a.p50 < TARGET_FIRST_MS);
    }
    row('first rows, warm server', w, `< ${TARGET_FIRST_MS} ms`, w.p50 < TARGET_FIRST_MS);
    row('opened view complete, cold server', summarize(open.cold.map((o) => o.complete.ms ?? NaN)), '(information)', null);
    row('opened view complete, warm server', summarize(open.warm.map((o) => o.complete.ms ?? NaN)), '(information)', null);
    if (open.baseline.length) {
      const b = summarize(open.baseline.map((o) => o.firstRows));
      row(`first rows, cold server, baseline (${(c.p50 / b.p50).toFixed(2)}x its median)`, b, '(information)', null);
    }
  }
  if (rows.length) {
    const med = summarize(rows.map((r) => summarize(r.ms).p50));
    row(`view matrix (${rows.length} views), medians`, med, `< ${TARGET_VIEW_MEDIAN_MS} ms each`, rows.every((r) => summarize(r.ms).p50 <= TARGET_VIEW_MEDIAN_MS));
    row('view matrix, worst runs', summarize(rows.map((r) => summarize(r.ms).max)), `< ${TARGET_VIEW_WORST_MS} ms each`, rows.every((r) => summarize(r.ms).max <= TARGET_VIEW_WORST_MS));
  }
  if (kept) {
    const fl = summarize(kept.filter);
    const ch = summarize(kept.charts);
    const blank = summarize(kept.scroll.map((s) => s.maxBlank));
    row('filter change re-rendered', fl, `< ${TARGET_FILTER_MS} ms`, fl.p50 < TARGET_FILTER_MS);
    row('chips and charts after a filter change', ch, `< ${TARGET_CHARTS_MS} ms`, ch.p50 < TARGET_CHARTS_MS);
    row(`longest blank while scrolling ${fmtInt(SCROLL_ROWS)} rows`, blank, `<= ${TARGET_BLANK_MS} ms`, blank.p50 <= TARGET_BLANK_MS);
    row('longest frame gap while scrolling', summarize(kept.scroll.map((s) => s.maxGap)), '(information)', null);
  }
  console.log(formatTable([{ header: 'measure' }, { header: 'n', align: 'right' }, { header: 'median ms', align: 'right' }, { header: 'min', align: 'right' }, { header: 'max', align: 'right' }, { header: 'target' }, { header: '' }], summaryRows));
  console.log(bold(`\n  ${failures.length ? red(`${failures.length} view(s) with a total other than the API's or not shown in time`) : 'every total equal to the API\'s'}; total ${(since(started) / 1000).toFixed(0)} s, load average ${loadAvg()}`));
  prepared.cleanup();
  if (failures.length) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
