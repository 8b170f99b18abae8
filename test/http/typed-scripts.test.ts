// Scripts against the typed client, as a script author writes them: the README's TypeScript
// examples exactly as printed, a script that uses the answers' fields without casts, and scripts
// with one mistake each (a misspelt resource, field, filter type, public filter key, operator,
// operation, answer field). A project of its own type-checks them all under `strict` with
// TypeScript (`radar-console` resolved to the client's sources); the mistakes must each be a
// compile error naming the misspelt word, the others compile and run against a new demo server.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const examples = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

const HEAD = "import { createClient, emptySearch } from 'radar-console';\nconst radar = createClient({ url: process.env.RADAR ?? 'http://127.0.0.1:9000', apiKey: process.env.RADAR_API_KEY });\n";

/** One mistake each, and the word the compiler's message must name. */
const MISTAKES: Record<string, [string, string]> = {
  resource: ["await radar.resource('service_aset').get('6f1c1b8e-2f0f-4a44-9a39-000000000000');", 'service_aset'],
  field: ["await radar.resource('rules').search({ ...emptySearch(5), filters: [{ field: 'nme', filter_type: 'substr', value: 'ssh' }] });", 'nme'],
  'filter-type': ["await radar.resource('rules').search({ ...emptySearch(5), filters: [{ field: 'blacklist_entry', filter_type: 'substr', value: 'x' }] });", 'substr'],
  'filter-type-name': ["await radar.resource('rules').search({ ...emptySearch(5), filters: [{ field: 'name', filter_type: 'substring', value: 'x' }] });", 'substring'],
  'filter-value': ["await radar.resource('service_asset_findings').search({ ...emptySearch(5), filters: [{ field: 'status', filter_type: 'equal', value: 'nwe' }] });", 'nwe'],
  'include-field': ["await radar.resource('service_asset_findings').search({ ...emptySearch(5), include_fields: ['id', 'titel'] });", 'titel'],
  'exclude-field': ["await radar.resource('service_asset_findings').search({ ...emptySearch(5), exclude_fields: ['descripton'] });", 'descripton'],
  ordering: ["await radar.resource('service_asset_findings').search({ ...emptySearch(5), ordering: [{ field: 'risk_level', direction: 'desc' }] });", 'risk_level'],
  relation: ["await radar.resource('service_asset_findings').get('6f1c1b8e-2f0f-4a44-9a39-000000000000', { relations: ['asset'] });", 'asset'],
  'public-filter': ["await radar.public.incidents({ statuss: 'eq,new' });", 'statuss'],
  'public-nested-filter': ["await radar.public.incidents({ 'service_asset.nme': 'like,web' });", 'service_asset.nme'],
  operator: ["await radar.public.incidents({ status: 'eqq,new' });", 'eqq,new'],
  operation: ["await radar.call('rules.gett');", 'rules.gett'],
  'answer-field': ["const { objects } = await radar.public.incidents({ per_page: 1 });\nconsole.log(objects[0]?.titel);", 'titel'],
  'asset-field': ["const { objects } = await radar.public.serviceAssets({ per_page: 1 });\nconsole.log(objects[0]?.nam);", 'nam'],
  'finding-filter': ["await radar.public.findings({ titel: 'like,ssh' });", 'titel'],
  'record-field': ["const r = await radar.resource('rules').get('6f1c1b8e-2f0f-4a44-9a39-000000000000');\nconsole.log(r.nmae);", 'nmae'],
};

/** A correct script: every answer's fields used as typed, no casts; prints what it found as JSON. */
const GOOD = `${HEAD}
const { objects, total } = await radar.public.incidents({ status: 'in,new,assigned_customer', 'service_asset.name': 'like,srv', order: '-risklevel', per_page: 3 });
const titles: string[] = objects.map((o) => o.display_title ?? o.id);
const levels: number[] = objects.map((o) => o.risklevel);
const assets: (string | null)[] = objects.map((o) => o.service_asset?.name ?? null);
const page = await radar.resource('service_asset_findings').search({
  ...emptySearch(5),
  include_fields: ['id', 'title', 'risklevel', 'status'],
  filters: [
    { field: 'risklevel', filter_type: 'range', value: [6, null] },
    { field: 'status', filter_type: 'intersection', value: ['new', 'assigned_customer'] },
    { field: 'service_asset', filter_type: 'related', value: [], negation: true },
  ],
  ordering: [{ field: 'status_rank', direction: 'asc' }, { field: 'risklevel', direction: 'desc' }],
});
const statuses: string[] = page.items.map((i) => i.status);
const first = page.items[0];
const record = first ? await radar.resource('service_asset_findings').get(first.id, { relations: ['service_asset', 'finding'] }) : undefined;
const assetName: string | null | undefined = record?.service_asset?.name;
const findingType: string | null | undefined = record?.finding?.type;
const assetPage = await radar.public.serviceAssets({ name: 'like,srv', order: 'name', per_page: 3 });
const assetNames: string[] = assetPage.objects.map((a) => a.name);
const assetGroups: (string | null)[] = assetPage.objects.map((a) => a.responsible_group_name);
const findingPage = await radar.public.findings({ type: 'isnotnull', per_page: 3 });
const findingTitles: string[] = findingPage.objects.map((f) => f.title);
const findingTypes: (string | null)[] = findingPage.objects.map((f) => f.type);
const meta = await radar.call('rules.meta');
const metaFields: string[] = meta.fields.map((f) => f.name);
const [main] = await radar.instances();
const routed = main ? await radar.instance(main.id).call('public.findings.list', { query: { per_page: 1 } }) : undefined;
const envelope = await radar.fanOut('GET', '/tenancy/instance/list');
// The routing on the main origin, by its operation: the routed path is one parameter.
const viaRoute = main ? await radar.call('console.route.get', { params: { path: 'data/public/api/v1/findings' }, query: { per_page: 1 }, headers: { PgrSelectedInstance: main.id } }) : [];
const routeStatus: number | undefined = viaRoute[0]?.status_code;
console.log(JSON.stringify({ total, titles, levels, assets, statuses, pageTotal: page.total, assetName, findingType, metaFields, assetNames, assetGroups, assetTotal: assetPage.total, findingTitles, findingTypes, routedTotal: routed?.total, instances: envelope.map((e) => e.name), routeStatus }));
`;

let tmp = '';
let srv: TestServer;
let diagnostics = new Map<string, string[]>();

/** Runs a script with tsx (the server answers from this process: the script runs beside it, not blocking it). */
function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, file], { cwd: tmp, env: { ...process.env, RADAR: srv.main, RADAR_API_KEY: srv.apiKey } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-typed-scripts-'));
  fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'radar-scripts', private: true, type: 'module' }));
  const files: string[] = [];
  const write = (name: string, code: string) => {
    fs.writeFileSync(path.join(tmp, name), code);
    files.push(name);
  };
  examples.forEach((code, i) => write(`readme-${i + 1}.ts`, code));
  write('good.ts', GOOD);
  for (const [name, [code]] of Object.entries(MISTAKES)) write(`mistake-${name}.ts`, `${HEAD}${code}\n`);
  fs.writeFileSync(
    path.join(tmp, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['es2023', 'dom'],
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
        skipLibCheck: true,
        noEmit: true,
        paths: { 'radar-console': [path.join(ROOT, 'src-shared/client/index.ts')] },
      },
      files,
    }),
  );
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: tmp, encoding: 'utf8', timeout: 300_000 });
  diagnostics = new Map(files.map((f) => [f, []]));
  for (const line of `${tsc.stdout}\n${tsc.stderr}`.split('\n')) {
    const m = /^([^(\s]+)\(\d+,\d+\): error (.*)$/.exec(line.trim());
    if (m) diagnostics.get(path.basename(m[1]!))?.push(m[2]!);
    else if (/error TS/.test(line)) throw new Error(`tsc: ${line}`);
  }
  srv = await startTestServer({ seed: 'demo' });
}, 420_000);

afterAll(async () => {
  await srv?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the README's TypeScript examples, as printed", () => {
  it('there is one at least', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  examples.forEach((_, i) => {
    it(`example ${i + 1} type-checks under strict and runs against a new demo server`, async () => {
      expect(diagnostics.get(`readme-${i + 1}.ts`)).toEqual([]);
      const r = await run(`readme-${i + 1}.ts`);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      if (i === 0) {
        expect(r.stdout).toMatch(/^\d+ open; the riskiest: #\d+ .+ on .+$/m);
        expect(r.stdout).toMatch(/^rule Запрещено: TeamViewer: teamviewer$/m);
        expect(r.stdout).toMatch(/^incidents have \d+ fields$/m);
        expect(r.stdout).toMatch(/^\d+ finding types in Main$/m);
        expect(r.stdout).toMatch(/^Main: HTTP 200$/m);
        expect(r.stdout).toMatch(/^404 not found$/m);
      }
    }, 120_000);
  });
});

describe('a script typed by the contract', () => {
  it('uses the answers’ fields without casts: compiles under strict and runs', async () => {
    expect(diagnostics.get('good.ts')).toEqual([]);
    const r = await run('good.ts');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out.total).toBeGreaterThan(0);
    expect((out.levels as number[]).length).toBeGreaterThan(0);
    expect(out.pageTotal).toBeGreaterThan(0);
    for (const s of out.statuses as string[]) expect(['new', 'assigned_customer']).toContain(s);
    expect(typeof out.assetName).toBe('string');
    expect(typeof out.findingType).toBe('string');
    const assetNames = out.assetNames as string[];
    expect(assetNames.length).toBeGreaterThan(0);
    for (const n of assetNames) expect(n.toLowerCase()).toContain('srv');
    expect(out.assetTotal).toBeGreaterThanOrEqual(assetNames.length);
    expect((out.findingTitles as string[]).length).toBeGreaterThan(0);
    for (const t of out.findingTypes as (string | null)[]) expect(typeof t).toBe('string');
    expect(out.metaFields).toEqual(expect.arrayContaining(['id', 'name', 'query', 'blacklist_entry']));
    expect(out.routedTotal).toBeGreaterThan(0);
    expect(out.instances).toEqual(['Main']);
    expect(out.routeStatus).toBe(200);
  }, 120_000);

  it.each(Object.entries(MISTAKES))('a misspelt %s is a compile error naming it', (name, [, word]) => {
    const errors = diagnostics.get(`mistake-${name}.ts`)!;
    expect(errors.length, `mistake-${name}.ts compiled`).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain(word);
  });
});
