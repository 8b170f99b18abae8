// The README's shell script for sync exit codes (the block marked `example=sync-exit-codes`), run
// as printed with sh from a project that installed the package, against a snapshot of a real
// origin: nothing to push (exit 0, silent), a conflict left (the conflict line), an unreachable
// origin (the script stops with 1).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { cliArgs, ROOT, runCli } from '../helpers/cli';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const script = /^```sh example=sync-exit-codes\n([\s\S]*?)^```$/m.exec(README)?.[1];

const I = getResource('service_asset_findings');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-readme-sync-'));
const work = path.join(tmp, 'work');
let origin: TestServer;
let snap: string;
let env: NodeJS.ProcessEnv;

vi.setConfig({ testTimeout: 120_000 });

function offline(fn: (store: Store) => void): void {
  const { db } = openDatabase(snap, { create: false });
  try {
    fn(new Store(db));
  } finally {
    db.close();
  }
}

/** Runs the script with sh; asynchronously, since the origin answers from this process. */
function run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script!], { cwd: work, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const pushed = () => JSON.parse(fs.readFileSync(path.join(work, 'push.json'), 'utf8'));

beforeAll(async () => {
  expect(script, 'the README has the sync exit-code script').toBeTruthy();
  fs.mkdirSync(work, { recursive: true });
  // A project with the package installed: `npx radar-console` finds node_modules/.bin.
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'radar-scripts', version: '1.0.0', private: true, dependencies: { 'radar-console': '*' } }));
  const bin = path.join(work, 'node_modules/.bin');
  fs.mkdirSync(bin, { recursive: true });
  const args = cliArgs([]).map((a) => (a === 'tsx' ? pathToFileURL(require.resolve('tsx')).href : a));
  fs.writeFileSync(path.join(bin, 'radar-console'), `#!/bin/sh\nexec ${[process.execPath, ...args].map((a) => `"${a}"`).join(' ')} "$@"\n`, { mode: 0o755 });
  const shell = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_|^INIT_CWD$/.test(k)));
  env = { ...shell, RADAR_API_KEY: TEST_KEY };

  origin = await startTestServer({ seed: 'demo' });
  const db = /--db (\S+)/.exec(script!)?.[1];
  expect(db, 'the script names its snapshot with --db').toBeTruthy();
  snap = path.join(work, db!);
  const made = await runCli(['snapshot', '--url', origin.main, '--api-key', TEST_KEY, '--out', snap]);
  expect(made.code, made.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await origin?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('README: the sync exit-code script, as printed', () => {
  it('uses the installed command, not a bare one', () => {
    for (const line of script!.split('\n').filter((l) => l.includes('radar-console'))) expect(line).toMatch(/npx radar-console/);
  });

  it('a change that goes through: exit 0, nothing printed, the summary in push.json', async () => {
    const [a] = (await origin.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }], limit: 1 }))).body.items;
    offline((s) => s.update(I, { id: a.id, internal_note: 'проверено офлайн' }));
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(pushed()).toMatchObject({ pushed: 1, conflicts: 0, failed: 0 });
    expect((await origin.call('GET', `/cruddy/v2/service_asset_findings/${a.id}?relations=`)).body.internal_note).toBe('проверено офлайн');
  });

  it('a conflict left: the script names it and goes on', async () => {
    const [, b] = (await origin.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }], limit: 2 }))).body.items;
    offline((s) => s.update(I, { id: b.id, client_note: 'офлайн' }));
    await origin.call('PUT', '/cruddy/v2/service_asset_findings/update', { id: b.id, client_note: 'на платформе' });
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('conflicts: resolve them in the console or with sync resolve');
    expect(pushed()).toMatchObject({ conflicts: 1 });
  });

  it('an origin that does not answer: the script exits 1, the change kept', async () => {
    const [, , c] = (await origin.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }], limit: 3 }))).body.items;
    offline((s) => {
      s.update(I, { id: c.id, internal_note: 'ждёт связи' });
      s.db.prepare('UPDATE sync_origin SET url = ?').run('http://127.0.0.1:1');
    });
    const r = await run();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unreachable: .*nothing is lost/);
    const st = await runCli(['sync', 'status', '--db', snap, '--json']);
    expect(JSON.parse(st.stdout).counts).toMatchObject({ pending: 1, conflict: 1 });
  });
});
