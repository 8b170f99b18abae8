// A plan streamed (the runner's stream, for exports): a read-only connection of its own with
// one read transaction (one consistent snapshot, never blocking the server's connection), the
// matches counted first by the runner, then the plan's page read in one statement (full-text
// matches as subqueries) row by row: the selected columns as arrays, or each record's JSON text
// written by SQLite itself (a BLOB, never decoded into a JavaScript string and encoded again).
// Relations of the rows are loaded in the same snapshot; the counts of what an export with its
// references carries and leaves out are read over the same matches.
import type Database from 'better-sqlite3';
import { fieldOf, getResource, relationsOf, type FieldInfo, type ResourceDef } from '../../../src-shared/resources/index';
import type { Rec } from '../api';
import { SECRET_MASK } from '../codec';
import { openDatabase } from '../db';
import { attachRelations } from '../relations';
import { q } from '../sql';
import { Statements } from '../statements';
import { inlineSlots, pageSqlOf, planResource, type Plan } from './plan';

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

/** The matches to stream: the plan's page in one statement, full-text matches as subqueries. */
interface StreamSource {
  sql: string;
  params: unknown[];
}

export interface Stream {
  /** The number of matches (before any page). */
  readonly total: number;
  /** The rows: arrays of the plan's fields then hidden keys, or each record's JSON text (json columns given). */
  rows(): IterableIterator<unknown>;
  /** Loads the plan's relations into records decoded from raw rows (same order), in the stream's snapshot. */
  attach(raw: Rec[], items: Rec[]): void;
  /** Counts of the records the plan's loaded relations carry and of those referring to the matches left out. */
  references(): ReferenceReport;
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
 * Opens the stream of a plan on `dbFile`: a read-only connection, BEGIN, the matches counted
 * (`count`, the runner's), the rows' statement prepared. `json`: the fields (in order) of each
 * record's JSON text; null for arrays. The query runner opens it (Runner.stream).
 */
export function openStream(dbFile: string, plan: Plan, json: readonly string[] | null, count: (st: Statements, plan: Plan) => number): Stream {
  const r = planResource(plan.resource);
  const page = pageSqlOf(r, plan);
  const src: StreamSource = inlineSlots(plan, page.sql, page.params);
  const selected = [...plan.fields, ...plan.hidden].map((n) => fieldOf(r, n)!);
  const { db } = openDatabase(dbFile, { readonly: true, create: false });
  const st = new Statements(db);
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
    total = count(st, plan);
    if (!json) stmt = db.prepare(src.sql).raw(true);
    else {
      const args = json
        .map((n) => fieldOf(r, n)!)
        .map((f) => `${sqlString(f.name)}, ${jsonValueSql(f, `p.${q(f.name)}`)}`)
        .join(', ');
      stmt = db.prepare(`SELECT CAST(json_object(${args}) AS BLOB) FROM (${src.sql}) p`).pluck(true);
    }
  } catch (e) {
    close();
    throw e;
  }
  return {
    total,
    rows: () => stmt.iterate(...src.params),
    attach: (raw, items) => attachRelations(st, r, raw, items, plan.load, plan.idRels, plan.relatedComputed),
    references: () => {
      try {
        return referenceReport(db, src, r, plan.load, selected);
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
