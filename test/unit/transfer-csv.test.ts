// CSV import: every resource exported as CSV (field names, English and Russian column names,
// each delimiter) imports back equal; cells typed from the declaration (null and "", formula
// guards, spreadsheet numbers and booleans, JSON); encodings and delimiters detected or given;
// columns that name no field refused by name; every refusal located (file:line, record, field).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { seedDemo } from '../../src-main/store/seed';
import { Store } from '../../src-main/store/store';
import { readCsv } from '../../src-main/transfer/csv';
import { TransferError } from '../../src-main/transfer/errors';
import { prepareExport, type ExportSpec } from '../../src-main/transfer/export';
import { headerOf, keyOfHeader } from '../../src-main/transfer/headers';
import { importFiles, type ImportOptions } from '../../src-main/transfer/import';
import { CSV_HEADERS } from '../../src-shared/choices';
import { FIELD_LABELS } from '../../src-shared/field-labels';
import { RESOURCES, getResource, linkTables, listRelationsOf, type ResourceDef } from '../../src-shared/resources/index';
import { parseCsv } from '../helpers/csv';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-csv-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let seq = 0;
const dir = (): string => {
  const d = path.join(tmp, `d${++seq}`);
  fs.mkdirSync(d);
  return d;
};
const freshDb = (): string => path.join(tmp, `db${++seq}.sqlite`);
const file = (name: string, content: string | Buffer): string => {
  const p = path.join(dir(), name);
  fs.writeFileSync(p, content);
  return p;
};

let src: string;
beforeAll(() => {
  src = path.join(tmp, 'src.sqlite');
  const { db } = openDatabase(src);
  seedDemo(new Store(db));
  db.close();
});

async function exportTo(spec: ExportSpec, out: string): Promise<void> {
  const ex = prepareExport(src, spec);
  const chunks: Buffer[] = [];
  for await (const chunk of ex.chunks()) chunks.push(chunk);
  fs.writeFileSync(out, Buffer.concat(chunks));
}

/**
 * Rows by id, every column but _rid and secrets, each value with its SQLite type (5 and 5.0
 * differ); json text parsed (a declared shape orders keys its own way, as for any import).
 */
function table(dbFile: string, r: ResourceDef): unknown[][] {
  const db = new Database(dbFile, { readonly: true });
  try {
    const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(r.table) as { name: string }[]).map((c) => c.name).filter((c) => c !== '_rid' && !r.fields[c]?.secret);
    const raw = db.prepare(`SELECT ${cols.map((c) => `typeof("${c}"), "${c}"`).join(', ')} FROM "${r.table}" ORDER BY id`).raw(true).all() as unknown[][];
    return raw.map((row) => row.map((v, i) => (i % 2 === 1 && r.fields[cols[(i - 1) / 2]!]?.kind === 'json' && typeof v === 'string' ? JSON.parse(v) : v)));
  } finally {
    db.close();
  }
}

function rows(dbFile: string, sql: string): Record<string, unknown>[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

async function refused(paths: string[], opts: ImportOptions = {}): Promise<TransferError> {
  const db = freshDb();
  try {
    await importFiles(db, paths, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(TransferError);
    expect(fs.existsSync(db)).toBe(false);
    return e as TransferError;
  }
  throw new Error('the import was not refused');
}

/** Windows-1251 bytes of a text (every character of it must have one). */
function cp1251(text: string): Buffer {
  const dec = new TextDecoder('windows-1251');
  const map = new Map<string, number>();
  for (let b = 0; b < 256; b++) map.set(dec.decode(Uint8Array.of(b)), b);
  return Buffer.from([...text].map((c) => map.get(c) ?? (c.charCodeAt(0) < 128 ? c.charCodeAt(0) : 0x3f)));
}

describe('CSV exports import back equal', () => {
  it('every resource with its many-to-many links: field names, English and Russian column names, each delimiter, names beside ids', async () => {
    const d = dir();
    const delimiters = [',', ';', '\t'] as const;
    let i = 0;
    for (const r of RESOURCES) {
      const m2m = listRelationsOf(r)
        .filter(([, rel]) => rel.kind === 'manyToMany')
        .map(([n]) => n);
      const headers = CSV_HEADERS[i % 3]!;
      const delimiter = delimiters[Math.floor(i / 3) % 3]!;
      await exportTo({ resource: r.name, format: 'csv', search: { _relations: m2m }, headers, delimiter, withNames: i % 2 === 0 }, path.join(d, `${r.name}.csv`));
      i++;
    }
    const db = freshDb();
    const summary = await importFiles(db, [d]);
    expect(summary.cleared_references).toEqual({});
    expect(summary.ignored_fields).toEqual({});
    expect(summary.files.every((f) => f.shape === 'csv' && f.encoding === 'UTF-8')).toBe(true);
    for (const r of RESOURCES) expect(table(db, r), r.name).toEqual(table(src, r));
    const links = (f: string, name: string) => rows(f, `SELECT * FROM "${name}" ORDER BY 1, 2`);
    for (const l of linkTables()) expect(links(db, l.table), l.table).toEqual(links(src, l.table));
    // Imported again: nothing changes.
    const again = await importFiles(db, [d]);
    for (const [name, c] of Object.entries(again.resources)) expect({ name, inserted: c.inserted, updated: c.updated }).toEqual({ name, inserted: 0, updated: 0 });
  });

  it('public pages as CSV: incidents with their asset and occurrences as JSON cells', async () => {
    const d = dir();
    await exportTo({ resource: 'incidents', format: 'csv', query: '', headers: 'ru', delimiter: ';' }, path.join(d, 'incidents.csv'));
    await exportTo({ resource: 'findings', format: 'csv', query: '' }, path.join(d, 'findings.csv'));
    const db = freshDb();
    const s = await importFiles(db, [d]);
    expect(Object.keys(s.resources).sort()).toEqual(['findings', 'occurrences', 'service_asset_findings', 'service_assets']);
    for (const name of ['service_asset_findings', 'findings']) expect(table(db, getResource(name)), name).toEqual(table(src, getResource(name)));
    expect(rows(db, 'SELECT COUNT(*) AS n FROM occurrences')[0]!.n).toBe(rows(src, 'SELECT COUNT(*) AS n FROM occurrences WHERE service_asset_finding_id IS NOT NULL')[0]!.n);
  });
});

describe('headers', () => {
  it('a column named in a language reads back as that column, in every resource; names shared by two keys go to the stored field', () => {
    for (const r of RESOURCES) {
      for (const style of CSV_HEADERS) {
        for (const c of [...Object.keys(r.fields), 'id', 'created_at', 'updated_at']) expect(keyOfHeader(r, headerOf(r, c, style)), `${r.name}.${c} ${style}`).toBe(c);
      }
    }
    const inc = getResource('service_asset_findings');
    expect(FIELD_LABELS.en.service_asset).toBe(FIELD_LABELS.en.service_asset_id);
    expect(keyOfHeader(inc, 'Asset')).toBe('service_asset_id');
    expect(headerOf(inc, 'service_asset', 'en')).toBe('service_asset');
    expect(keyOfHeader(inc, '  уровень   РИСКА ')).toBe('risklevel');
    expect(keyOfHeader(inc, 'Изменен')).toBe('updated_at');
  });
});

describe('cells', () => {
  const findingId = '11111111-1111-4111-8111-111111111111';
  const header = 'id,title,description,comment,display_id,local,identifier,fallback_raw_risklevel,cpes';
  const read = async (text: string | Buffer, name = 'findings.csv', opts: ImportOptions = {}) => {
    const db = freshDb();
    const s = await importFiles(db, [file(name, text)], opts);
    return { s, rec: rows(db, `SELECT * FROM findings WHERE id = '${findingId}'`)[0]! };
  };

  it('an empty cell is null, "" the empty text; numbers, booleans and JSON from the declaration; formula guards taken off', async () => {
    const { rec } = await read(`${header}\n${findingId},"'=SUM(A1)",,"",7,false,"{""cve"":""CVE-1""}",5.5,"[""a"",""b""]"\n`);
    expect(rec).toMatchObject({ title: '=SUM(A1)', description: null, comment: '', display_id: 7, local: 0, identifier: '{"cve":"CVE-1"}', fallback_raw_risklevel: 5.5, cpes: '["a","b"]' });
  });

  it('"" is told from an empty cell after quoted cells holding quotes, delimiters and line breaks', async () => {
    const { rec } = await read(`title;description;comment;synopsis;id\r\n"say ""hi"";\r\n""ok""";"";;"""";${findingId}\r\n`);
    expect(rec).toMatchObject({ title: 'say "hi";\r\n"ok"', description: '', comment: null, synopsis: '"' });
  });

  it('text that starts with apostrophes before a formula character survives export and import', async () => {
    const titles = ["'=x", "''-1", '+7 999', '@me', "'plain", '-'];
    const d = dir();
    const db0 = freshDb();
    await importFiles(db0, [file('findings.ndjson', titles.map((t, i) => JSON.stringify({ id: `11111111-1111-4111-8111-${String(i).padStart(12, '0')}`, title: t })).join('\n'))]);
    const ex = prepareExport(db0, { resource: 'findings', format: 'csv', columns: ['id', 'title'] });
    const chunks: Buffer[] = [];
    for await (const c of ex.chunks()) chunks.push(c);
    fs.writeFileSync(path.join(d, 'findings.csv'), Buffer.concat(chunks));
    const db = freshDb();
    await importFiles(db, [d]);
    expect(rows(db, 'SELECT title FROM findings ORDER BY id').map((r) => r.title)).toEqual(titles);
  });

  it('as a spreadsheet writes them: TRUE, ИСТИНА, 1, decimal commas and grouped digits with ;, an empty notNull cell leaves the default', async () => {
    const h = 'id;title;local;new_version;is_system;fallback_raw_risklevel;display_id';
    const { rec } = await read(`${h}\r\n${findingId};x;ИСТИНА;TRUE;1;7,25;1 234\r\n`);
    expect(rec).toMatchObject({ local: 1, new_version: 1, is_system: 1, fallback_raw_risklevel: 7.25, display_id: 1234 });
    const comma = await refused([file('findings.csv', `id,title,fallback_raw_risklevel\n${findingId},x,"7,25"\n`)]);
    expect(comma.message).toMatch(/findings\.csv:2: record #1 \(id 11111111-1111-4111-8111-111111111111\): field fallback_raw_risklevel: .*expected number/);
  });

  it('rows of empty cells and blank lines are no records; a column without a header must stay empty', async () => {
    const { s } = await read(`id,title,,\n\n${findingId},x,,\n,,,\n`);
    expect(s.records).toBe(1);
    const e = await refused([file('findings.csv', `id,title,\n${findingId},x,oops\n`)]);
    expect(e.message).toMatch(/findings\.csv:2: record #1 \(id [0-9a-f-]+\): cell 3 has a value but its column has no header/);
    const more = await refused([file('findings.csv', `id,title\n${findingId},x,y\n`)]);
    expect(more.message).toMatch(/findings\.csv:2: record #1: the row has 3 cells, the header 2/);
  });

  it('JSON cells that are not JSON, at their line, record and field', async () => {
    const e = await refused([file('findings.csv', `id,title,identifier\n${findingId},"a\nb",{cve\n`)]);
    expect(e.where).toMatchObject({ file: expect.stringMatching(/findings\.csv$/), line: 2, record: '#1', field: 'identifier', id: findingId });
    expect(e.message).toMatch(/expected an object as JSON text \(as the export writes it\), got "\{cve"/);
  });
});

describe('lines', () => {
  it('records spanning lines (LF, CR LF inside quotes, CR LF rows, blank lines) are located at their first line', async () => {
    const id = (n: number) => `11111111-1111-4111-8111-${String(n).padStart(12, '0')}`;
    for (const [eol, inner] of [
      ['\n', '\n'],
      ['\r\n', '\r\n'],
      ['\r\n', '\n'],
    ] as const) {
      const text = ['id,title,display_id', `${id(1)},"one${inner}two${inner}three",1`, '', `${id(2)},"a${inner}b",2`, `${id(3)},c,x`].join(eol);
      const e = await refused([file('findings.csv', text + eol)]);
      expect(e.where, JSON.stringify(eol + inner)).toMatchObject({ line: 8, record: '#3', field: 'display_id' });
    }
  });

  it('a quote that is never closed, at the record it opens in', async () => {
    const e = await refused([file('findings.csv', 'id,title\n11111111-1111-4111-8111-111111111111,x\n22222222-1111-4111-8111-111111111111,"no end\nmore\n')]);
    expect(e.message).toMatch(/findings\.csv:3: invalid CSV: a quoted cell that starts in the record on this line is not closed/);
  });
});

describe('encodings and delimiters', () => {
  const text = 'id;title;description\r\n11111111-1111-4111-8111-111111111111;Подбор пароля;«Учётная запись» № 5\r\n';
  const expectRead = async (content: Buffer, name: string, want: { encoding: string; delimiter: string }, opts: ImportOptions = {}) => {
    const db = freshDb();
    const s = await importFiles(db, [file(name, content)], opts);
    expect(s.files[0]).toMatchObject({ shape: 'csv', kinds: ['findings'], ...want });
    expect(rows(db, 'SELECT title, description FROM findings')).toEqual([{ title: 'Подбор пароля', description: '«Учётная запись» № 5' }]);
  };

  it('UTF-8 with or without a byte-order mark, Windows-1251, UTF-16 with its mark', async () => {
    await expectRead(Buffer.from(`\ufeff${text}`), 'findings.csv', { encoding: 'UTF-8', delimiter: ';' });
    await expectRead(Buffer.from(text), 'findings.csv', { encoding: 'UTF-8', delimiter: ';' });
    await expectRead(cp1251(text), 'findings.csv', { encoding: 'Windows-1251', delimiter: ';' });
    await expectRead(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.replace(/;/g, '\t'), 'utf16le')]), 'findings.txt.csv', { encoding: 'UTF-16', delimiter: '\t' });
    await expectRead(cp1251(text), 'findings.csv', { encoding: 'Windows-1251', delimiter: ';' }, { encoding: 'windows-1251', delimiter: ';' });
  });

  it('Windows-1251 found after a long ASCII start; a file that turns out not to be UTF-8 is refused at the line, with the flag that reads it', async () => {
    const ascii = Array.from({ length: 3000 }, (_, i) => `3333${String(i).padStart(4, '0')}-1111-4111-8111-111111111111;title number ${i};plain`).join('\r\n');
    await expect(importFiles(freshDb(), [file('findings.csv', cp1251(`id;title;description\r\n${ascii}\r\n${text.split('\r\n')[1]}\r\n`))])).resolves.toMatchObject({ records: 3001, files: [{ encoding: 'Windows-1251' }] });
    const mixed = Buffer.concat([Buffer.from(`id;title\r\n11111111-1111-4111-8111-111111111111;Пароль\r\n${ascii.replace(/;plain/g, '')}\r\n`), cp1251('22222222-1111-4111-8111-111111111111;Пароль\r\n')]);
    const e = await refused([file('findings.csv', mixed)]);
    expect(e.message).toMatch(/findings\.csv:3003: the text is not UTF-8 here \(byte 0xCF\), though the file began as UTF-8; give its encoding \(--encoding windows-1251/);
  });

  it('the delimiter the header row holds most of, outside quotes; a tab for .tsv; or the one given', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    for (const [content, name, delimiter] of [
      [`"id;x",title\n`, 'a.csv', ','],
      [`id\ttitle\n${id}\tx\n`, 'findings.tsv', '\t'],
      [`id,title\n${id},"a;b"\n`, 'findings.csv', ','],
      [`title\nx\n`, 'findings.csv', ','],
    ] as const) {
      if (name === 'a.csv') {
        const e = await refused([file(name, content)]);
        expect(e.message).toContain('"id;x"');
        continue;
      }
      const s = await importFiles(freshDb(), [file(name, content)]);
      expect(s.files[0]!.delimiter).toBe(delimiter);
    }
    const forced = await refused([file('findings.csv', `id,title\n${id},x\n`)], { delimiter: ';' });
    expect(forced.message).toMatch(/no column names a field of any resource \("id,title"\)/);
  });

  it('streams: records reach the importer while the file is still being read', async () => {
    const row = `11111111-1111-4111-8111-111111111111,${'x'.repeat(900)},"quoted, with ""quotes"""\n`;
    const blocks = 120;
    let bytes = 0;
    let atFirst = -1;
    let records = 0;
    const entry = {
      name: 'findings.csv',
      size: null,
      open: async () =>
        Readable.from(
          (function* () {
            yield Buffer.from('id,title,description\n');
            const block = Buffer.from(row.repeat(64));
            for (let i = 0; i < blocks; i++) yield block;
          })(),
        ),
    };
    const sink = {
      record: () => {
        if (atFirst < 0) atFirst = bytes;
        records++;
      },
      note: () => {},
    };
    await readCsv(entry, sink, { onBytes: (n) => (bytes += n), kind: getResource('findings') });
    expect(records).toBe(blocks * 64);
    expect(bytes).toBeGreaterThan(7 * 1024 * 1024);
    // The first record came before the first megabyte of the 7 was read.
    expect(atFirst).toBeGreaterThan(0);
    expect(atFirst).toBeLessThan(1024 * 1024);
  });
});

describe('columns that name no field', () => {
  it('are refused by name, or skipped and counted with ignoreUnknown; a resource is told from the columns, the file name breaking ties', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    const e = await refused([file('findings.csv', `id,title,Foo,Бар\n${id},x,1,2\n`)]);
    expect(e.message).toMatch(/findings\.csv:1: 2 columns name no field of findings: "Foo", "Бар"; .*--ignore-unknown/);
    const db = freshDb();
    const s = await importFiles(db, [file('findings.csv', `id,title,Foo,Бар\n${id},x,1,2\n`)], { ignoreUnknown: true });
    expect(s.ignored_fields).toEqual({ 'findings.Foo': 1, 'findings.Бар': 1 });
    // No file name: the columns alone (title + cpes: only finding types have both).
    const told = await importFiles(freshDb(), [file('data.csv', `id,title,cpes\n${id},x,[]\n`)]);
    expect(told.files[0]!.kinds).toEqual(['findings']);
    const unclear = await refused([file('data.csv', `id,name\n${id},x\n`)]);
    expect(unclear.message).toMatch(/cannot tell which resource the rows of this file are: it fits .*; name it with --kind/);
    const closest = await refused([file('data.csv', `id,title,cpes,Foo\n${id},x,[],1\n`)]);
    expect(closest.message).toMatch(/a column names no field of findings: "Foo"/);
    const none = await refused([file('data.csv', 'a,b\n1,2\n')]);
    expect(none.message).toMatch(/no column names a field of any resource \("a", "b"\)/);
    const twice = await refused([file('findings.csv', `id,Название,title\n${id},x,y\n`)]);
    expect(twice.message).toMatch(/the columns "Название", "title" both name the field title/);
  });

  it('CSV files in folders and .zip archives, beside JSON', async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'findings-a.csv'), 'id,title\n11111111-1111-4111-8111-111111111111,x\n');
    fs.writeFileSync(path.join(d, 'findings-b.ndjson'), '{"id":"22222222-1111-4111-8111-111111111111","title":"y"}\n');
    expect((await importFiles(freshDb(), [d])).records).toBe(2);
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('id,title\n11111111-1111-4111-8111-111111111111,x\n'), 'x/findings.csv');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const s = await importFiles(freshDb(), [file('upload.zip', Buffer.concat(chunks))]);
    expect(s.files).toMatchObject([{ file: expect.stringMatching(/upload\.zip:x\/findings\.csv$/), shape: 'csv', kinds: ['findings'] }]);
  });
});

describe('the test helper agrees', () => {
  it('parseCsv reads what the export writes', async () => {
    const out = path.join(dir(), 'findings.csv');
    await exportTo({ resource: 'findings', format: 'csv', columns: ['id', 'title'], headers: 'ru' }, out);
    expect(parseCsv(fs.readFileSync(out, 'utf8').replace(/^\ufeff/, ''))[0]).toEqual(['Идентификатор', 'Название']);
  });
});
