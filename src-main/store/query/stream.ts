// An export's reading side: a read-only connection of its own with one read transaction (one
// consistent snapshot, never blocking the server's connection), the matches counted first, then
// streamed row by row: the selected columns as arrays, or each record's JSON text written by
// SQLite itself (a BLOB, never decoded into a JavaScript string and encoded again). Also the
// counts of what an export with its references carries and leaves out, over the same matches.
import type Database from 'better-sqlite3';
import { getResource, relationsOf, type FieldInfo, type ResourceDef } from '../../../src-shared/resources/index';
import { SECRET_MASK } from '../codec';
import { openDatabase } from '../db';
import { q } from '../sql';
import { Store } from '../store';
import type { Plan } from './plan';
import { Runner } from './runner';

/** What an export with its references carries beside its records, and what it leaves out. */
export interface ReferenceReport {
  /** Each relation loaded: the records it brings (distinct). */
  carried: { relation: string; resource: string; records: number }[];
  /**
   * Records of other resources that refer to the exported ones (an incident's occurrences,
   * status changes, messages): not references of theirs, so not in the file; those a carried
   * relation brings anyway (each incident's last occurrence) are not counted.
   */
  left: { relation: string; resource: string; field: string; records: number }[];
}

/** The matches to stream: the plan (counted with it) and its page in one statement, full-text matches as subqueries. */
export interface StreamSource {
  query: Plan;
  sql: string;
  params: unknown[];
}

export interface Stream {
  /** A store on the stream's connection (relations of the rows are loaded with it, in the same snapshot). */
  readonly store: Store;
  /** The number of matches (before any page). */
  readonly total: number;
  /** The rows: arrays of the page's columns, or each record's JSON text (json columns given). */
  rows(): IterableIterator<unknown>;
  /** Counts of the records the loaded relations carry and of those referring to the matches left out. */
  references(r: ResourceDef, load: readonly string[], selected: readonly FieldInfo[]): ReferenceReport;
  /** Ends the read transaction and closes the connection (once; later calls do nothing). */
  close(): void;
}

/** A SQL string literal of a field name (names come from the registry). */
const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * The SQL value of a field inside json_object(), as decodeValue reads it: booleans true/false,
 * json text as JSON (null when it is not JSON), secrets masked. SQLite writes the record's text
 * itself, several times faster than assembling it in JavaScript; numbers are written so that they
 * read back the same (a real 10 is written 10.0).
 */
function jsonValueSql(f: FieldInfo, col: string): string {
  if (f.def?.secret) return `CASE WHEN ${col} IS NULL THEN NULL ELSE '${SECRET_MASK}' END`;
  switch (f.kind) {
    case 'bool':
      return `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} = 1 OR ${col} = '1' THEN json('true') ELSE json('false') END`;
    case 'json':
      return `CASE WHEN json_valid(${col}) THEN json(${col}) END`;
    default:
      return col;
  }
}

/**
 * Opens the stream on `dbFile`: a read-only connection, BEGIN, the matches counted, the rows'
 * statement prepared. `json`: the columns (in order) of each record's JSON text; null for arrays.
 */
export function openStream(dbFile: string, src: StreamSource, json: readonly FieldInfo[] | null): Stream {
  const { db } = openDatabase(dbFile, { readonly: true, create: false });
  const store = new Store(db);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  };
  let total: number;
  let stmt: Database.Statement<unknown[], unknown>;
  try {
    db.unsafeMode(true);
    db.exec('BEGIN');
    total = new Runner(store).count(src.query);
    if (!json) stmt = db.prepare(src.sql).raw(true);
    else {
      const args = json.map((f) => `${sqlString(f.name)}, ${jsonValueSql(f, `p.${q(f.name)}`)}`).join(', ');
      stmt = db.prepare(`SELECT CAST(json_object(${args}) AS BLOB) FROM (${src.sql}) p`).pluck(true);
    }
  } catch (e) {
    close();
    throw e;
  }
  return {
    store,
    total,
    rows: () => stmt.iterate(...src.params),
    references: (r, load, selected) => {
      try {
        return referenceReport(db, src, r, load, selected);
      } catch (e) {
        close();
        throw e;
      }
    },
    close,
  };
}

/**
 * What the references of an export's records bring, and what stays out: records of other kinds
 * that refer to the exported ones. Counted in SQL over the export's own matches, in its read
 * transaction.
 */
function referenceReport(db: Database.Database, src: StreamSource, r: ResourceDef, load: readonly string[], selected: readonly FieldInfo[]): ReferenceReport {
  const has = (name: string) => selected.some((f) => f.name === name);
  const matches = `(${src.sql})`;
  const one = (sql: string): number => (db.prepare(sql).pluck(true).get(...src.params) as number) ?? 0;
  const carried: ReferenceReport['carried'] = [];
  const bringing = new Map<string, string[]>();
  for (const name of load) {
    const rel = r.relations![name]!;
    if (rel.kind === 'hasMany' && has('id')) {
      // Loaded lists come along whole (the public incident's occurrences).
      const target = getResource(rel.target);
      carried.push({ relation: name, resource: rel.target, records: one(`SELECT COUNT(*) FROM ${q(target.table)} x WHERE x.${q(rel.fk)} IN (SELECT p.id FROM ${matches} p)`) });
      continue;
    }
    if (rel.kind !== 'belongsTo' || !has(rel.fk)) continue;
    const target = getResource(rel.target);
    const n = one(`SELECT COUNT(DISTINCT p.${q(rel.fk)}) FROM ${matches} p WHERE p.${q(rel.fk)} IN (SELECT x.id FROM ${q(target.table)} x)`);
    carried.push({ relation: name, resource: rel.target, records: n });
    bringing.set(rel.target, [...(bringing.get(rel.target) ?? []), rel.fk]);
  }
  const left: ReferenceReport['left'] = [];
  if (has('id')) {
    for (const [name, rel] of relationsOf(r)) {
      if (rel.kind !== 'hasMany' || load.includes(name)) continue;
      const target = getResource(rel.target);
      // Those a carried relation brings anyway are not left out.
      const brought = (bringing.get(rel.target) ?? []).map((fk) => ` AND x.id NOT IN (SELECT p.${q(fk)} FROM ${matches} p WHERE p.${q(fk)} IS NOT NULL)`).join('');
      const sql = `SELECT COUNT(*) FROM ${q(target.table)} x WHERE x.${q(rel.fk)} IN (SELECT p.id FROM ${matches} p)${brought}`;
      const params = [...src.params, ...(bringing.get(rel.target) ?? []).flatMap(() => src.params)];
      const n = (db.prepare(sql).pluck(true).get(...params) as number) ?? 0;
      if (n > 0) left.push({ relation: name, resource: rel.target, field: rel.fk, records: n });
    }
  }
  return { carried, left };
}
