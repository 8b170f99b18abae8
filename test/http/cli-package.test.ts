// The package as users get it: `npm pack` of a clean copy of the sources with the build in it,
// the tarball installed into an empty project, and the command run from there as the installed
// bin, through `npx` and through `npm exec`. The build is the one `npm test` has just made
// (RADAR_CLI_BUILT=1: out/ copied in, packed with --ignore-scripts rather than building again in
// prepack); run alone, the copy is built with `npm run build` first, as prepack would. The
// install reuses the npm cache and skips install scripts; better-sqlite3's compiled addon is
// copied from this checkout (the same version), so the test does not spend 90 s compiling
// SQLite again.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../helpers/cli';

// npx and a server from the installed package; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-pack-'));
const app = path.join(tmp, 'app');
let tarball = '';
/** What `npm install` of the tarball printed on stderr (its warnings). */
let installWarnings = '';

/** The environment of a user's shell: nothing of the `npm test` that runs this file. */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(lifecycle|package|command)|^INIT_CWD$/.test(k))) as NodeJS.ProcessEnv;

function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 240_000 });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function run(cmd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  // A clean copy of the sources (tracked and new files, nothing ignored: no out/), with this
  // checkout's dependencies, packed the way `npm publish` would pack it.
  const src = path.join(tmp, 'src');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(ROOT, f))) continue; // deleted in the work tree
    fs.mkdirSync(path.dirname(path.join(src, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(src, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(src, 'node_modules'), 'dir');
  expect(fs.existsSync(path.join(src, 'out'))).toBe(false);
  if (process.env.RADAR_CLI_BUILT === '1') fs.cpSync(path.join(ROOT, 'out'), path.join(src, 'out'), { recursive: true });
  else npm(['run', 'build'], src);
  npm(['pack', '--ignore-scripts', '--pack-destination', tmp], src);
  tarball = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'))!;
  expect(tarball).toMatch(/^radar-console-.*\.tgz$/);

  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'uses-radar-console', version: '1.0.0', private: true }));
  const install = spawnSync('npm', ['install', path.join(tmp, tarball), '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: app, env, encoding: 'utf8', timeout: 240_000 });
  if (install.status !== 0) throw new Error(`npm install exited with ${install.status}:\n${install.stdout}\n${install.stderr}`);
  installWarnings = install.stderr;
  const ours = path.join(ROOT, 'node_modules/better-sqlite3');
  const theirs = path.join(app, 'node_modules/better-sqlite3');
  const version = (dir: string) => (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  expect(version(theirs), 'the installed better-sqlite3 is the version compiled here').toBe(version(ours));
  fs.mkdirSync(path.join(theirs, 'build/Release'), { recursive: true });
  fs.copyFileSync(path.join(ours, 'build/Release/better_sqlite3.node'), path.join(theirs, 'build/Release/better_sqlite3.node'));
}, 420_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the packed package', () => {
  it('installs on this Node without an engine warning from its dependency tree', () => {
    expect(installWarnings.split('\n').filter((l) => /EBADENGINE|engine/i.test(l))).toEqual([]);
    // The versions chosen for Node 20, as a project installing the package gets them.
    const version = (name: string) => (JSON.parse(fs.readFileSync(path.join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    expect(version('cookie')).toMatch(/^1\./);
  });

  it("its main entry is the typed client: `import 'radar-console'` and `require('radar-console')` work in a plain Node project, without Electron", () => {
    fs.writeFileSync(path.join(app, 'main-entry.mjs'), "import { createClient, emptySearch } from 'radar-console';\nconsole.log(typeof createClient, emptySearch(3).limit);\n");
    const esm = spawnSync(process.execPath, ['main-entry.mjs'], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
    expect(esm.status, esm.stderr).toBe(0);
    expect(esm.stdout.trim()).toBe('function 3');
    const cjs = spawnSync(process.execPath, ['-e', "const r = require('radar-console'); console.log(typeof r.createClient, typeof r.RadarApiError)"], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
    expect(cjs.status, cjs.stderr).toBe(0);
    expect(cjs.stdout.trim()).toBe('function function');
    expect(fs.existsSync(path.join(app, 'node_modules/electron'))).toBe(false);
  });

  it('holds the command and the built code, and nothing of the sources or tests', () => {
    const listed = execFileSync('tar', ['tzf', path.join(tmp, tarball)], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const f of ['package/bin/radar-console.js', 'package/out/main/cli.js', 'package/out/main/client.js', 'package/out/types/src-shared/client/index.d.ts', 'package/out/renderer/index.html', 'package/README.md', 'package/package.json']) expect(listed).toContain(f);
    expect(listed.filter((f) => /^package\/(src-|test\/|bench\/|node_modules\/)/.test(f))).toEqual([]);
  });

  it.each([
    ['the installed bin', () => run(path.join(app, 'node_modules/.bin/radar-console'), ['--help'])],
    ['npx', () => run('npx', ['radar-console', '--help'])],
    ['npm exec', () => run('npm', ['exec', '--', 'radar-console', '--help'])],
  ])('%s prints the help and exits 0', (_, call) => {
    const r = call();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: radar-console [options] [command]');
    for (const c of ['serve', 'token', 'api', 'instance', 'import', 'export', 'snapshot']) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
  });

  it('exports the typed client with its types: a TypeScript script of the installing project type-checks against them', () => {
    const script = [
      "import { createClient, emptySearch, RadarApiError, type ApiRecord, type RecordOf } from 'radar-console';",
      "const radar = createClient({ url: 'http://127.0.0.1:9000', apiKey: 'key' });",
      'export async function main(): Promise<number> {',
      "  const page = await radar.public.incidents({ status: 'eq,new' });",
      '  const total: number = page.total;',
      "  const rec: ApiRecord = await radar.resource('rules').get('6f1c1b8e-2f0f-4a44-9a39-000000000000');",
      "  await radar.public.updateStatus(rec.id, 'closed');",
      "  const rules = await radar.resource('rules').search({ ...emptySearch(5), filters: [{ field: 'name', filter_type: 'substr', value: 'ssh' }] });",
      "  const rule: RecordOf<'rules'> | undefined = rules.items[0];",
      '  const title: string | null | undefined = page.objects[0]?.display_title;',
      '  if (rule && title) console.log(rule.name, title);',
      '  return total + (new RadarApiError(404, "not found", null).status);',
      '}',
    ].join('\n');
    fs.writeFileSync(path.join(app, 'script.ts'), script);
    // The same script with a wrong status, a misspelt field and a misspelt public filter, checked
    // in the same run: type errors, so the types are the contract's, not `any`.
    fs.writeFileSync(path.join(app, 'wrong.ts'), script.replace("'closed'", "'done'").replace("field: 'name'", "field: 'nme'").replace("status: 'eq,new'", "statuss: 'eq,new'"));
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['script.ts', 'wrong.ts'] }),
    );
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app, env, encoding: 'utf8', timeout: 120_000 });
    const errors = tsc.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(tsc.status, tsc.stdout + tsc.stderr).not.toBe(0);
    expect(errors.filter((l) => !l.startsWith('wrong.ts(')), 'the right script type-checks').toEqual([]);
    for (const word of ['"done"', '"nme"', 'statuss']) expect(errors.join('\n')).toContain(word);
  }, 240_000);

  it('npx radar-console serve --help lists the flags; a bad flag exits 2', () => {
    const help = run('npx', ['radar-console', 'serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--routing-port <n>');
    const bad = run('npx', ['radar-console', 'serve', '--port', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("radar-console: option '--port <n>' argument 'x' is invalid");
  });

  it('serve runs from the installed package: the API answers and the console page is served', async () => {
    const db = path.join(app, 'data', 'radar.sqlite');
    const child = spawn(path.join(app, 'node_modules/.bin/radar-console'), ['serve', '--db', db, '--port', '0', '--routing-port', '0', '--seed', 'demo'], { cwd: app, env });
    try {
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${err}`)), 60_000);
        child.stdout.on('data', (d) => {
          out += d;
          const l = out.split('\n').find((x) => x.startsWith('radar-console ready '));
          if (l) {
            clearTimeout(timer);
            resolve(l);
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}; stderr: ${err}`)));
      });
      const ready = JSON.parse(line.slice('radar-console ready '.length)) as { main: string; apiKey: string };
      const list = await fetch(`${ready.main}/data/public/api/v1/incidents?per_page=1`, { headers: { PgrApiKey: ready.apiKey } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { total: number }).total).toBeGreaterThan(0);
      const page = await fetch(`${ready.main}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      const bin = path.join(app, 'node_modules/.bin/radar-console');
      const api = run(bin, ['api', '/tenancy/instance/list', '--db', db]);
      expect(api.code, api.stderr).toBe(0);
      expect(JSON.parse(api.stdout)[0]).toMatchObject({ name: 'Main', url: ready.main });
      // The compliance commands (their code is loaded on use: it must be in the package); 5: violations found.
      const check = run(bin, ['compliance', 'check', '--rule-set', 'Контроль ПО на рабочих станциях', '--db', db, '--json']);
      expect(check.code, check.stderr).toBe(5);
      expect(JSON.parse(check.stdout).summary.violated).toBeGreaterThan(0);
      const match = run(bin, ['compliance', 'match', 'teamviewer | anydesk', '--db', db, '--json']);
      expect(match.code, match.stderr).toBe(0);
      expect(JSON.parse(match.stdout)).toMatchObject({ tsquery: "'teamviewer' | 'anydesk'", total: 2 });
      // export and import (the import runs on a worker thread: its code must be in the package)
      const file = path.join(app, 'new.ndjson');
      const exported = run(bin, ['export', '--db', db, '--resource', 'incidents', '--query', 'status=in,new', '--with-references', '--format', 'ndjson', '--out', file]);
      expect(exported.code, exported.stderr).toBe(0);
      const imported = run(bin, ['import', '--db', path.join(app, 'review.sqlite'), file]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout).resources.service_asset_findings.inserted).toBeGreaterThan(0);
      // A script of the installing project imports the typed client, as the README shows.
      fs.writeFileSync(
        path.join(app, 'use-client.mjs'),
        [
          "import { createClient } from 'radar-console/client';",
          'const radar = createClient({ url: process.env.RADAR_URL, apiKey: process.env.RADAR_API_KEY });',
          "const page = await radar.public.incidents({ status: 'in,new,assigned_customer', order: '-risklevel', per_page: 3 });",
          'console.log(JSON.stringify({ total: page.total, first: page.objects[0].status }));',
        ].join('\n'),
      );
      const used = spawnSync(process.execPath, ['use-client.mjs'], { cwd: app, env: { ...env, RADAR_URL: ready.main, RADAR_API_KEY: ready.apiKey }, encoding: 'utf8', timeout: 60_000 });
      expect(used.status, used.stderr).toBe(0);
      const result = JSON.parse(used.stdout) as { total: number; first: string };
      expect(result.total).toBeGreaterThan(0);
      expect(['new', 'assigned_customer']).toContain(result.first);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
