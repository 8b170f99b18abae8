// The README's cookbook, run as printed: every fenced block marked `cookbook=<name>` is run
// (shell blocks with bash, JavaScript blocks as an ES module with node) against a server started
// the way the README's set-up block says, in the folder holding its database, and each block's
// output shape is checked. A block without a check here, or a check without its block, fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliArgs, ROOT, serve, type ServeProcess } from '../helpers/cli';
import { copyDemoDatabase } from '../helpers/seed';

interface Block {
  name: string;
  lang: string;
  code: string;
}

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const section = README.slice(README.indexOf('## Cookbook for scripts'), README.indexOf('\n## ', README.indexOf('## Cookbook for scripts') + 1));
const fence = /^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm;
const blocks: Block[] = [];
let setup = '';
for (const m of section.matchAll(fence)) {
  const name = /cookbook=([\w-]+)/.exec(m[2]!)?.[1];
  if (name) blocks.push({ name, lang: m[1]!, code: m[3]! });
  else if (!setup) setup = m[3]!;
}

// Each test starts command-line processes; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-cookbook-'));
const work = path.join(tmp, 'work');
let server: ServeProcess;
let env: NodeJS.ProcessEnv;

/**
 * A project with the package installed, as the cookbook's set-up assumes: its command in
 * node_modules/.bin, where `npx radar-console` finds it (not on PATH), run from the build once
 * `npm test` has made it, else from the sources through tsx (the packed command is tested in
 * cli-package.test.ts).
 */
function installLocally(): void {
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'radar-scripts', version: '1.0.0', private: true, dependencies: { 'radar-console': '*' } }));
  const bin = path.join(work, 'node_modules/.bin');
  fs.mkdirSync(bin, { recursive: true });
  const args = cliArgs([]).map((a) => (a === 'tsx' ? pathToFileURL(require.resolve('tsx')).href : a));
  fs.writeFileSync(path.join(bin, 'radar-console'), `#!/bin/sh\nexec ${[process.execPath, ...args].map((a) => `"${a}"`).join(' ')} "$@"\n`, { mode: 0o755 });
}

function runBlock(b: Block): { code: number | null; stdout: string; stderr: string } {
  let r;
  if (b.lang === 'sh') r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', b.code], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
  else if (b.lang === 'js') {
    const file = path.join(work, `${b.name}.mjs`);
    fs.writeFileSync(file, b.code);
    r = spawnSync(process.execPath, [file], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
  } else throw new Error(`cookbook block ${b.name}: no runner for ${b.lang}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const api = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(url, { method, headers: { PgrApiKey: env.RADAR_API_KEY!, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as any;
};

const json = (text: string): any => JSON.parse(text);
const RISKY = new Set(['new', 'assigned_customer']);

/** What each example must print. */
const checks: Record<string, (out: string) => Promise<void> | void> = {
  'list-incidents': (out) => {
    const { objects, total } = json(out);
    expect(objects.length).toBeGreaterThan(0);
    expect(total).toBeGreaterThanOrEqual(objects.length);
    for (const o of objects) {
      expect(RISKY.has(o.status), o.status).toBe(true);
      expect(o.risklevel).toBeGreaterThan(7);
      expect(o.service_asset).toMatchObject({ id: o.service_asset_id });
    }
    const levels = objects.map((o: { risklevel: number }) => o.risklevel);
    expect(levels).toEqual([...levels].sort((a, b) => b - a));
  },
  'page-all': async (out) => {
    const { total } = await api('GET', `${env.RADAR}/data/public/api/v1/incidents?per_page=1`);
    expect(total).toBeGreaterThan(100);
    expect(out.trim()).toBe(`fetched ${total} incidents`);
  },
  'change-status': async (out) => {
    expect(out.trim(), 'both updates answer {}').toMatch(/^\{\}\{\} [0-9a-f-]{36}$/);
    const id = out.trim().split(' ')[1]!;
    const inc = await api('GET', `${env.RADAR}/data/public/api/v1/incidents?id=eq,${id}`);
    expect(inc.objects[0]).toMatchObject({ id, status: 'assigned_customer', risklevel: 9.1, risk: 'critical' });
    expect(inc.objects[0].acknowledged_at).not.toBeNull();
  },
  'create-incident': async (out) => {
    const envelope = json(out);
    expect(envelope).toEqual([expect.objectContaining({ name: 'Main', error: 0, status_code: 200, data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } })]);
    const inc = await api('GET', `${env.RADAR}/data/public/api/v1/incidents?id=eq,${envelope[0].data.id}`);
    expect(inc.objects[0]).toMatchObject({ title: 'Подбор пароля RDP — srv-db-01', status: 'new', risklevel: 7.8, risk: 'high' });
  },
  'search-v2': (out) => {
    const { items, total } = json(out);
    expect(items.length).toBeGreaterThan(0);
    expect(total).toBeGreaterThanOrEqual(items.length);
    for (const i of items) {
      expect(i.title.toLowerCase()).toContain('подбор пароля');
      expect(i.risklevel).toBeGreaterThanOrEqual(6);
      expect(Object.keys(i).sort()).toEqual(['id', 'risklevel', 'service_asset', 'status', 'title']);
      expect(i.service_asset).toMatchObject({ id: expect.any(String), name: expect.any(String) });
    }
  },
  'create-rule': (out) => {
    expect(json(out)).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Запрещённые средства удалённого доступа', query: 'anydesk | teamviewer | ammyy', blacklist_entry: true });
  },
  'fan-out': (out) => {
    const list = json(out);
    expect(list.map((e: { name: string }) => e.name)).toEqual(['Main', 'Филиал']);
    for (const e of list) {
      expect(e).toMatchObject({ error: 0, status_code: 200, data: { objects: expect.any(Array), total: expect.any(Number) } });
      for (const o of e.data.objects) expect(o.status).toBe('new');
    }
    expect(list[0].data.objects.length).toBe(5);
  },
  token: (out) => {
    expect(json(out)).toMatchObject({ objects: [expect.objectContaining({ id: expect.any(String) })], total: expect.any(Number) });
  },
  'cli-api': (out) => {
    const [list, groups] = out.trim().split('\n').map((l) => json(l));
    expect(list.objects).toHaveLength(2);
    for (const o of list.objects) expect(o.status).toBe('new');
    expect(groups.items.length).toBeGreaterThan(0);
    for (const g of groups.items) expect(g).toEqual({ value: expect.any(String), count: expect.any(Number) });
  },
  'export-import': (out) => {
    const summary = json(out);
    expect(summary.target).toBe(path.join(work, 'review.sqlite'));
    expect(summary.resources.service_asset_findings.inserted).toBeGreaterThan(0);
    expect(summary.resources.findings.inserted).toBeGreaterThan(0);
    expect(summary.resources.service_assets.inserted).toBeGreaterThan(0);
  },
};

beforeAll(async () => {
  // The README's set-up block gives the key and the database; the ports are free ones here.
  const key = /export RADAR_API_KEY=(\S+)/.exec(setup)?.[1];
  const db = /radar-console serve --db (\S+)/.exec(setup)?.[1];
  expect(key, 'the set-up block exports RADAR_API_KEY').toBeTruthy();
  expect(db, 'the set-up block serves --db FILE').toBeTruthy();
  expect(setup, 'the set-up runs the installed command through npx').toContain('npx radar-console serve');
  fs.mkdirSync(work);
  installLocally();
  // A new database is seeded with the demo data on first start: the run's seeded copy is the same.
  copyDemoDatabase(path.join(work, db!));
  server = await serve(['--db', path.join(work, db!), '--port', '0', '--routing-port', '0'], { RADAR_API_KEY: key });
  // A user's shell: nothing of the `npm test` running this file, and no radar-console on PATH.
  const shell = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_|^INIT_CWD$/.test(k)));
  env = { ...shell, RADAR_API_KEY: key, RADAR: server.ready.main, RADAR_ROUTING: server.ready.routing };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('README cookbook', () => {
  it('every example has a check and every check an example', () => {
    expect(blocks.map((b) => b.name).sort()).toEqual(Object.keys(checks).sort());
  });

  // In the README's order: later examples may rely on earlier ones (a changed status).
  for (const b of blocks) {
    it(`${b.name}, as printed`, async () => {
      const r = runBlock(b);
      expect(r.code, `${b.name} exited ${r.code}\n${r.stderr}`).toBe(0);
      await checks[b.name]!(r.stdout);
    });
  }
});
