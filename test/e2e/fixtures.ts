// A real `serve` process per spec file (the built CLI, as `npm run serve` runs it), over its own
// copy of the seeded demo database: a spec sees only what it did itself, whichever specs ran
// before it, in whichever order, on whichever worker.
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyDemoDatabase } from '../helpers/seed';

export interface Served {
  main: string;
  routing: string;
  apiKey: string;
  db: string;
}

/**
 * `db`: a database made beforehand; by default a copy of the seeded demo database (the one
 * `serve` makes on a new file), or a new file when `extra` names a `--seed`. `env`: added to the
 * server process's environment.
 */
export async function startServe(extra: string[] = [], db?: string, env?: NodeJS.ProcessEnv): Promise<Served & { stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-e2e-'));
  const file = db ?? path.join(dir, 'e2e.sqlite');
  if (db === undefined && !extra.includes('--seed')) copyDemoDatabase(file);
  const apiKey = crypto.randomBytes(16).toString('hex');
  const child = spawn(
    process.execPath,
    ['out/main/cli.js', 'serve', '--db', file, '--port', '0', '--routing-port', '0', '--api-key', apiKey, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'], env: env ? { ...process.env, ...env } : process.env },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  let ready: Served;
  try {
    ready = await new Promise<Served>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not get ready: ${err}`)), 60_000);
      child.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('radar-console ready '));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line.slice('radar-console ready '.length)) as Served);
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
  } catch (e) {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    ...ready,
    async stop() {
      await new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The server of the spec file a worker is running: started for its first test, stopped when the worker moves on. */
class FileServer {
  private file: string | undefined;
  private server: Promise<Served & { stop(): Promise<void> }> | undefined;

  async for(file: string): Promise<Served> {
    await this.leave(file);
    if (!this.server) {
      this.file = file;
      this.server = startServe();
    }
    return this.server;
  }

  /** Stops the server unless it is `file`'s. */
  async leave(file: string): Promise<void> {
    if (this.file !== file) await this.stop();
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    this.file = undefined;
    if (s) await (await s.catch(() => undefined))?.stop();
  }
}

export const test = base.extend<{ served: Served; leaveOtherFiles: undefined }, { fileServer: FileServer }>({
  fileServer: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures this one needs from the pattern (none)
    async ({}, use) => {
      const f = new FileServer();
      await use(f);
      await f.stop();
    },
    { scope: 'worker' },
  ],
  served: async ({ fileServer }, use, testInfo) => {
    await use(await fileServer.for(testInfo.file));
  },
  // The previous file's server stops when the worker moves on, whether this test asks for one or not.
  leaveOtherFiles: [
    async ({ fileServer }, use, testInfo) => {
      await fileServer.leave(testInfo.file);
      await use(undefined);
    },
    { auto: true },
  ],
});

export { expect } from '@playwright/test';

/** The API as a script would call it, for checking what the page shows. */
export async function api<T>(s: Served, method: string, urlPath: string, body?: unknown): Promise<T> {
  const r = await fetch(s.main + urlPath, {
    method,
    headers: { PgrApiKey: s.apiKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await r.json()) as T;
}

/** Calls an instance through the routing port of the main origin (PgrSelectedInstance); answers its data. */
export async function routed<T>(s: Served, id: string, method: string, urlPath: string, body?: unknown): Promise<T> {
  const r = await fetch(`${s.main}/console/v1/route${urlPath}`, {
    method,
    headers: { PgrApiKey: s.apiKey, PgrSelectedInstance: id, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const els = (await r.json()) as { data: T; error: number }[];
  expect(els[0]!.error).toBe(0);
  return els[0]!.data;
}

/** The incident table's rows that hold a loaded record (placeholders excluded). */
export function loadedRows(page: Page, name = 'Incidents') {
  return page.getByRole('table', { name, exact: true }).locator('tbody tr[data-loaded="true"]');
}

/** Opens the console signed in (the key in the fragment, as `serve` prints it). */
export async function openConsole(page: Page, s: Served, hash = ''): Promise<void> {
  await page.goto(`${s.main}/#key=${s.apiKey}${hash ? `&${hash.replace(/^#/, '')}` : ''}`);
}

export interface Incident {
  id: string;
  display_id: number;
  title: string;
  status: string;
  risklevel: number;
  risk: string;
  created_at: string;
  service_asset_id: string | null;
  finding_id: string | null;
}

/** Incidents through the v2 search, as a script would read them. */
export async function incidents(s: Served, filters: unknown[] = [], extra: Record<string, unknown> = {}): Promise<{ items: Incident[]; total: number }> {
  return api(s, 'POST', '/cruddy/v2/service_asset_findings/search', {
    include_fields: [],
    exclude_fields: [],
    filters,
    ordering: [{ field: 'created_at', direction: 'desc' }],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 10000,
    offset: 0,
    ...extra,
  });
}

/** Tag of the tests whose screenshots are there to be looked at (the looks of the console). */
export const LOOK = '@look';

/**
 * A screenshot kept in the test's output folder (test-results/) and attached to the report: in
 * the tests tagged LOOK, and in every test when RADAR_SCREENSHOTS=1. (A failing test keeps a
 * screenshot of its end in any case: playwright.config.ts.)
 */
export async function snap(page: Page, testInfo: TestInfo, name: string, fullPage = false): Promise<void> {
  if (!testInfo.tags.includes(LOOK) && process.env.RADAR_SCREENSHOTS !== '1') return;
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** The header on one line, nothing overflowing it, its last control inside the window. */
export async function expectHeaderFits(page: Page): Promise<void> {
  const header = await page.evaluate(() => {
    const bar = document.querySelector('.topbar')!;
    const last = [...bar.children].at(-1)!.getBoundingClientRect();
    return { height: bar.getBoundingClientRect().height, overflow: bar.scrollWidth - bar.clientWidth, right: last.right, width: window.innerWidth };
  });
  expect(header.height).toBeLessThanOrEqual(43);
  expect(header.overflow).toBeLessThanOrEqual(0);
  expect(header.right).toBeLessThanOrEqual(header.width);
}
