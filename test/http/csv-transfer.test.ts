// CSV both ways over the real interfaces: the built command line as a user runs it, and the
// console's endpoints on a real socket. Exports with field names and with the console's column
// names in English and Russian import back equal, record for record; the same files opened and
// saved by a spreadsheet (LibreOffice Calc: `;`, Windows-1251) import equal; columns that name no
// field are refused by name. Names say what was asked for; the fix a refused import suggests
// runs as printed; --with-references says what it leaves out.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { stringify } from 'csv-stringify/sync';
import { ROOT } from '../helpers/cli';
import { parseCsv } from '../helpers/csv';
import { copyDemoDatabase } from '../helpers/seed';
import { startTestServer, type TestServer } from '../helpers/server';

// Each test runs the command line several times; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 300_000 });

const BIN = path.join(ROOT, 'bin/radar-console.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-csv-io-'));
let src: string;
let server: TestServer;

beforeAll(async () => {
  if (!fs.existsSync(path.join(ROOT, 'out/main/cli.js'))) throw new Error('the command line is not built: run `npx electron-vite build` (npm test builds it first)');
  src = copyDemoDatabase(path.join(tmp, 'src.sqlite'));
  server = await startTestServer({ seed: 'demo' });
});

afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let seq = 0;
const dir = (name = 'd'): string => {
  const d = path.join(tmp, `${name}${++seq}`);
  fs.mkdirSync(d);
  return d;
};

/** The built command, as `radar-console` on a user's PATH runs it. */
function cli(args: string[], cwd = tmp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(args: string[]) {
  const r = await cli(args);
  expect(r.code, `radar-console ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

/** Rows of a resource's table by id: every column with its SQLite type (5 and 5.0 differ), json parsed. */
function table(dbFile: string, name: string): unknown[][] {
  const r = getResource(name);
  const db = new Database(dbFile, { readonly: true });
  try {
    const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').all(r.table) as { name: string }[]).map((c) => c.name).filter((c) => c !== '_rid');
    const raw = db.prepare(`SELECT ${cols.map((c) => `typeof("${c}"), "${c}"`).join(', ')} FROM "${r.table}" ORDER BY id`).raw(true).all() as unknown[][];
    return raw.map((row) => row.map((v, i) => (i % 2 === 1 && r.fields[cols[(i - 1) / 2]!]?.kind === 'json' && typeof v === 'string' ? JSON.parse(v) : v)));
  } finally {
    db.close();
  }
}

function count(dbFile: string, sql: string): number {
  const db = new Database(dbFile, { readonly: true });
  try {
    return (db.prepare(sql).pluck(true).get() as number) ?? 0;
  } finally {
    db.close();
  }
}

/** The three lists the issue names, and what they refer to (so that no reference is cleared). */
const MAIN = ['service_asset_findings', 'service_assets', 'findings'];
const CONTEXT = ['responsible_groups', 'occurrences', 'service_asset_finding_status_changes'];

async function exportCsv(d: string, resource: string, extra: string[] = []): Promise<string> {
  const file = path.join(d, `${resource}.csv`);
  await ok(['export', '--db', src, '--resource', resource, '--format', 'csv', '--out', file, ...extra]);
  return file;
}

/** The source's tables, read once (the commands only read it). */
const srcTables = new Map<string, unknown[][]>();
const srcTable = (name: string): unknown[][] => srcTables.get(name) ?? srcTables.set(name, table(src, name)).get(name)!;

function expectEqual(dbFile: string, names: readonly string[] = MAIN) {
  for (const name of names) expect(table(dbFile, name), name).toEqual(srcTable(name));
}

let context: string;
const headerFiles = new Map<string, string>();

describe('the command line', () => {
  it('CSV exported with field names, and with the console’s names in English and Russian, imports back equal', async () => {
    context = dir('context');
    for (const r of CONTEXT) await exportCsv(context, r);
    for (const style of ['fields', 'en', 'ru'] as const) {
      const d = dir(style);
      // Russian: what a Russian spreadsheet user gets from the console (`;`, names beside ids).
      const extra = ['--headers', style, ...(style === 'ru' ? ['--delimiter', ';', '--with-names'] : style === 'en' ? ['--with-names'] : [])];
      for (const r of MAIN) await exportCsv(d, r, extra);
      const header = fs.readFileSync(path.join(d, 'service_asset_findings.csv'), 'utf8').split('\n')[0]!;
      expect(header).toContain(style === 'fields' ? 'risklevel' : style === 'en' ? 'Risk level' : 'Уровень риска');
      headerFiles.set(style, d);
      const fresh = path.join(tmp, `fresh-${style}.sqlite`);
      const r = await ok(['import', '--db', fresh, d, context]);
      const summary = JSON.parse(r.stdout) as { cleared_references: object; ignored_fields: object; files: { shape: string; kinds: string[] }[] };
      expect(summary.cleared_references).toEqual({});
      expect(summary.ignored_fields).toEqual({});
      expect(summary.files.every((f) => f.shape === 'csv')).toBe(true);
      expectEqual(fresh, [...MAIN, ...CONTEXT]);
    }
  });

  it('the same files opened and saved by a spreadsheet (LibreOffice Calc: `;`, Windows-1251) import equal', async () => {
    const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' });
    if (soffice.status !== 0) throw new Error('LibreOffice (soffice) is needed: apt-get install libreoffice-calc-nogui (CI installs it)');
    const calc = (inDelimiter: number, outdir: string, inputs: string[]) => {
      // Read as UTF-8 CSV, saved as "Text CSV" with `;` and the Windows-1251 character set (34).
      const conv = spawnSync(
        'soffice',
        [
          `-env:UserInstallation=file://${path.join(tmp, 'lo-profile')}`,
          '--headless',
          `--infilter=CSV:${inDelimiter},34,76,1`,
          '--convert-to',
          'csv:Text - txt - csv (StarCalc):59,34,34,1',
          '--outdir',
          outdir,
          ...inputs,
        ],
        { encoding: 'utf8', timeout: 240_000 },
      );
      expect(conv.status, conv.stderr).toBe(0);
    };
    // One Calc run per delimiter read (`,`: the context lists and those named by field; `;`: the
    // Russian ones), its files then sorted into a folder per import.
    const savedContext = dir('calc-context');
    const savedOf = { ru: dir('calc-ru'), fields: dir('calc-fields') };
    const comma = dir('calc-comma');
    calc(44, comma, [...CONTEXT.map((c) => path.join(context, `${c}.csv`)), ...MAIN.map((r) => path.join(headerFiles.get('fields')!, `${r}.csv`))]);
    for (const c of CONTEXT) fs.renameSync(path.join(comma, `${c}.csv`), path.join(savedContext, `${c}.csv`));
    for (const r of MAIN) fs.renameSync(path.join(comma, `${r}.csv`), path.join(savedOf.fields, `${r}.csv`));
    expect(fs.readdirSync(comma)).toEqual([]);
    calc(59, savedOf.ru, MAIN.map((r) => path.join(headerFiles.get('ru')!, `${r}.csv`)));
    for (const style of ['ru', 'fields'] as const) {
      const saved = savedOf[style];
      const incidents = fs.readFileSync(path.join(saved, 'service_asset_findings.csv'));
      // Windows-1251 indeed: no byte-order mark, Cyrillic as single bytes, `;` between cells.
      expect(incidents.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
      expect(new TextDecoder('windows-1251').decode(incidents)).toContain(style === 'ru' ? ';"Уровень риска";' : ';"risklevel";');
      const fresh = path.join(tmp, `calc-${style}.sqlite`);
      const r = await ok(['import', '--db', fresh, saved, savedContext]);
      const files = (JSON.parse(r.stdout) as { files: { delimiter?: string; encoding?: string }[] }).files;
      // (a list whose text never goes beyond ASCII reads the same in any encoding, and says so)
      expect(files.map((f) => [f.delimiter, f.encoding === 'ASCII' ? 'Windows-1251' : f.encoding])).toEqual([...MAIN, ...CONTEXT].map(() => [';', 'Windows-1251']));
      expect(files.slice(0, MAIN.length).map((f) => f.encoding)).toEqual(MAIN.map(() => 'Windows-1251'));
      expectEqual(fresh, [...MAIN, ...CONTEXT]);
      // Given instead of detected: the same.
      const given = path.join(tmp, `calc-${style}-given.sqlite`);
      await ok(['import', '--db', given, '--delimiter', ';', '--encoding', 'windows-1251', saved, savedContext]);
      expectEqual(given, [...MAIN, ...CONTEXT]);
    }
  });

  it('columns that name no field are refused by name; --ignore-unknown skips and counts them', async () => {
    const d = dir('unknown');
    const lines = fs.readFileSync(path.join(headerFiles.get('fields')!, 'service_asset_findings.csv'), 'utf8').split('\n');
    const edited = lines.map((l, i) => (l === '' ? l : i === 0 ? `${l},Foo,Примечание` : `${l},x,y`)).join('\n');
    const file = path.join(d, 'incidents.csv');
    fs.writeFileSync(file, edited);
    const target = path.join(tmp, 'unknown.sqlite');
    const refused = await cli(['import', '--db', target, file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`import refused: ${file}:1: 2 columns name no field of service_asset_findings: "Foo", "Примечание"`);
    expect(refused.stderr).toContain('--ignore-unknown');
    expect(fs.existsSync(target)).toBe(false);
    const skipped = await ok(['import', '--db', target, '--ignore-unknown', file, path.join(headerFiles.get('fields')!, 'service_assets.csv'), path.join(headerFiles.get('fields')!, 'findings.csv'), context]);
    expect(skipped.stderr).toContain('skipped unknown field service_asset_findings.Foo in 400 records');
    expect(skipped.stderr).toContain('skipped unknown field service_asset_findings.Примечание in 400 records');
    expectEqual(target);
  });

  it('a refused field is located as in JSON: file:line, record, id, field, reason', async () => {
    const d = dir('bad');
    const rows = parseCsv(fs.readFileSync(path.join(headerFiles.get('ru')!, 'service_asset_findings.csv'), 'utf8').replace(/^\ufeff/, ''), ';');
    rows[3]![rows[0]!.indexOf('Уровень риска')] = 'высокий';
    const file = path.join(d, 'service_asset_findings.csv');
    fs.writeFileSync(file, stringify(rows, { delimiter: ';' }));
    // The line the record starts on: after the header and the records before it (cells may hold line breaks).
    const line = 2 + rows.slice(1, 3).reduce((n, row) => n + row.join('').split('\n').length, 0);
    const r = await cli(['import', '--db', path.join(tmp, 'bad.sqlite'), file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`import refused: ${file}:${line}: record #3 (id ${rows[3]![0]}): field risklevel: Invalid input: expected number, received string`);
  });

  it('the help says what import reads and which flags CSV has', async () => {
    const help = (await ok(['import', '--help'])).stdout;
    for (const s of ['.csv', '--delimiter', '--encoding', 'windows-1251', '--ignore-unknown']) expect(help).toContain(s);
    expect((await ok(['export', '--help'])).stdout).toMatch(/--headers <names>.*\n?.*(fields|en|ru)/);
  });
});

describe('names, fixes and what references leave out', () => {
  it('export --resource incidents says incidents', async () => {
    const r = await ok(['export', '--db', src, '--resource', 'incidents', '--format', 'csv', '--out', path.join(dir(), 'x.csv')]);
    expect(r.stderr).toMatch(/exported 400 incidents \(of 400 matching\) as csv/);
    expect(r.stderr).not.toContain('service_asset_findings');
  });

  /** Runs the commands a refusal suggests, as printed, with the source database put in. */
  function runFix(stderr: string, cwd: string) {
    const m = /\(SOURCE\.sqlite below\) and import them with it: (.*)$/m.exec(stderr);
    expect(m, stderr).not.toBeNull();
    const shim = path.join(tmp, 'bin');
    fs.mkdirSync(shim, { recursive: true });
    fs.writeFileSync(path.join(shim, 'radar-console'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const script = m![1]!.replace(/SOURCE\.sqlite/g, src).replace(/; /g, ' && ');
    return spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${shim}:${process.env.PATH}` } });
  }

  it('the fix a refusal for missing references suggests runs as printed: --db, --instance, --kind carried', async () => {
    const d = dir('fix');
    await ok(['export', '--db', src, '--resource', 'incidents', '--format', 'ndjson', '--out', path.join(d, 'incidents.ndjson')]);
    // Into a database of its own.
    const target = path.join(d, 'target.sqlite');
    const refused = await cli(['import', '--db', target, 'incidents.ndjson'], d);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`radar-console import --db ${target} service_assets.ndjson findings.ndjson incidents.ndjson`);
    const fixed = runFix(refused.stderr, d);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(count(target, 'SELECT COUNT(*) FROM service_asset_findings')).toBe(400);
    // Into a local instance of a main database, the kind named.
    const d2 = dir('fix');
    fs.copyFileSync(path.join(d, 'incidents.ndjson'), path.join(d2, 'data.ndjson'));
    const main = path.join(d2, 'main.sqlite');
    await ok(['import', '--db', main, path.join(headerFiles.get('fields')!, 'findings.csv')]);
    await ok(['instance', 'add', '--db', main, '--name', 'Филиал', '--local', path.join(d2, 'branch.sqlite'), '--create']);
    const refused2 = await cli(['import', '--instance', 'Филиал', '--db', main, '--kind', 'incidents', 'data.ndjson'], d2);
    expect(refused2.code).toBe(1);
    expect(refused2.stderr).toContain(`radar-console import --instance 'Филиал' --db ${main} --kind incidents data.ndjson`);
    const fixed2 = runFix(refused2.stderr, d2);
    expect(fixed2.status, fixed2.stderr).toBe(0);
    expect(count(path.join(d2, 'branch.sqlite'), 'SELECT COUNT(*) FROM service_asset_findings')).toBe(400);
    expect(count(main, 'SELECT COUNT(*) FROM service_asset_findings')).toBe(0);
  });

  it('--with-references says what came along and what it leaves out, and why', async () => {
    const r = await ok(['export', '--db', src, '--resource', 'incidents', '--format', 'ndjson', '--with-references', '--out', path.join(dir(), 'x.ndjson')]);
    const occurrences = count(src, 'SELECT COUNT(*) FROM occurrences WHERE service_asset_finding_id IS NOT NULL');
    const last = count(src, 'SELECT COUNT(DISTINCT last_occurrence_id) FROM service_asset_findings');
    const changes = count(src, 'SELECT COUNT(*) FROM service_asset_finding_status_changes');
    expect(occurrences).toBeGreaterThan(last);
    expect(r.stderr).toContain(`with references: along with these incidents came ${count(src, 'SELECT COUNT(DISTINCT service_asset_id) FROM service_asset_findings')} service_assets (service_asset)`);
    expect(r.stderr).toContain(`${last} occurrences (last_occurrence)`);
    expect(r.stderr).not.toContain('counted per relation');
    expect(r.stderr).toContain(`left out: ${occurrences - last} more occurrences, ${changes.toLocaleString('en-US')} service_asset_finding_status_changes`);
    expect(r.stderr).toContain('they refer to these incidents (service_asset_finding_id) rather than being referred to, so they are not references');
    // A public list's query brings each incident's occurrences and its last one, which is among them: the counts say they are per relation.
    const open = `(SELECT id FROM service_asset_findings WHERE status = 'new')`;
    const q = await ok(['export', '--db', src, '--resource', 'incidents', '--query', 'status=eq,new', '--format', 'ndjson', '--with-references', '--out', path.join(dir(), 'q.ndjson')]);
    expect(q.stderr).toContain(`${count(src, `SELECT COUNT(*) FROM occurrences WHERE service_asset_finding_id IN ${open}`)} occurrences (occurrences)`);
    expect(q.stderr).toContain(`${count(src, `SELECT COUNT(DISTINCT last_occurrence_id) FROM service_asset_findings WHERE status = 'new'`)} occurrences (last_occurrence)`);
    expect(q.stderr).toContain('(counted per relation: occurrences named by two relations are in each count, and imported once)');
  });
});

describe('the console’s endpoints', () => {
  const exportCall = async (body: Record<string, unknown>) => {
    const res = await server.call('POST', '/console/v1/export', body);
    expect(res.status, res.text).toBe(200);
    return res;
  };

  it('CSV exported in Russian with `;` and names beside ids imports back as a new instance; the download is named as asked', async () => {
    const zip = new yazl.ZipFile();
    const names: string[] = [];
    for (const resource of ['incidents', 'service_assets', 'findings', ...CONTEXT]) {
      const res = await exportCall({ resource, format: 'csv', headers: 'ru', delimiter: ';', with_names: true });
      const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition')!)![1]!;
      expect(filename).toMatch(new RegExp(`^${resource}-\\d{8}T\\d{6}Z\\.csv$`));
      names.push(filename);
      zip.addBuffer(Buffer.from(res.text), filename);
    }
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const res = await fetch(`${server.main}/console/v1/import?new_instance=${encodeURIComponent('Из CSV')}&filename=csv.zip&wait=1`, {
      method: 'POST',
      headers: { PgrApiKey: server.apiKey, 'Content-Type': 'application/zip' },
      body: Buffer.concat(chunks),
    });
    const job = (await res.json()) as { state: string; summary: { target: string; cleared_references: object; files: { shape: string; delimiter: string }[] } };
    expect(res.status, JSON.stringify(job)).toBe(200);
    expect(job.summary.cleared_references).toEqual({});
    expect(job.summary.files.map((f) => [f.shape, f.delimiter])).toEqual(names.map(() => ['csv', ';']));
    const main = path.join(server.dir, 'test.sqlite');
    for (const name of [...MAIN, ...CONTEXT]) expect(table(job.summary.target, name), name).toEqual(table(main, name));
  });

  it('delimiter and encoding as query options, declared in /openapi.json; unknown columns refused by name', async () => {
    const doc = (await server.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: { enum?: string[] } }[] }>> };
    const params = doc.paths['/console/v1/import']!.post!.parameters!;
    expect(params.find((p) => p.name === 'delimiter')).toMatchObject({ in: 'query', schema: { enum: [',', ';', '\t'] } });
    expect(params.find((p) => p.name === 'encoding')).toMatchObject({ in: 'query', schema: { enum: ['utf-8', 'windows-1251'] } });
    const csv = (await exportCall({ resource: 'findings', format: 'csv', headers: 'ru', delimiter: ';', bom: false })).text;
    const upload = (query: string, body: Buffer) =>
      fetch(`${server.main}/console/v1/import?filename=findings.csv&wait=1&${query}`, { method: 'POST', headers: { PgrApiKey: server.apiKey, 'Content-Type': 'text/csv' }, body: new Uint8Array(body) }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as { error?: string; summary?: { files: { delimiter: string; encoding: string }[]; resources: Record<string, { inserted: number; updated: number }> } } }),
      );
    const dec = new TextDecoder('windows-1251');
    const bytes = new Map<string, number>();
    for (let b = 0; b < 256; b++) bytes.set(dec.decode(Uint8Array.of(b)), b);
    const cp1251 = Buffer.from([...csv].map((c) => bytes.get(c) ?? 0x3f));
    for (const query of ['', 'encoding=windows-1251&delimiter=%3B']) {
      const res = await upload(query, cp1251);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.summary!.files[0]).toMatchObject({ delimiter: ';', encoding: 'Windows-1251' });
      expect(res.body.summary!.resources.findings).toMatchObject({ inserted: 0, updated: 0 });
    }
    const asUtf8 = await upload('encoding=utf-8', cp1251);
    expect(asUtf8.status).toBe(400);
    expect(asUtf8.body.error).toMatch(/^findings\.csv:1: the text is not UTF-8 here/);
    const comma = await upload('delimiter=%2C', Buffer.from(csv));
    expect(comma.status).toBe(400);
    expect(comma.body.error).toMatch(/^findings\.csv:1: no column names a field of any resource/);
    const bad = await upload('', Buffer.from(csv.replace('Идентификатор;Название', 'Идентификатор;Название;Оценка')));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^findings\.csv:1: a column names no field of findings: "Оценка"/);
    const refusedParam = await server.call('POST', '/console/v1/import?filename=findings.csv&encoding=latin1&wait=1', csv, { 'Content-Type': 'text/csv' });
    expect(refusedParam.status).toBe(400);
  });
});
