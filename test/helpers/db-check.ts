// Whether a database file is whole after a crash: SQLite's integrity check, foreign keys, every
// resource's search index checked against its table (FTS5 integrity-check), and optionally its
// schema (tables, indexes, triggers) compared with what it was before.
import Database from 'better-sqlite3';
import { ftsTable, searchableFields } from '../../src-main/store/ddl';
import { RESOURCES } from '../../src-shared/resources/index';

export type Schema = { type: string; name: string }[];

const schemaQuery = `SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`;

export function schemaOf(file: string): Schema {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(schemaQuery).all() as Schema;
  } finally {
    db.close();
  }
}

/** What is wrong with the database (nothing: an empty list). */
export function databaseProblems(file: string, schemaBefore?: Schema): string[] {
  const problems: string[] = [];
  const db = new Database(file);
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length) problems.push(`foreign_key_check: ${JSON.stringify(fk.slice(0, 3))}`);
    for (const r of RESOURCES) {
      if (!searchableFields(r).length) continue;
      const fts = ftsTable(r);
      try {
        db.exec(`INSERT INTO "${fts}"("${fts}", rank) VALUES ('integrity-check', 1)`);
      } catch (e) {
        problems.push(`${fts}: ${(e as Error).message}`);
      }
    }
    if (schemaBefore && JSON.stringify(db.prepare(schemaQuery).all()) !== JSON.stringify(schemaBefore)) {
      problems.push('the schema differs from before (triggers or indexes not restored)');
    }
  } finally {
    db.close();
  }
  return problems;
}
