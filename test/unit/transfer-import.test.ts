// The importer: shapes, kinds, checks, upserts, references, and that a refused import leaves
// the database exactly as it was (every table, the search index and the schema compared).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { copyDemoDatabase } from '../helpers/seed';
import { CancelledError, TransferError } from '../../src-main/transfer/errors';
import { importFiles } from '../../src-main/transfer/import';
import { RESOURCES, getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { Runner } from '../../src-main/store/query/runner';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-import-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let seq = 0;
const file = (name: string, text: string | Buffer): string => {
  const dir = path.join(tmp, `f${++seq}`);
  fs.mkdirSync(dir);
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const freshDb = (): string => path.join(tmp, `db${++seq}.sqlite`);

/** A digest per table of every row (search index included), and the schema (triggers too). */
function dump(dbFile: string): Record<string, string> {
  const db = new Database(dbFile, { readonly: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`).all() as { name: string }[];
    const out: Record<string, string> = { schema: JSON.stringify(db.prepare(`SELECT type, name, sql FROM sqlite_master ORDER BY type, name`).all()) };
    for (const t of tables) {
      const h = crypto.createHash('sha256');
      let n = 0;
      for (const r of db.prepare(`SELECT * FROM "${t.name}"`).raw(true).iterate() as IterableIterator<unknown[]>) {
        h.update(JSON.stringify(r.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : v))));
        h.update('\n');
        n++;
      }
      out[t.name] = `${n} rows ${h.digest('hex')}`;
    }
    return out;
  } finally {
    db.close();
  }
}

const rowsOf = (dbFile: string, sql: string, ...params: unknown[]) => {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as Record<string, unknown>[];
  } finally {
    db.close();
  }
};

// A seeded database to import into: its records, as the API answers them.
let seeded: string;
let incidents: Record<string, unknown>[];
let findings: Record<string, unknown>[];
let assets: Record<string, unknown>[];

beforeAll(() => {
  seeded = copyDemoDatabase(path.join(tmp, 'seeded.sqlite'));
  const { db } = openDatabase(seeded);
  const store = new Store(db);
  incidents = new Runner(store).search(getResource('service_asset_findings'), emptySearch(20, 0)).items;
  findings = new Runner(store).search(getResource('findings'), emptySearch(100, 0)).items;
  assets = new Runner(store).search(getResource('service_assets'), emptySearch(100, 0)).items;
  db.close();
});

/** Runs a refused import against the seeded database; the error, and the database unchanged. */
async function refused(paths: string[], opts: Parameters<typeof importFiles>[2] = {}): Promise<TransferError> {
  const before = dump(seeded);
  const err = await importFiles(seeded, paths, opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the import should have been refused').toBeInstanceOf(TransferError);
  expect(dump(seeded)).toEqual(before);
  return err as TransferError;
}

const ndjson = (recs: unknown[]) => `${recs.map((r) => JSON.stringify(r)).join('\n')}\n`;
const pretty = (v: unknown) => JSON.stringify(v, null, 2);

describe('shapes', () => {
  const recs = () => findings.slice(0, 3).map((f) => ({ ...f, title: `${f.title as string} (edited)` }));
  const cases: [string, string, () => string][] = [
    ['public page', 'public-page', () => pretty({ objects: recs(), total: 40 })],
    ['v2 search answer', 'v2-search', () => JSON.stringify({ items: recs(), total: 3 })],
    ['routing envelope', 'envelope', () => pretty([{ id: 'i1', name: 'Main', data: { objects: recs(), total: 3 }, error: 0, status_code: 200, time: '2024-01-01T00:00:00Z', version: '3.7.0' }])],
    ['array of records', 'array', () => pretty(recs())],
    ['NDJSON', 'ndjson', () => ndjson(recs())],
    ['concatenated records', 'json-values', () => recs().map((r) => pretty(r)).join('\n')],
  ];
  for (const [title, shape, text] of cases) {
    it(`reads ${title}`, async () => {
      const db = freshDb();
      const res = await importFiles(db, [file('findings.json', text())]);
      expect(res.files).toEqual([{ file: expect.stringMatching(/findings\.json$/), shape, kinds: ['findings'], records: 3 }]);
      expect(res.resources.findings).toMatchObject({ inserted: 3 });
      expect(rowsOf(db, 'SELECT title FROM findings ORDER BY display_id').map((r) => r.title)).toEqual(recs().map((r) => r.title));
    });
  }

  it('skips an envelope whose instance answered with an error, and says so', async () => {
    const text = pretty([
      { id: 'a', name: 'Up', data: { objects: findings.slice(0, 2), total: 2 }, error: 0, status_code: 200 },
      { id: 'b', name: 'Down', data: { error: 'unreachable', error_code: 502 }, error: 502, status_code: 502 },
    ]);
    const res = await importFiles(freshDb(), [file('fan-out.json', text)]);
    expect(res.records).toBe(2);
    expect(res.notes.join('\n')).toMatch(/Down answered with an error \(502\); skipped/);
  });

  it('reads a folder and a .zip of files, in name order', async () => {
    const dir = path.join(tmp, `folder${++seq}`);
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'findings.ndjson'), ndjson(findings));
    fs.writeFileSync(path.join(dir, 'sub', 'assets.json'), JSON.stringify({ objects: assets, total: assets.length }));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not data');
    const res = await importFiles(freshDb(), [dir]);
    expect(res.files.map((f) => [path.basename(f.file), f.kinds])).toEqual([
      ['findings.ndjson', ['findings']],
      ['assets.json', ['service_assets']],
    ]);
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(ndjson(findings)), 'export/findings.ndjson');
    zip.addBuffer(Buffer.from(JSON.stringify({ items: assets, total: assets.length })), 'export/service_assets.json');
    zip.addBuffer(Buffer.from('ignored'), 'export/readme.md');
    zip.end();
    const zipFile = path.join(tmp, `export${++seq}.zip`);
    await new Promise<void>((resolve) => zip.outputStream.pipe(fs.createWriteStream(zipFile)).on('close', () => resolve()));
    const db = freshDb();
    const z = await importFiles(db, [zipFile]);
    expect(z.files.map((f) => f.file)).toEqual([`${zipFile}:export/findings.ndjson`, `${zipFile}:export/service_assets.json`]);
    expect(rowsOf(db, 'SELECT COUNT(*) AS n FROM service_assets')[0]!.n).toBe(assets.length);
  });
});

describe('kinds', () => {
  it('tells incidents, assets and finding types apart by their fields', async () => {
    const db = freshDb();
    const res = await importFiles(db, [file('a.ndjson', ndjson(assets)), file('b.ndjson', ndjson(findings)), file('c.ndjson', ndjson(incidents))]);
    expect(res.files.map((f) => f.kinds[0])).toEqual(['service_assets', 'findings', 'service_asset_findings']);
  });

  it('asks for --kind when the fields fit several resources, and takes the file name or --kind', async () => {
    const recs = [{ id: '6f1c1b8e-2f0f-4a44-9a39-000000000001', name: 'Группа' }];
    const err = await refused([file('groups.json', JSON.stringify(recs))]);
    expect(err.message).toMatch(/cannot tell which resource .*fits .*; name it with --kind/);
    const byName = await importFiles(freshDb(), [file('responsible_groups.json', JSON.stringify(recs))]);
    expect(byName.files[0]!.kinds).toEqual(['responsible_groups']);
    const byFlag = await importFiles(freshDb(), [file('groups.json', JSON.stringify(recs))], { kind: 'software_groups' });
    expect(byFlag.files[0]!.kinds).toEqual(['software_groups']);
  });

  it('refuses an unknown --kind', async () => {
    await expect(importFiles(freshDb(), [file('x.json', '[]')], { kind: 'nope' })).rejects.toThrow(/unknown resource "nope"/);
  });
});

describe('refused files leave the database as it was', () => {
  it('an empty file', async () => {
    expect((await refused([file('empty.json', '')])).message).toMatch(/empty\.json: the file is empty/);
    expect((await refused([file('blank.ndjson', ' \n\n ')])).message).toMatch(/the file is empty/);
  });

  it('truncated JSON, with the position where it ends', async () => {
    const text = pretty({ objects: findings.slice(0, 5), total: 5 });
    const cut = text.slice(0, Math.floor(text.length * 0.6));
    const err = await refused([file('findings.json', cut)]);
    const lines = cut.split('\n');
    expect(err.where).toMatchObject({ line: lines.length, column: lines[lines.length - 1]!.length + 1 });
    expect(err.message).toMatch(/findings\.json:\d+:\d+: invalid JSON: the file ends in the middle of a value \(truncated\?\)/);
  });

  it('a syntax error, at its line and column', async () => {
    const text = pretty({ objects: findings.slice(0, 3), total: 3 }).replace('"total": 3', '"total" 3');
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('"total" 3'));
    const err = await refused([file('findings.json', text)]);
    expect(err.where).toMatchObject({ line: line + 1, column: lines[line]!.indexOf('" 3') + 3 });
    expect(err.message).toMatch(/invalid JSON: expected ':'/);
  });

  it('a broken NDJSON line, at its line and column', async () => {
    const text = `${JSON.stringify(findings[0])}\n${JSON.stringify(findings[1]).replace(/,"title"/, ',"title" ')}\n{"id": }\n`;
    const err = await refused([file('findings.ndjson', text)]);
    expect(err.where.line).toBe(3);
    expect(err.where.column).toBe(8);
    const cut = await refused([file('cut.ndjson', `${JSON.stringify(findings[0])}\n${JSON.stringify(findings[1]).slice(0, 50)}`)]);
    expect(cut.message).toMatch(/cut\.ndjson:2:\d+: invalid JSON: the line ends in the middle of a value \(truncated file\?\)/);
  });

  it('wrong shapes', async () => {
    expect((await refused([file('n.json', '42')])).message).toMatch(/n\.json:1:1: not JSON: the file starts with "42"|expected a JSON array or object/);
    expect((await refused([file('a.json', '[1, 2]')])).message).toMatch(/record \[0\]: expected an object \(a record\), got a number/);
    expect((await refused([file('p.json', '{"objects": {"id": 1}, "total": 1}')])).message).toMatch(/objects should be an array of records, got an object/);
    expect((await refused([file('e.json', '{"error": "Bad Request", "error_code": 400}')])).message).toMatch(/holds an error answer, not data/);
    expect((await refused([file('l.ndjson', '[1]\n')])).message).toMatch(/l\.ndjson:1:1: expected one record \(a JSON object\) per line, got an array/);
    expect((await refused([file('t.txt', 'id,title\n1,x\n')])).message).toMatch(/not JSON: the file starts with "id,title/);
  });

  it('wrong types, values outside the enum or the range, bad timestamps, unknown fields', async () => {
    const inc = incidents[0]!;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...inc, risklevel: 'high' }, /field risklevel: .*expected number/i],
      [{ ...inc, risklevel: 11 }, /field risklevel: .*(<=10|too big)/i],
      [{ ...inc, status: 'bogus' }, /field status: .*(expected one of|invalid option)/i],
      [{ ...inc, external: 'yes' }, /field external: .*expected boolean/i],
      [{ ...inc, created_at: 'yesterday' }, /field created_at: expected an ISO 8601 timestamp/],
      [{ ...inc, acknowledged_at: '2024-02-30T00:00:00Z' }, /field acknowledged_at: expected an ISO 8601 timestamp/],
      [{ ...inc, id: 'not-a-uuid' }, /field id: id should be uuid format/],
      [{ ...inc, tag_titles: ['x'] }, /field tag_titles: unknown field for service_asset_findings/],
    ];
    for (const [rec, re] of cases) {
      const err = await refused([file('incidents.ndjson', ndjson([incidents[1], rec]))]);
      expect(err.message).toMatch(/incidents\.ndjson:2: record \(id [0-9a-f-]+\)|incidents\.ndjson:2: /);
      expect(err.message).toMatch(re);
    }
    const err = await refused([file('incidents.json', pretty({ items: [incidents[1], { ...inc, risklevel: -1 }], total: 2 }))]);
    expect(err.message).toMatch(/incidents\.json:\d+: record items\[1\] \(id [0-9a-f-]+\): field risklevel: /);
  });

  it('a required field missing', async () => {
    const { title: _t, ...noTitle } = findings[0]!;
    expect((await refused([file('findings.ndjson', ndjson([noTitle]))])).message).toMatch(/field title: title is required/);
  });

  it('duplicate ids with different content; identical copies are fine', async () => {
    const a = findings[0]!;
    const err = await refused([file('findings.ndjson', ndjson([a, findings[1], { ...a, title: 'другое' }]))]);
    expect(err.message).toMatch(/findings\.ndjson:3: record \(id .*\): field title: duplicate id: this findings record appeared earlier in the import with different content|findings\.ndjson:3: .*duplicate id/);
    const db = freshDb();
    const ok = await importFiles(db, [file('findings.ndjson', ndjson([a, findings[1], a]))]);
    expect(ok.resources.findings).toMatchObject({ inserted: 2, repeated: 1 });
  });

  it('a reference that must resolve and does not', async () => {
    const missing = '6f1c1b8e-2f0f-4a44-9a39-00000000dead';
    const err = await refused([file('incidents.ndjson', ndjson([{ ...incidents[0], finding_id: missing }]))]);
    expect(err.message).toMatch(new RegExp(`record service_asset_findings \\(id ${incidents[0]!.id}\\): field finding_id: "${missing}" refers to a missing findings record`));
  });

  it('an error in the last file after many good records (search index and triggers restored)', async () => {
    const big = Array.from({ length: 12_000 }, (_, i) => ({ ...findings[i % findings.length], id: `6f1c1b8e-2f0f-4a44-9a39-${String(i).padStart(12, '0')}`, display_id: 100000 + i }));
    const last = file('findings.ndjson', ndjson([{ ...findings[0], risklevel: 1 }]));
    const err = await refused([file('findings.ndjson', ndjson(big)), last]);
    expect(err.message).toBe(`${last}:1: record ${findings[0]!.id as string}: field risklevel: unknown field for findings`);
  });

  it('a refused import into empty tables puts their indexes, triggers and search settings back', async () => {
    const db = freshDb();
    openDatabase(db).db.close();
    const before = dump(db);
    const big = Array.from({ length: 12_000 }, (_, i) => ({ ...findings[i % findings.length], id: `6f1c1b8e-2f0f-4a44-9a39-${String(i).padStart(12, '0')}`, display_id: 1 + i }));
    const err = await importFiles(db, [file('findings.ndjson', ndjson(big)), file('incidents.ndjson', ndjson([{ ...incidents[0], status: 'nope' }]))]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransferError);
    expect(dump(db)).toEqual(before);
    expect(fs.existsSync(db)).toBe(true);
  });

  it('a cancelled import', async () => {
    const big = Array.from({ length: 2000 }, (_, i) => ({ ...findings[i % findings.length], id: `6f1c1b8e-2f0f-4a44-9a39-${String(i).padStart(12, '0')}`, display_id: 200000 + i }));
    const controller = new AbortController();
    controller.abort();
    const before = dump(seeded);
    await expect(importFiles(seeded, [file('findings.ndjson', ndjson(big))], { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
    expect(dump(seeded)).toEqual(before);
  });

  it('a database created for a refused import is removed', async () => {
    const db = freshDb();
    await expect(importFiles(db, [file('findings.ndjson', '{"id": 1}\n')])).rejects.toBeInstanceOf(TransferError);
    expect(fs.existsSync(db)).toBe(false);
  });
});

describe('upserts and references', () => {
  it('re-importing the same records changes nothing; changed records are updated', async () => {
    const db = freshDb();
    const f = file('findings.ndjson', ndjson(findings));
    expect((await importFiles(db, [f])).resources.findings).toMatchObject({ inserted: findings.length });
    const before = dump(db);
    expect((await importFiles(db, [f])).resources.findings).toMatchObject({ inserted: 0, updated: 0, unchanged: findings.length });
    expect(dump(db)).toEqual(before);
    const edited: Record<string, unknown> = { ...findings[2]!, title: 'Новое название' };
    const res = await importFiles(db, [file('findings.ndjson', ndjson([edited]))]);
    expect(res.resources.findings).toMatchObject({ updated: 1 });
    expect(rowsOf(db, 'SELECT title, updated_at FROM findings WHERE id = ?', edited.id)[0]).toEqual({ title: 'Новое название', updated_at: edited.updated_at });
  });

  it('keeps created_at and updated_at from the file and fills defaults of absent fields', async () => {
    const db = freshDb();
    const rec = { id: '6f1c1b8e-2f0f-4a44-9a39-000000000a01', title: 'Только заголовок', created_at: '2024-03-01T10:00:00+03:00' };
    await importFiles(db, [file('findings.ndjson', ndjson([rec]))]);
    const row = rowsOf(db, 'SELECT * FROM findings')[0]!;
    expect(row).toMatchObject({ created_at: '2024-03-01T07:00:00.000000Z', updated_at: '2024-03-01T07:00:00.000000Z', local: 1, cpes: '[]', display_id: 1 });
  });

  it('imports the asset and occurrences nested in public incidents, and clears optional references to records not imported', async () => {
    const { db: src } = openDatabase(seeded, { readonly: true, create: false });
    const store = new Store(src);
    const withOcc = new Runner(store).search(getResource('service_asset_findings'), {
      ...emptySearch(5, 0),
      filters: [{ field: 'occurrences', filter_type: 'related', value: [], negation: true }],
      relations: ['service_asset', 'occurrences'],
    }).items;
    src.close();
    expect(withOcc.length).toBe(5);
    const pub = withOcc.map((inc): Record<string, unknown> => ({ ...inc, front_link: `http://x/#/incidents/${inc.id as string}`, service_asset_name: 'computed, ignored', occurrence_count: 99 }));
    const nOcc = pub.reduce((n, i) => n + (i.occurrences as unknown[]).length, 0);
    const db = freshDb();
    const res = await importFiles(db, [file('findings.ndjson', ndjson(findings)), file('incidents.json', pretty({ objects: pub, total: 5 }))]);
    expect(res.resources.service_asset_findings!.inserted).toBe(5);
    expect(res.resources.occurrences!.inserted).toBe(nOcc);
    expect(res.resources.service_assets!.inserted).toBe(new Set(pub.map((i) => i.service_asset_id)).size);
    const occ = rowsOf(db, 'SELECT o.id, o.service_asset_finding_id AS inc FROM occurrences o ORDER BY o.id');
    const want = pub.flatMap((i) => (i.occurrences as Record<string, unknown>[]).map((o) => ({ id: o.id, inc: i.id }))).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(occ).toEqual(want);
    expect(res.cleared_references['service_assets.responsible_group_id']).toBeGreaterThan(0);
    const strict = freshDb();
    const err = await importFiles(strict, [file('findings.ndjson', ndjson(findings)), file('incidents.json', pretty({ objects: pub, total: 5 }))], { strictReferences: true }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/field (responsible_group_id|service_asset_finding_status_change_id): .* refers to a missing (responsible_groups|service_asset_finding_status_changes) record/);
    expect(fs.existsSync(strict)).toBe(false);
  });

  it('skips unknown fields with ignoreUnknown, counting them', async () => {
    const res = await importFiles(freshDb(), [file('findings.ndjson', ndjson(findings.slice(0, 4).map((f) => ({ ...f, tag_titles: [] }))))], { ignoreUnknown: true });
    expect(res.ignored_fields).toEqual({ 'findings.tag_titles': 4 });
  });

  it('builds the search index of a bulk import with its own settings and puts the table settings back', async () => {
    const db = freshDb();
    const big: Record<string, unknown>[] = Array.from({ length: 12_000 }, (_, i) => ({ ...findings[i % findings.length], id: `6f1c1b8e-2f0f-4a44-9a39-${String(i).padStart(12, '0')}`, display_id: 1 + i }));
    await importFiles(db, [file('findings.ndjson', ndjson(big))]);
    const fresh = freshDb();
    openDatabase(fresh).db.close();
    expect(rowsOf(db, 'SELECT * FROM findings_fts_config ORDER BY k')).toEqual(rowsOf(fresh, 'SELECT * FROM findings_fts_config ORDER BY k'));
    expect(() => new Database(db).exec(`INSERT INTO findings_fts(findings_fts) VALUES('integrity-check')`)).not.toThrow();
    const title = String(findings[3]!.title).slice(2, 12);
    const hits = rowsOf(db, `SELECT COUNT(*) AS n FROM findings_fts WHERE findings_fts MATCH ?`, `"${title}"`)[0]!.n;
    expect(hits).toBe(big.filter((f) => String(f.title).includes(title)).length);
  });

  it('sets many-to-many links from _relations, and keeps the search index whole', async () => {
    const db = freshDb();
    const { db: src } = openDatabase(seeded, { readonly: true, create: false });
    const store = new Store(src);
    const rules = new Runner(store).search(getResource('engine_go_rules'), { ...emptySearch(1000, 0), _relations: ['rule_sets', 'engine_go_filters', 'engine_go_modules', 'value_stores', 'service_asset_findings', 'software_groups'] }).items;
    const deps = ['findings', 'rule_sets', 'engine_go_filters', 'engine_go_modules', 'value_stores', 'service_asset_findings', 'software_groups', 'service_assets', 'responsible_groups', 'occurrences', 'service_asset_finding_status_changes', 'service_asset_groups', 'software'];
    const files = deps.map((n) => file(`${n}.ndjson`, ndjson(new Runner(store).search(getResource(n), emptySearch(10000, 0)).items)));
    src.close();
    const res = await importFiles(db, [...files, file('engine_go_rules.ndjson', ndjson(rules))]);
    expect(res.links).toBeGreaterThan(0);
    const a = rowsOf(seeded, 'SELECT * FROM engine_go_rule_incidents ORDER BY 1, 2');
    expect(rowsOf(db, 'SELECT * FROM engine_go_rule_incidents ORDER BY 1, 2')).toEqual(a);
    for (const r of RESOURCES) {
      const has = rowsOf(db, `SELECT name FROM sqlite_master WHERE name = ?`, `${r.table}_fts`).length;
      if (has) expect(() => new Database(db).exec(`INSERT INTO "${r.table}_fts"("${r.table}_fts") VALUES('integrity-check')`)).not.toThrow();
    }
    const hits = rowsOf(db, `SELECT COUNT(*) AS n FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?`, '"узел"')[0]!.n;
    const want = rowsOf(seeded, `SELECT COUNT(*) AS n FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?`, '"узел"')[0]!.n;
    expect(hits).toBe(want);
  });
});

describe('kept counts', () => {
  /** Each kept table against a recount of the incidents (the kinds' kept tables, read from the schema). */
  function keptMismatches(dbFile: string): string[] {
    const db = new Database(dbFile, { readonly: true });
    try {
      const band = `CASE WHEN risklevel >= 9 THEN 'critical' WHEN risklevel >= 7 THEN 'high' WHEN risklevel >= 4 THEN 'medium' WHEN risklevel > 0 THEN 'low' ELSE 'none' END`;
      const tables: [string, string | null, boolean][] = [
        ['incident_day_counts', null, true],
        ['incident_owner_day_counts', 'user_id', true],
        ['incident_group_day_counts', 'group_id', true],
        ['incident_finding_counts', 'finding_id', false],
        ['incident_asset_counts', 'service_asset_id', false],
      ];
      const out: string[] = [];
      for (const [table, col, byDay] of tables) {
        const keys = [...(col ? [`COALESCE('=' || ${col}, '')`] : []), ...(byDay ? ['substr(created_at, 1, 10)'] : []), 'status', band];
        const names = [...(col ? ['k'] : []), ...(byDay ? ['day'] : []), 'status', 'risk'];
        const truth = db.prepare(`SELECT ${keys.map((k, i) => `${k} AS ${names[i]}`).join(', ')}, COUNT(*) AS n FROM service_asset_findings GROUP BY ${keys.map((_k, i) => i + 1).join(', ')} ORDER BY ${names.join(', ')}`).all();
        const kept = db.prepare(`SELECT ${names.join(', ')}, n FROM ${table} ORDER BY ${names.join(', ')}`).all();
        if (JSON.stringify(kept) !== JSON.stringify(truth)) out.push(table);
      }
      return out;
    } finally {
      db.close();
    }
  }

  it('equal a recount after an import that adds incidents, updates others and repeats some, with the count triggers back', async () => {
    const db = copyDemoDatabase(path.join(tmp, 'kept.sqlite'));
    expect(keptMismatches(db)).toEqual([]);
    const schema = rowsOf(db, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`);
    const statuses = ['new', 'assigned_customer', 'closed', 'invalid', 'risk_accepted'];
    const added = Array.from({ length: 40 }, (_, i) => ({
      ...incidents[i % incidents.length]!,
      id: crypto.randomUUID(),
      display_id: undefined,
      status: statuses[i % statuses.length],
      risklevel: (i * 1.3) % 10,
      user_id: i % 3 ? `user-${i % 4}` : null,
      group_id: i % 4 ? `group-${i % 3}` : null,
      created_at: `2025-0${1 + (i % 9)}-1${i % 10}T08:00:00.000000Z`,
    }));
    const changed = incidents.slice(0, 8).map((inc, i) => ({ ...inc, status: statuses[(i + 2) % statuses.length], user_id: `user-${i}`, risklevel: 9.5 - i }));
    const res = await importFiles(db, [file('incidents.ndjson', ndjson([...added, ...changed, ...added.slice(0, 5)]))]);
    expect(res.resources.service_asset_findings).toMatchObject({ inserted: 40, repeated: 5 });
    expect(res.resources.service_asset_findings!.updated).toBeGreaterThan(0);
    expect(keptMismatches(db)).toEqual([]);
    expect(rowsOf(db, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`)).toEqual(schema);
    // Into an empty database too (the bulk import's fast path), then more on top of it.
    const fresh = freshDb();
    await importFiles(fresh, [file('findings.ndjson', ndjson(findings)), file('assets.ndjson', ndjson(assets)), file('incidents.ndjson', ndjson(incidents))]);
    expect(keptMismatches(fresh)).toEqual([]);
    await importFiles(fresh, [file('incidents.ndjson', ndjson([...added, ...changed]))]);
    expect(keptMismatches(fresh)).toEqual([]);
  });

  it('equal a recount with owners and groups holding odd characters, risk levels at the bands\' edges, and after a refused import', async () => {
    const db = freshDb();
    await importFiles(db, [file('findings.ndjson', ndjson(findings)), file('assets.ndjson', ndjson(assets)), file('incidents.ndjson', ndjson(incidents))]);
    expect(keptMismatches(db)).toEqual([]);
    // A refused import (its finding type is nowhere) leaves every count as it was.
    const before = dump(db);
    const orphan = { ...incidents[0]!, id: crypto.randomUUID(), display_id: undefined, finding_id: crypto.randomUUID() };
    await expect(importFiles(db, [file('incidents.ndjson', ndjson([orphan]))])).rejects.toThrow(TransferError);
    expect(dump(db)).toEqual(before);
    // Owners and groups holding a NUL character, risk levels at the bands' edges.
    const odd = Array.from({ length: 9 }, (_, i) => ({
      ...incidents[i % incidents.length]!,
      id: crypto.randomUUID(),
      display_id: undefined,
      user_id: i % 2 ? 'a\u0000b' : `user-${i}`,
      group_id: i % 3 ? null : 'g\u0000',
      risklevel: [0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10][i],
    }));
    const res = await importFiles(db, [file('incidents.ndjson', ndjson(odd))]);
    expect(res.resources.service_asset_findings).toMatchObject({ inserted: 9 });
    expect(keptMismatches(db)).toEqual([]);
    expect(rowsOf(db, `SELECT SUM(n) AS n FROM incident_owner_day_counts WHERE k = ?`, '=a\u0000b')[0]!.n).toBe(4);
    expect(rowsOf(db, `SELECT SUM(n) AS n FROM incident_group_day_counts WHERE k = ?`, '=g\u0000')[0]!.n).toBe(3);
  });
});
