// Export then import gives equal data: every resource through NDJSON, and incidents with their
// assets and occurrences through each JSON shape of the API (public page, v2 search answer,
// routing envelope) and NDJSON. CSV follows its documented rules. Filters select what the API
// would answer, with no row cap.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { copyDemoDatabase } from '../helpers/seed';
import { prepareExport, type ExportSpec } from '../../src-main/transfer/export';
import { importFiles } from '../../src-main/transfer/import';
import { ApiError } from '../../src-shared/errors';
import { RESOURCES, getResource, linkTables, listRelationsOf, type ResourceDef } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { Runner } from '../../src-main/store/query/runner';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-export-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let seq = 0;
const dir = (): string => {
  const d = path.join(tmp, `d${++seq}`);
  fs.mkdirSync(d);
  return d;
};
const freshDb = (): string => path.join(tmp, `db${++seq}.sqlite`);

let src: string;
beforeAll(() => {
  src = copyDemoDatabase(path.join(tmp, 'src.sqlite'));
});

async function exportTo(spec: ExportSpec, file: string): Promise<{ total: number; rows: number }> {
  const ex = prepareExport(src, spec);
  const out = fs.createWriteStream(file);
  for await (const chunk of ex.chunks()) out.write(chunk);
  await new Promise((resolve) => out.end(resolve));
  return { total: ex.total, rows: ex.rows };
}

/** A resource table's rows by id: every column but _rid (secrets left out), json parsed. */
function table(dbFile: string, r: ResourceDef, where = '1'): Record<string, unknown>[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db.prepare(`SELECT * FROM "${r.table}" WHERE ${where} ORDER BY id`).all() as Record<string, unknown>[];
    return rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(row)) {
        if (k === '_rid' || r.fields[k]?.secret) continue;
        out[k] = r.fields[k]?.kind === 'json' && typeof v === 'string' ? JSON.parse(v) : v;
      }
      return out;
    });
  } finally {
    db.close();
  }
}

function links(dbFile: string, name: string): unknown[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).raw(true).all();
  } finally {
    db.close();
  }
}

const R = (name: string) => getResource(name);

describe('export then import gives equal data', () => {
  it('every resource, its many-to-many links and its search index, through NDJSON', async () => {
    const d = dir();
    for (const r of RESOURCES) {
      const m2m = listRelationsOf(r)
        .filter(([, rel]) => rel.kind === 'manyToMany')
        .map(([n]) => n);
      const res = await exportTo({ resource: r.name, format: 'ndjson', search: { _relations: m2m } }, path.join(d, `${r.name}.ndjson`));
      expect(res.rows).toBe(res.total);
    }
    const db = freshDb();
    const summary = await importFiles(db, [d]);
    expect(summary.cleared_references).toEqual({});
    for (const r of RESOURCES) expect(table(db, r), r.name).toEqual(table(src, r));
    for (const l of linkTables()) expect(links(db, l.table), l.table).toEqual(links(src, l.table));
    const search = (file: string) => {
      const { db: h } = openDatabase(file, { readonly: true, create: false });
      const ids = new Runner(new Store(h)).search(R('service_asset_findings'), { ...emptySearch(1000, 0), virtual_search: { value: 'доступ', strict: false } }).items.map((i) => i.id);
      h.close();
      return ids.sort();
    };
    expect(search(db)).toEqual(search(src));
    expect(search(db).length).toBeGreaterThan(0);
  });

  const withIncident = 'service_asset_finding_id IS NOT NULL';
  const expectIncidentsEqual = (db: string) => {
    expect(table(db, R('service_asset_findings'))).toEqual(table(src, R('service_asset_findings')));
    expect(table(db, R('occurrences'))).toEqual(table(src, R('occurrences'), withIncident));
    expect(table(db, R('service_assets'))).toEqual(table(src, R('service_assets')));
    expect(table(db, R('findings'))).toEqual(table(src, R('findings')));
    expect(table(db, R('service_asset_finding_status_changes'))).toEqual(table(src, R('service_asset_finding_status_changes')));
  };

  /** What the incidents refer to besides finding types, so that nothing is cleared. */
  const context = async (d: string) => {
    await exportTo({ resource: 'service_assets', format: 'ndjson' }, path.join(d, 'service_assets.ndjson'));
    await exportTo({ resource: 'responsible_groups', format: 'ndjson' }, path.join(d, 'responsible_groups.ndjson'));
    await exportTo({ resource: 'service_asset_finding_status_changes', format: 'ndjson' }, path.join(d, 'service_asset_finding_status_changes.ndjson'));
  };

  it('public API pages: incidents with their assets and occurrences, finding types, assets', async () => {
    const d = dir();
    await exportTo({ resource: 'incidents', format: 'json', query: '', frontLinkBase: 'http://127.0.0.1:9000' }, path.join(d, 'incidents.json'));
    await exportTo({ resource: 'findings', format: 'json', query: 'order=title' }, path.join(d, 'findings.json'));
    await exportTo({ resource: 'serviceAssets', format: 'json', query: '' }, path.join(d, 'serviceAssets.json'));
    await context(d);
    const head = fs.readFileSync(path.join(d, 'incidents.json'), 'utf8').slice(0, 200);
    expect(head).toMatch(/^\{"objects":\[\n\{"id":/);
    const db = freshDb();
    const res = await importFiles(db, [d]);
    expect(res.files.find((f) => f.file.endsWith('incidents.json'))).toMatchObject({ shape: 'public-page', kinds: ['service_asset_findings'] });
    expect(res.cleared_references).toEqual({});
    expectIncidentsEqual(db);
  });

  it('v2 search answers with the relations loaded', async () => {
    const d = dir();
    await exportTo({ resource: 'service_asset_findings', format: 'json', search: { relations: ['service_asset', 'occurrences'] } }, path.join(d, 'service_asset_findings.json'));
    await exportTo({ resource: 'findings', format: 'json' }, path.join(d, 'findings.json'));
    await context(d);
    const text = fs.readFileSync(path.join(d, 'service_asset_findings.json'), 'utf8');
    expect(text).toMatch(/^\{"items":\[\n/);
    expect(text.trimEnd()).toMatch(/\],"total":400\}$/);
    const db = freshDb();
    const res = await importFiles(db, [d]);
    expect(res.files.find((f) => f.file.endsWith('service_asset_findings.json'))?.shape).toBe('v2-search');
    expectIncidentsEqual(db);
  });

  it('routing envelopes wrapping a v2 answer', async () => {
    const d = dir();
    const inner = path.join(tmp, `inner${++seq}.json`);
    await exportTo({ resource: 'service_asset_findings', format: 'json', search: { relations: ['service_asset', 'occurrences'] } }, inner);
    const wrapped = `[{"id":"5f0c0a0e-0000-4000-8000-000000000001","name":"Main","data":${fs.readFileSync(inner, 'utf8').trim()},"error":0,"status_code":200,"time":"2024-05-01T00:00:00Z","version":"3.7.0"}]`;
    fs.writeFileSync(path.join(d, 'incidents.json'), wrapped);
    await exportTo({ resource: 'findings', format: 'ndjson' }, path.join(d, 'findings.ndjson'));
    await context(d);
    const db = freshDb();
    const res = await importFiles(db, [d]);
    expect(res.files.find((f) => f.file.endsWith('incidents.json'))?.shape).toBe('envelope');
    expectIncidentsEqual(db);
  });

  it('NDJSON with the relations loaded', async () => {
    const d = dir();
    await exportTo({ resource: 'service_asset_findings', format: 'ndjson', search: { relations: ['service_asset', 'occurrences'] } }, path.join(d, 'service_asset_findings.ndjson'));
    await exportTo({ resource: 'findings', format: 'ndjson' }, path.join(d, 'findings.ndjson'));
    await context(d);
    const db = freshDb();
    await importFiles(db, [d]);
    expectIncidentsEqual(db);
  });

  it('a filtered export imports back to exactly the matching records', async () => {
    const d = dir();
    const search = { filters: [{ field: 'status', filter_type: 'intersection' as const, value: ['new', 'closed'] }], ordering: [{ field: 'risklevel', direction: 'desc' as const }] };
    const res = await exportTo({ resource: 'service_asset_findings', format: 'ndjson', search }, path.join(d, 'service_asset_findings.ndjson'));
    await exportTo({ resource: 'findings', format: 'ndjson' }, path.join(d, 'findings.ndjson'));
    await exportTo({ resource: 'service_assets', format: 'ndjson' }, path.join(d, 'service_assets.ndjson'));
    const db = freshDb();
    const summary = await importFiles(db, [d]);
    // The occurrences were not exported: the optional last_occurrence_id is cleared, and said so.
    expect(summary.cleared_references['service_asset_findings.last_occurrence_id']).toBeGreaterThan(0);
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ last_occurrence_id: _l, ...rest }) => rest);
    const want = table(src, R('service_asset_findings'), `status IN ('new', 'closed')`);
    expect(want.length).toBe(res.total);
    expect(strip(table(db, R('service_asset_findings')))).toEqual(strip(want));
    expect(table(db, R('service_asset_findings')).every((row) => row.last_occurrence_id === null)).toBe(true);
  });
});

describe('what an export holds', () => {
  const read = async (spec: ExportSpec) => {
    const f = path.join(tmp, `x${++seq}`);
    const res = await exportTo(spec, f);
    return { ...res, text: fs.readFileSync(f, 'utf8') };
  };

  it('the records and order of the v2 search and of the public list, with no row cap', async () => {
    const { db } = openDatabase(src, { readonly: true, create: false });
    const store = new Store(db);
    const req = { ...emptySearch(10_000, 0), filters: [{ field: 'status', filter_type: 'equal' as const, value: 'new' }], ordering: [{ field: 'risklevel', direction: 'desc' as const }] };
    const want = new Runner(store).search(R('service_asset_findings'), req).items;
    db.close();
    const v2 = await read({ resource: 'service_asset_findings', format: 'ndjson', search: { filters: req.filters, ordering: req.ordering } });
    expect(v2.text.trim().split('\n').map((l) => JSON.parse(l))).toEqual(want);
    const pub = await read({ resource: 'incidents', format: 'json', query: 'status=eq,new&order=-risklevel' });
    const body = JSON.parse(pub.text) as { objects: Record<string, unknown>[]; total: number };
    expect(body.total).toBe(want.length);
    expect(body.objects.map((o) => o.id)).toEqual(want.map((o) => o.id));
    expect(body.objects[0]).toHaveProperty('service_asset_name');
    expect(body.objects[0]).toHaveProperty('occurrences');
    const all = await read({ resource: 'service_asset_finding_status_changes', format: 'ndjson' });
    expect(all.text.trim().split('\n').length).toBe(930);
    const page = await read({ resource: 'incidents', format: 'json', query: 'page=2&per_page=7' });
    const p = JSON.parse(page.text) as { objects: unknown[]; total: number };
    expect([p.objects.length, p.total]).toEqual([7, 400]);
  });

  it('CSV: chosen columns, header, true/false, empty null, compact JSON, formula-safe text, BOM', async () => {
    const { db } = openDatabase(src, { create: false });
    db.prepare(`UPDATE findings SET title = '=HYPERLINK("http://x")', comment = NULL, cpes = '["cpe:2.3:a:x:*","y"]', identifier = '{"cve":"CVE-1"}' WHERE display_id = 1`).run();
    db.close();
    const csv = await read({ resource: 'findings', format: 'csv', columns: ['display_id', 'title', 'local', 'comment', 'cpes', 'identifier'], search: { ordering: [{ field: 'display_id', direction: 'asc' }] } });
    expect(csv.text.startsWith('\ufeffdisplay_id,title,local,comment,cpes,identifier\n')).toBe(true);
    const first = csv.text.split('\n')[1]!;
    expect(first).toBe(`1,"'=HYPERLINK(""http://x"")",false,,"[""cpe:2.3:a:x:*"",""y""]","{""cve"":""CVE-1""}"`);
    expect(csv.text.trim().split('\n').length).toBe(41);
    const semi = await read({ resource: 'findings', format: 'csv', columns: ['display_id', 'is_system'], delimiter: ';', bom: false });
    expect(semi.text.split('\n')[0]).toBe('display_id;is_system');
    expect(semi.text.split('\n')[1]).toMatch(/^\d+;(true|false)$/);
  });

  it('refuses an unknown resource, column, field or relation', () => {
    const bad: [ExportSpec, RegExp][] = [
      [{ resource: 'nope', format: 'json' }, /unknown resource: nope/],
      [{ resource: 'findings', format: 'csv', columns: ['title', 'nope'] }, /unknown column: nope/],
      [{ resource: 'findings', format: 'json', search: { filters: [{ field: 'nope', filter_type: 'equal', value: 1 }] } }, /unknown field: nope/],
      [{ resource: 'findings', format: 'json', search: { relations: ['nope'] } }, /unknown relation: nope/],
      [{ resource: 'incidents', format: 'json', query: 'status=like' }, /needs a value/],
      [{ resource: 'incidents', format: 'json', query: '', search: {} }, /either/],
    ];
    for (const [spec, re] of bad) {
      let err: unknown;
      try {
        prepareExport(src, spec).close();
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(spec)).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
      expect((err as Error).message).toMatch(re);
    }
  });
});
