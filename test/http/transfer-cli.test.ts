// `radar-console import | export | snapshot` as scripts run them: exit codes, messages, files,
// and a snapshot killed mid-way and run again.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { getResource, type ResourceDef } from '../../src-shared/resources/index';
import { cliArgs, ROOT, runCli } from '../helpers/cli';
import { copyDemoDatabase } from '../helpers/seed';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

// Each test starts command-line processes; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-transfer-cli-'));
let src: string;
let server: TestServer;

beforeAll(async () => {
  src = copyDemoDatabase(path.join(tmp, 'src.sqlite'));
  server = await startTestServer({ seed: 'demo' });
});

afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function table(file: string, r: ResourceDef, omit: string[] = []): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT * FROM "${r.table}" ORDER BY id`).all() as Record<string, unknown>[]).map((row) =>
      Object.fromEntries(Object.entries(row).filter(([k]) => k !== '_rid' && !omit.includes(k))),
    );
  } finally {
    db.close();
  }
}

describe('import and export', () => {
  it('export then import through the command line gives equal data', async () => {
    const out = path.join(tmp, 'out');
    fs.mkdirSync(out);
    const [inc, fin] = await Promise.all([
      runCli(['export', '--db', src, '--resource', 'incidents', '--query', '', '--format', 'json', '--out', path.join(out, 'incidents.json')]),
      runCli(['export', '--db', src, '--resource', 'findings', '--format', 'ndjson', '--out', path.join(out, 'findings.ndjson')]),
    ]);
    expect(inc.code, inc.stderr).toBe(0);
    expect(inc.stderr).toMatch(/exported 400 incidents \(of 400 matching\) as json to .*incidents\.json/);
    expect(fin.code, fin.stderr).toBe(0);
    const dst = path.join(tmp, 'dst.sqlite');
    const imp = await runCli(['import', '--db', dst, out]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stderr).toMatch(/imported [\d,]+ records from 2 files into .*dst\.sqlite in [\d.]+ s \([\d,]+ records\/s\): .*service_asset_findings 400 new/);
    expect(imp.stderr).toMatch(/cleared \d+ references to missing records in service_assets\.responsible_group_id/);
    const summary = JSON.parse(imp.stdout) as { records: number };
    expect(summary.records).toBeGreaterThan(400);
    expect(table(dst, getResource('service_asset_findings'))).toEqual(table(src, getResource('service_asset_findings')));
    expect(table(dst, getResource('findings'))).toEqual(table(src, getResource('findings')));
  });

  it('importing the same files again reports nothing updated, also where references were cleared', async () => {
    const dst = path.join(tmp, 'dst.sqlite');
    const again = await runCli(['import', '--db', dst, path.join(tmp, 'out')]);
    expect(again.code, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout) as { resources: Record<string, { inserted: number; updated: number; unchanged: number }>; cleared_references: Record<string, number> };
    expect(summary.cleared_references['service_assets.responsible_group_id']).toBeGreaterThan(0);
    for (const [name, c] of Object.entries(summary.resources)) expect({ name, inserted: c.inserted, updated: c.updated }).toEqual({ name, inserted: 0, updated: 0 });
    expect(summary.resources.service_asset_findings!.unchanged).toBe(400);
  });

  it.each([
    ['the v2 records as NDJSON', ['--format', 'ndjson'], 'incidents.ndjson'],
    ['the public records as JSON', ['--query', 'status=in,new,assigned_customer', '--format', 'json'], 'incidents.json'],
  ])('incidents exported --with-references (%s) import into a fresh database, and again with 0 updated', async (_, flags, name) => {
    const dir = fs.mkdtempSync(path.join(tmp, 'bundle-'));
    const file = path.join(dir, name);
    const ex = await runCli(['export', '--db', src, '--resource', 'incidents', ...flags, '--with-references', '--out', file]);
    expect(ex.code, ex.stderr).toBe(0);
    const fresh = path.join(dir, 'fresh.sqlite');
    const first = await runCli(['import', '--db', fresh, file]);
    expect(first.code, first.stderr).toBe(0);
    const s1 = JSON.parse(first.stdout) as { resources: Record<string, { inserted: number; updated: number; unchanged: number }> };
    const exported = (JSON.parse(ex.stderr.match(/exported (\d+) /)![1]!) as number);
    expect(s1.resources.service_asset_findings!.inserted).toBe(exported);
    expect(s1.resources.findings!.inserted).toBeGreaterThan(0);
    expect(s1.resources.service_assets!.inserted).toBeGreaterThan(0);
    // every incident's finding type and asset came along, equal to the source's
    const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r.id);
    const incidents = table(fresh, getResource('service_asset_findings'));
    const srcFindings = table(src, getResource('findings')).filter((f) => incidents.some((i) => i.finding_id === f.id));
    expect(table(fresh, getResource('findings'))).toEqual(srcFindings);
    expect(ids(table(fresh, getResource('service_assets')))).toEqual(ids(table(src, getResource('service_assets')).filter((a) => incidents.some((i) => i.service_asset_id === a.id))));
    const second = await runCli(['import', '--db', fresh, file]);
    expect(second.code, second.stderr).toBe(0);
    const s2 = JSON.parse(second.stdout) as { resources: Record<string, { inserted: number; updated: number }> };
    for (const [r, c] of Object.entries(s2.resources)) expect({ r, inserted: c.inserted, updated: c.updated }).toEqual({ r, inserted: 0, updated: 0 });
  });

  it('incidents without their references: the refusal names every missing kind and what fixes it', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'norefs-'));
    const file = path.join(dir, 'incidents.ndjson');
    expect((await runCli(['export', '--db', src, '--resource', 'incidents', '--format', 'ndjson', '--out', file])).code).toBe(0);
    const fresh = path.join(dir, 'fresh.sqlite');
    const r = await runCli(['import', '--db', fresh, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/import refused: .*refers to \d+ service_assets records and \d+ findings records it does not hold/);
    expect(r.stderr).toContain('export with --with-references');
    expect(r.stderr).toContain('radar-console export --resource service_assets');
    expect(r.stderr).not.toContain('Usage:');
    expect(fs.existsSync(fresh)).toBe(false);
    const csv = await runCli(['export', '--db', src, '--resource', 'incidents', '--format', 'csv', '--with-references', '--out', path.join(dir, 'x.csv')]);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toMatch(/exported as json or ndjson, not csv/);
  });

  it('writes CSV with chosen columns to stdout', async () => {
    const res = await runCli(['export', '--db', src, '--resource', 'service_asset_findings', '--format', 'csv', '--columns', 'id,status,risklevel', '--filter', '{"filters":[{"field":"status","filter_type":"equal","value":"new"}]}', '--delimiter', ';', '--out', '-']);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.replace(/^\ufeff/, '').trim().split('\n');
    expect(lines[0]).toBe('id;status;risklevel');
    expect(lines.slice(1).every((l) => /^[0-9a-f-]{36};new;[\d.]+$/.test(l))).toBe(true);
  });

  it('bad flags exit with 2 and say why', async () => {
    const bad: [string[], RegExp][] = [
      [['import'], /missing required argument 'path'/],
      [['import', '--kind', 'nope', src], /unknown resource "nope"/],
      [['import', path.join(tmp, 'missing.json')], /no such file or folder/],
      [['export', '--resource', 'findings', '--out', 'x.json'], /required option '--format <format>' not specified/],
      [['export', '--db', src, '--resource', 'findings', '--format', 'xml', '--out', 'x.json'], /argument 'xml' is invalid\. Allowed choices are json, ndjson, csv/],
      [['export', '--db', src, '--resource', 'findings', '--format', 'json', '--filter', '{bad', '--out', 'x.json'], /--filter must be a JSON search request/],
      [['export', '--db', src, '--resource', 'nope', '--format', 'json', '--out', 'x.json'], /unknown resource: nope/],
      [['export', '--resource', 'findings', '--format', 'json', '--out', 'x.json', '--bogus'], /unknown option '--bogus'/],
      [['snapshot', '--url', 'http://127.0.0.1:1'], /required option '--out <file>' not specified/],
      [['snapshot', '--url', 'ftp://x', '--api-key', 'k', '--out', 'x.sqlite'], /--url must be an http/],
    ];
    const results = await Promise.all(bad.map(([args]) => runCli(args)));
    results.forEach((res, i) => {
      expect(res.code, bad[i]![0].join(' ')).toBe(2);
      expect(res.stderr).toMatch(bad[i]![1]);
    });
  });

  it('refused data exits with 1, naming the file, the position and the reason; the database is untouched', async () => {
    const file = path.join(tmp, 'findings.json');
    fs.writeFileSync(file, '{"objects": [\n  {"id": "6f1c1b8e-2f0f-4a44-9a39-000000000001", "title": "x"},\n  {"id": "6f1c1b');
    const dst = path.join(tmp, 'never.sqlite');
    const res = await runCli(['import', '--db', dst, file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`radar-console: import refused: ${file}:3:`);
    expect(res.stderr).toMatch(/invalid JSON: the file ends in the middle of a value \(truncated\?\)/);
    expect(fs.existsSync(dst)).toBe(false);
  });
});

describe('snapshot', () => {
  it('copies a remote into a new database and adds it as an instance of the main database', async () => {
    const main = path.join(tmp, 'main.sqlite');
    openDatabase(main).db.close();
    const out = path.join(tmp, 'snap-full.sqlite');
    const res = await runCli(['snapshot', '--url', server.main, '--api-key', TEST_KEY, '--out', out, '--add-instance', 'Офлайн', '--db', main, '--per-page', '100']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/snapshot of http:\/\/127\.0\.0\.1:\d+ complete in .*: findings 40, service_assets 60, service_asset_findings 400, occurrences \d+, service_asset_finding_status_changes 930, custom_fields 6, custom_field_values 87, messages 90; status changes: copied; added as instance "Офлайн"/);
    const db = new Database(main, { readonly: true });
    const rows = db.prepare('SELECT name, kind, db_file FROM console_instances').all();
    db.close();
    expect(rows).toEqual([{ name: 'Офлайн', kind: 'local', db_file: out }]);
    expect(table(out, getResource('service_asset_findings'))).toEqual(table(server.db, getResource('service_asset_findings')));
  });

  it('killed mid-way, the same command resumes it and ends with the same data', async () => {
    const full = path.join(tmp, 'snap-full.sqlite');
    const out = path.join(tmp, 'snap-killed.sqlite');
    const args = ['snapshot', '--url', server.main, '--api-key', TEST_KEY, '--out', out, '--per-page', '5'];
    const child = spawn(process.execPath, cliArgs(args), { cwd: ROOT, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let pages = 0;
    for (let i = 0; i < 600 && pages < 4; i++) {
      await new Promise((r) => setTimeout(r, 25));
      try {
        pages = (JSON.parse(fs.readFileSync(`${out}.snapshot.json`, 'utf8')) as { pages: number }).pages;
      } catch {
        pages = 0;
      }
    }
    child.kill('SIGKILL');
    await exited;
    const cp = JSON.parse(fs.readFileSync(`${out}.snapshot.json`, 'utf8')) as { complete: boolean; pages: number };
    expect(cp.complete).toBe(false);
    expect(cp.pages).toBeGreaterThanOrEqual(4);
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resumed and complete/);
    for (const name of ['findings', 'service_assets', 'service_asset_findings', 'occurrences', 'service_asset_finding_status_changes']) {
      expect(table(out, getResource(name)), name).toEqual(table(full, getResource(name)));
    }
    const done = await runCli(args);
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/already a complete snapshot/);
    expect(done.stderr).not.toMatch(/resume|kept in/);
  });
});
