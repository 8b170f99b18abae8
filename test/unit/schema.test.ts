// The registry is the single source of truth: a migrated database must match it exactly,
// or records would silently lose fields. These tests compare the two.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fieldsOf,
  getResource,
  linkTables,
  relationsOf,
  RESOURCES,
  validateRegistry,
  type FieldDef,
  type ResourceDef,
} from '../../src-shared/resources/index';
import { openDatabase, type Db } from '../../src-main/store/db';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from '../../src-main/store/migrations';

interface ColumnInfo {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

interface IndexListRow {
  seq: number;
  name: string;
  unique: number;
  origin: string;
  partial: number;
}

interface FkRow {
  table: string;
  from: string;
  to: string;
  on_delete: string;
}

const expectedType = (def: FieldDef): string => (def.kind === 'int' || def.kind === 'bool' ? 'INTEGER' : def.kind === 'number' ? 'REAL' : 'TEXT');

/** String fields virtual_search reads (computed independently of ddl.ts). */
const searchable = (r: ResourceDef): string[] =>
  Object.entries(r.fields)
    .filter(([, d]) => d.kind === 'string' && d.searchable !== false && !d.secret)
    .map(([n]) => n);

function columns(db: Db, table: string): Map<string, ColumnInfo> {
  const rows = db.prepare(`SELECT * FROM pragma_table_info(?)`).all(table) as ColumnInfo[];
  return new Map(rows.map((c) => [c.name, c]));
}

function uniqueIndexColumns(db: Db, table: string): string[][] {
  const list = db.prepare(`SELECT * FROM pragma_index_list(?)`).all(table) as IndexListRow[];
  return list
    .filter((i) => i.unique === 1)
    .map((i) => (db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(i.name) as { name: string }[]).map((c) => c.name));
}

function tableExists(db: Db, name: string): boolean {
  return !!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name);
}

describe('registry', () => {
  it('validateRegistry passes on the shipped declarations', () => {
    expect(() => validateRegistry()).not.toThrow();
  });

  it('declares the 27 resources, each with a unique name and table', () => {
    expect(RESOURCES).toHaveLength(27);
    expect(new Set(RESOURCES.map((r) => r.name)).size).toBe(27);
    expect(new Set(RESOURCES.map((r) => r.table)).size).toBe(27);
    for (const name of ['software_groups', 'input_sources', 'engine_go_rules', 'rules', 'service_assets', 'occurrences', 'custom_field_values', 'engine_go_rules_integration_actions', 'agents']) {
      expect(getResource(name).name).toBe(name);
    }
    expect(() => getResource('no_such_resource')).toThrow(/unknown resource/);
  });

  it('lists id first and created_at/updated_at after the stored fields', () => {
    for (const r of RESOURCES) {
      const names = fieldsOf(r).map((f) => f.name);
      expect(names[0]).toBe('id');
      const stored = Object.keys(r.fields);
      expect(names.slice(1, 1 + stored.length)).toEqual(stored);
      expect(names.slice(1 + stored.length, 3 + stored.length)).toEqual(['created_at', 'updated_at']);
    }
  });

  it('declares the two tree resources on their self-references', () => {
    expect(getResource('software_groups').tree).toEqual({ parent: 'parent_id' });
    expect(getResource('responsible_groups').tree).toEqual({ parent: 'parent_group' });
    expect(getResource('software_groups').fields.parent_id?.ref).toBe('software_groups');
    expect(getResource('responsible_groups').fields.parent_group?.ref).toBe('responsible_groups');
  });

  it('keeps the Cyrillic-first field name of incidents (с_customer_retention_time)', () => {
    const names = Object.keys(getResource('service_asset_findings').fields);
    expect(names).toContain('\u0441_customer_retention_time');
    expect(names).not.toContain('c_customer_retention_time');
  });

  it('declares every many-to-many link once with both sides', () => {
    const links = linkTables();
    expect(new Set(links.map((l) => l.table)).size).toBe(links.length);
    for (const l of links) {
      expect(l.a.col).not.toBe(l.b.col);
      const back = relationsOf(getResource(l.b.target)).find(([, rel]) => rel.kind === 'manyToMany' && rel.link === l.table);
      expect(back, `${l.table} declared on ${l.b.target}`).toBeDefined();
    }
    expect(links.map((l) => l.table)).toEqual(expect.arrayContaining(['software_group_engine_go_rules', 'rule_set_rules', 'service_asset_group_members']));
  });
});

describe('migrated database matches the registry', () => {
  let db: Db;
  beforeAll(() => {
    db = openDatabase(':memory:').db;
  });
  afterAll(() => db.close());

  it('is at SCHEMA_VERSION', () => {
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
  });

  it('numbers migrations 1, 2, … without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  for (const r of RESOURCES) {
    describe(r.name, () => {
      it('has id, created_at, updated_at as NOT NULL TEXT, id unique', () => {
        const cols = columns(db, r.table);
        for (const n of ['id', 'created_at', 'updated_at']) {
          expect(cols.get(n), `${r.table}.${n}`).toMatchObject({ type: 'TEXT', notnull: 1 });
        }
        expect(uniqueIndexColumns(db, r.table)).toContainEqual(['id']);
      });

      it('has every declared field with its SQL type and nullability', () => {
        const cols = columns(db, r.table);
        for (const [name, def] of Object.entries(r.fields)) {
          const c = cols.get(name);
          expect(c, `${r.table}.${name} missing`).toBeDefined();
          expect(c!.type, `${r.table}.${name} type`).toBe(expectedType(def));
          expect(c!.notnull, `${r.table}.${name} not null`).toBe(def.notNull ? 1 : 0);
        }
      });

      it('has no column the registry does not declare (besides the row id)', () => {
        const declared = new Set(['_rid', 'id', 'created_at', 'updated_at', ...Object.keys(r.fields)]);
        const extra = [...columns(db, r.table).keys()].filter((n) => !declared.has(n));
        expect(extra).toEqual([]);
      });

      it('has a unique index for each unique field', () => {
        const uniques = uniqueIndexColumns(db, r.table);
        for (const [name, def] of Object.entries(r.fields)) {
          if (def.unique) expect(uniques, `${r.table}.${name} unique`).toContainEqual([name]);
        }
      });

      it('has a foreign key for each reference, with the declared ON DELETE', () => {
        const fks = db.prepare(`SELECT * FROM pragma_foreign_key_list(?)`).all(r.table) as FkRow[];
        for (const [name, def] of Object.entries(r.fields)) {
          if (!def.ref) continue;
          const fk = fks.find((k) => k.from === name);
          expect(fk, `${r.table}.${name} foreign key`).toBeDefined();
          expect(fk!.table).toBe(getResource(def.ref).table);
          expect(fk!.to).toBe('id');
          expect(fk!.on_delete).toBe((def.onDelete ?? 'set null').toUpperCase());
        }
      });

      const textFields = searchable(r);
      if (textFields.length) {
        it('has an FTS table over its searchable string fields', () => {
          const fts = `${r.table}_fts`;
          expect(tableExists(db, fts)).toBe(true);
          const sql = (db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(fts) as { sql: string }).sql;
          expect(sql).toMatch(/fts5/i);
          expect(sql).toMatch(/trigram/);
          const ftsCols = [...columns(db, fts).keys()];
          expect(ftsCols.sort()).toEqual([...textFields].sort());
        });
      } else {
        it('has no FTS table (no searchable string fields)', () => {
          expect(tableExists(db, `${r.table}_fts`)).toBe(false);
        });
      }
    });
  }

  it('has every link table with both columns, a composite primary key and cascading FKs', () => {
    for (const l of linkTables()) {
      expect(tableExists(db, l.table), l.table).toBe(true);
      const cols = columns(db, l.table);
      expect(cols.get(l.a.col), `${l.table}.${l.a.col}`).toMatchObject({ type: 'TEXT', notnull: 1 });
      expect(cols.get(l.b.col), `${l.table}.${l.b.col}`).toMatchObject({ type: 'TEXT', notnull: 1 });
      expect(cols.get(l.a.col)!.pk).toBeGreaterThan(0);
      expect(cols.get(l.b.col)!.pk).toBeGreaterThan(0);
      const fks = db.prepare(`SELECT * FROM pragma_foreign_key_list(?)`).all(l.table) as FkRow[];
      expect(fks.find((k) => k.from === l.a.col)).toMatchObject({ table: getResource(l.a.target).table, on_delete: 'CASCADE' });
      expect(fks.find((k) => k.from === l.b.col)).toMatchObject({ table: getResource(l.b.target).table, on_delete: 'CASCADE' });
    }
  });

  it('has the settings table of migration 2', () => {
    expect([...columns(db, 'settings').keys()]).toEqual(['key', 'value']);
  });

  it('has foreign keys switched on', () => {
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('passes SQLite integrity and foreign key checks', () => {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });

  it('keeps the FTS index in step with inserts, updates and deletes', () => {
    const match = (text: string) =>
      (db.prepare(`SELECT t.id FROM software_groups t WHERE t._rid IN (SELECT rowid FROM software_groups_fts WHERE software_groups_fts MATCH ?)`).all(`"${text}"`) as {
        id: string;
      }[]).map((x) => x.id);
    db.prepare(`INSERT INTO software_groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)`).run('00000000-0000-4000-8000-000000000001', 'Антивирусы', 'x', 'x');
    expect(match('тивир')).toEqual(['00000000-0000-4000-8000-000000000001']);
    expect(match('АНТИ')).toEqual(['00000000-0000-4000-8000-000000000001']);
    db.prepare(`UPDATE software_groups SET name = ? WHERE id = ?`).run('Браузеры', '00000000-0000-4000-8000-000000000001');
    expect(match('тивир')).toEqual([]);
    expect(match('узер')).toEqual(['00000000-0000-4000-8000-000000000001']);
    db.prepare(`DELETE FROM software_groups WHERE id = ?`).run('00000000-0000-4000-8000-000000000001');
    expect(match('узер')).toEqual([]);
  });
});

describe('migrate', () => {
  it('is idempotent: a second run changes nothing and keeps user_version', () => {
    const { db } = openDatabase(':memory:');
    const before = db.prepare(`SELECT type, name, sql FROM sqlite_master ORDER BY name`).all();
    expect(migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    expect(migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.prepare(`SELECT type, name, sql FROM sqlite_master ORDER BY name`).all()).toEqual(before);
    db.close();
  });

  it('brings an empty database from 0 to SCHEMA_VERSION', () => {
    const db = new Database(':memory:');
    expect(migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(tableExists(db, 'service_assets')).toBe(true);
    db.close();
  });

  it('applies only the missing steps to a database at version 1', () => {
    const db = new Database(':memory:');
    db.transaction(() => {
      MIGRATIONS[0]!.up(db);
      db.pragma('user_version = 1');
    })();
    expect(tableExists(db, 'settings')).toBe(false);
    expect(migrate(db)).toEqual({ from: 1, to: SCHEMA_VERSION });
    expect(tableExists(db, 'settings')).toBe(true);
    db.close();
  });

  it('refuses a database newer than this build', () => {
    const db = new Database(':memory:');
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => migrate(db)).toThrow(/newer/);
    db.close();
  });
});

describe('file databases', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-schema-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens in WAL mode with foreign keys, creating missing folders', () => {
    const file = path.join(dir, 'nested', 'deeper', 'radar.sqlite');
    const { db, created } = openDatabase(file);
    expect(created).toBe(true);
    expect(fs.existsSync(file)).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('reopens an existing file without re-running migrations and keeps its data', () => {
    const file = path.join(dir, 'reopen.sqlite');
    const first = openDatabase(file);
    first.db.prepare(`INSERT INTO settings (key, value) VALUES ('k', 'значение')`).run();
    first.db.close();
    const second = openDatabase(file);
    expect(second.created).toBe(false);
    expect(second.db.prepare(`SELECT value FROM settings WHERE key = 'k'`).get()).toEqual({ value: 'значение' });
    expect(second.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    second.db.close();
  });

  it('refuses to create a missing file when create is false', () => {
    expect(() => openDatabase(path.join(dir, 'absent.sqlite'), { create: false })).toThrow(/does not exist/);
    expect(fs.existsSync(path.join(dir, 'absent.sqlite'))).toBe(false);
  });

  it('registers the Unicode case-folding SQL function', () => {
    const { db } = openDatabase(path.join(dir, 'fold.sqlite'));
    expect(db.prepare(`SELECT rc_fold('ПОДОЗРИТЕЛЬНЫЙ Вход') AS v`).get()).toEqual({ v: 'подозрительный вход' });
    expect(db.prepare(`SELECT rc_fold(NULL) AS v`).get()).toEqual({ v: null });
    db.close();
  });
});
