// Types generated from /openapi.json by openapi-typescript, as a script author generates them, and
// type-checked under `strict`. openapi-typescript needs TypeScript 5's compiler API, which the
// project's own TypeScript does not have: test/tools/openapi-typescript is a folder of its own
// (openapi-typescript, TypeScript 5 and Node's types, pinned by its package-lock.json), installed with `npm ci`
// into node_modules/.cache once per version of that lockfile. The test starts the server (the
// build under `npm test`), fetches the document, generates schema.d.ts from it with the tool's
// CLI and type-checks with the tool's tsc: a script that uses a few operations' request and answer
// types compiles (and, run against the server, is answered as typed), and scripts with one mistake
// each (a misspelt request key, answer field, enum value, path, query key) are each a compile
// error naming the misspelt word. Skipped, with the reason printed, only when npm's registry
// cannot be reached to install the tool; any other failure to install fails the test.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, serve, type ServeProcess } from '../helpers/cli';
import { copyDemoDatabase } from '../helpers/seed';

const TOOL = path.join(ROOT, 'test/tools/openapi-typescript');
/** Generous on a busy 2-core machine: install, generate (about 1.5 MB of types) and two compiler runs. */
const BUDGET_MS = 600_000;

interface Ran {
  code: number | null;
  out: string;
  ms: number;
}

/** Runs a command; resolves with its exit code and its output (stdout and stderr together). */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? BUDGET_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The tool installed (cached per version of its lockfile); or the reason it is not, when npm's
 * registry cannot be reached. A failed install with the registry reachable throws.
 */
async function installTool(): Promise<{ dir: string; ms: number } | { unreachable: string }> {
  const lock = fs.readFileSync(path.join(TOOL, 'package-lock.json'));
  const manifest = fs.readFileSync(path.join(TOOL, 'package.json'));
  const hash = crypto.createHash('sha256').update(manifest).update(lock).digest('hex').slice(0, 16);
  const dir = path.join(ROOT, 'node_modules/.cache/radar-console', `openapi-typescript-${hash}`);
  if (fs.existsSync(path.join(dir, 'node_modules/.package-lock.json'))) return { dir, ms: 0 };
  // Installed beside, then renamed: a run that stops half-way leaves no half-installed tool.
  const part = `${dir}.${process.pid}.part`;
  fs.rmSync(part, { recursive: true, force: true });
  fs.mkdirSync(part, { recursive: true });
  fs.copyFileSync(path.join(TOOL, 'package.json'), path.join(part, 'package.json'));
  fs.copyFileSync(path.join(TOOL, 'package-lock.json'), path.join(part, 'package-lock.json'));
  // A registry that does not answer gives up within minutes, not npm's default of 5 per request.
  const ci = await run(NPM, ['ci', '--prefix', part, '--no-audit', '--no-fund', '--fetch-timeout=60000', '--fetch-retries=1'], { cwd: part, timeoutMs: BUDGET_MS / 2 });
  if (ci.code !== 0) {
    fs.rmSync(part, { recursive: true, force: true });
    const ping = await run(NPM, ['ping'], { cwd: TOOL, timeoutMs: 60_000 });
    const said = (out: string) => out.split('\n').filter((l) => /error/i.test(l)).slice(0, 3).join(' / ');
    if (ping.code !== 0) return { unreachable: `npm's registry cannot be reached (npm ping: ${said(ping.out) || `exit ${ping.code}`}; npm ci: ${said(ci.out)})` };
    throw new Error(`npm ci of ${path.relative(ROOT, TOOL)} failed (exit ${ci.code}) with the registry reachable:\n${ci.out.slice(-3000)}`);
  }
  try {
    fs.renameSync(part, dir);
  } catch (e) {
    // Another run installed the same lockfile meanwhile: theirs is as good.
    fs.rmSync(part, { recursive: true, force: true });
    if (!fs.existsSync(dir)) throw e;
  }
  return { dir, ms: ci.ms };
}

const HEAD = `import type { components, paths } from './schema';

type Search = paths['/cruddy/v2/service_asset_findings/search']['post'];
type SearchBody = Search['requestBody']['content']['application/json'];
type SearchAnswer = Search['responses'][200]['content']['application/json'];
type Finding = SearchAnswer['items'][number];
type IncidentList = paths['/data/public/api/v1/incidents']['get'];
type IncidentQuery = NonNullable<IncidentList['parameters']['query']>;
type IncidentPage = IncidentList['responses'][200]['content']['application/json'];
type Rule = components['schemas']['Rules'];

const url = process.env.RADAR ?? 'http://127.0.0.1:9000';
const headers = { PgrApiKey: process.env.RADAR_API_KEY ?? '', 'Content-Type': 'application/json' };
`;

/** A correct script: the request typed, the answers' fields used as typed (no casts but the JSON parse); prints what it found. */
const GOOD = `${HEAD}
const body: SearchBody = {
  include_fields: ['id', 'title', 'risklevel', 'status'],
  exclude_fields: [],
  filters: [{ field: 'risklevel', filter_type: 'range', value: [0, null] }],
  ordering: [{ field: 'risklevel', direction: 'desc' }],
  virtual_search: { value: '', strict: false },
  extension_params: { chidlrens_all: false, parents_all: false },
  relations: [],
  limit: 5,
  offset: 0,
};
const res = await fetch(\`\${url}/cruddy/v2/service_asset_findings/search\`, { method: 'POST', headers, body: JSON.stringify(body) });
if (!res.ok) throw new Error(\`search answered \${res.status}: \${await res.text()}\`);
const page = (await res.json()) as SearchAnswer;
const first: Finding | undefined = page.items[0];
const titles: (string | null | undefined)[] = page.items.map((i) => i.title);
const levels: number[] = page.items.map((i) => i.risklevel ?? 0);
const open: Finding['status'][] = ['new', 'assigned_customer'];
const query: IncidentQuery = { status: 'in,new,assigned_customer', per_page: 2, order: '-risklevel' };
const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
const listed = await fetch(\`\${url}/data/public/api/v1/incidents?\${params}\`, { headers });
if (!listed.ok) throw new Error(\`incidents answered \${listed.status}: \${await listed.text()}\`);
const incidents = (await listed.json()) as IncidentPage;
const total: number = incidents.total;
const ruleName = (r: Rule): string => r.name;
console.log(JSON.stringify({ searchStatus: res.status, total: page.total, titles, levels, firstId: first?.id, open, listStatus: listed.status, incidents: total, rule: typeof ruleName }));
`;

/** One mistake each, and the word the compiler's message must name. */
const MISTAKES: Record<string, [string, string]> = {
  'request-key': ["const body: SearchBody = { include_fields: [], exclude_fields: [], filters: [], ordering: [], virtual_search: { value: '', strict: false }, extension_params: { parents_all: false }, relations: [], limt: 5, offset: 0 };\nconsole.log(body);", 'limt'],
  'filter-type': ["const f: SearchBody['filters'][number] = { field: 'title', filter_type: 'substring', value: 'ssh' };\nconsole.log(f);", 'substring'],
  'answer-field': ['const show = (a: SearchAnswer) => a.items.map((i) => i.titel);\nconsole.log(show);', 'titel'],
  'enum-value': ["const s: Finding['status'] = 'nwe';\nconsole.log(s);", 'nwe'],
  path: ["type Wrong = paths['/cruddy/v2/service_asset_finding/search'];\nconst w: Wrong | undefined = undefined;\nconsole.log(w);", '/cruddy/v2/service_asset_finding/search'],
  'query-key': ["const q: IncidentQuery = { statuss: 'eq,new' };\nconsole.log(q);", 'statuss'],
  'answer-type': ['const t = (p: IncidentPage): string => p.total;\nconsole.log(t);', "'number' is not assignable to type 'string'"],
};

let srv: ServeProcess | undefined;
let tmp = '';

afterAll(async () => {
  await srv?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('/openapi.json in openapi-typescript', () => {
  it('generates types that type-check under strict: a script using them compiles and runs, each misspelling is a compile error', async (ctx) => {
    const installed = await installTool();
    if ('unreachable' in installed) {
      console.warn(`SKIPPED: openapi-typescript could not be installed: ${installed.unreachable}`);
      ctx.skip(`openapi-typescript not installed: ${installed.unreachable}`);
      return;
    }
    const tool = installed.dir;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-oats-'));
    const db = copyDemoDatabase(path.join(tmp, 'demo.sqlite'));
    srv = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none'], {}, 180_000);
    const { main, apiKey } = srv.ready;
    const doc = await fetch(`${main}/openapi.json`, { headers: { PgrApiKey: apiKey } });
    expect(doc.status).toBe(200);
    fs.writeFileSync(path.join(tmp, 'openapi.json'), await doc.text());

    const gen = await run(process.execPath, [path.join(tool, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'schema.d.ts'], { cwd: tmp });
    expect(gen.code, gen.out).toBe(0);
    const schema = fs.readFileSync(path.join(tmp, 'schema.d.ts'), 'utf8');
    expect(schema).toContain('"/cruddy/v2/service_asset_findings/search"');
    expect(schema).toContain('"/data/public/api/v1/incidents"');

    // One project: the correct script and every mistake, each in a file of its own (modules, so
    // their names do not meet), checked together in one compiler run.
    fs.writeFileSync(path.join(tmp, 'good.ts'), GOOD);
    for (const [name, [code]] of Object.entries(MISTAKES)) fs.writeFileSync(path.join(tmp, `mistake-${name}.ts`), `${HEAD}\n${code}\nexport {};\n`);
    fs.writeFileSync(
      path.join(tmp, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2023', 'DOM'], strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [path.join(tool, 'node_modules/@types')] },
        files: ['schema.d.ts', 'good.ts', ...Object.keys(MISTAKES).map((n) => `mistake-${n}.ts`)],
      }),
    );
    fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const tsc = await run(process.execPath, [path.join(tool, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: tmp });
    console.log(`openapi-typescript: install ${installed.ms} ms (0: cached), generate ${gen.ms} ms (${schema.length} bytes of types), tsc --strict ${tsc.ms} ms`);
    const byFile = new Map<string, string[]>();
    for (const line of tsc.out.split('\n')) {
      const m = /^([\w.-]+)\(\d+,\d+\): error (TS\d+: .*)$/.exec(line.trim());
      if (m) byFile.set(m[1]!, [...(byFile.get(m[1]!) ?? []), m[2]!]);
    }
    // Nothing but the mistakes fails: not the generated types, not the correct script.
    const unexpected = tsc.out.split('\n').filter((l) => /error TS/.test(l) && !/^mistake-/.test(l.trim()));
    expect(unexpected, tsc.out.slice(0, 3000)).toEqual([]);
    expect(tsc.code, tsc.out.slice(0, 3000)).not.toBe(0);
    for (const [name, [, word]] of Object.entries(MISTAKES)) {
      const errors = byFile.get(`mistake-${name}.ts`) ?? [];
      expect(errors.length, `mistake-${name}.ts compiled without an error`).toBeGreaterThan(0);
      expect(errors.join('\n'), `mistake-${name}.ts`).toContain(word);
    }

    // The correct script runs against the server (tsx strips the types) and is answered as typed.
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    const ran = await run(process.execPath, ['--import', tsx, 'good.ts'], { cwd: tmp, env: { RADAR: main, RADAR_API_KEY: apiKey } });
    expect(ran.code, ran.out).toBe(0);
    const found = JSON.parse(ran.out.trim().split('\n').pop()!) as { searchStatus: number; total: number; titles: unknown[]; levels: number[]; listStatus: number; incidents: number };
    expect(found.searchStatus).toBe(200);
    expect(found.listStatus).toBe(200);
    expect(found.total).toBeGreaterThan(0);
    expect(found.titles.length).toBeGreaterThan(0);
    expect(found.levels).toEqual([...found.levels].sort((a, b) => b - a));
    expect(found.incidents).toBeGreaterThanOrEqual(0);
  }, BUDGET_MS);
});
