// Relation loading for pages, exports and single records: one query per relation for a whole
// page (never one per row): belongs-to objects, has-many and many-to-many lists, and the ids of
// linked records (`_relations`).
import { badRequest } from '../../src-shared/errors';
import { fieldsOf, getResource, type ResourceDef } from '../../src-shared/resources/index';
import type { Rec } from './api';
import { decodeRow } from './codec';
import { columnExpr } from './search';
import { q } from './sql';
import type { Statements } from './statements';

/** Alias of related rows; computed SQL uses short aliases (t, x, a, ...) and never this one. */
const REL = '_r';

/**
 * Loads relations for a page in one query per relation (never one per row): `load` fills each
 * item's relation keys (objects or lists), `ids` its `_relations`. `rows` are the raw rows
 * (they hold `id` and the belongs-to keys), `items` the decoded records, in the same order.
 */
export function attachRelations(st: Statements, r: ResourceDef, rows: Rec[], items: Rec[], load: readonly string[], ids: readonly string[], relatedComputed = true): void {
  if (!rows.length || (!load.length && !ids.length)) return;
  const ownerIds = rows.map((row) => row.id as string);
  const idsJson = JSON.stringify(ownerIds);
  for (const name of load) {
    const rel = r.relations![name]!;
    const target = getResource(rel.target);
    const tf = relatedComputed ? fieldsOf(target) : fieldsOf(target).filter((f) => f.source !== 'computed');
    const cols = tf.map((f) => `${columnExpr(target, f, REL)} AS ${q(f.name)}`).join(', ');
    if (rel.kind === 'belongsTo') {
      const fks = [...new Set(rows.map((row) => row[rel.fk]).filter((v): v is string => typeof v === 'string'))];
      const found = new Map<string, Rec>();
      if (fks.length) {
        for (const row of st.all(`SELECT ${cols} FROM ${q(target.table)} ${REL} WHERE ${REL}.id IN (SELECT value FROM json_each(?))`, [JSON.stringify(fks)])) {
          found.set(row.id as string, decodeRow(row, tf));
        }
      }
      rows.forEach((row, i) => (items[i]![name] = found.get(row[rel.fk] as string) ?? null));
      continue;
    }
    const sql =
      rel.kind === 'hasMany'
        ? `SELECT ${REL}.${q(rel.fk)} AS _owner, ${cols} FROM ${q(target.table)} ${REL} WHERE ${REL}.${q(rel.fk)} IN (SELECT value FROM json_each(?)) ORDER BY ${REL}._rid`
        : `SELECT _l.${q(rel.self)} AS _owner, ${cols} FROM ${q(rel.link)} _l JOIN ${q(target.table)} ${REL} ON ${REL}.id = _l.${q(rel.other)} WHERE _l.${q(rel.self)} IN (SELECT value FROM json_each(?)) ORDER BY ${REL}._rid`;
    const grouped = new Map<string, Rec[]>();
    for (const row of st.all(sql, [idsJson])) {
      const owner = row._owner as string;
      let list = grouped.get(owner);
      if (!list) grouped.set(owner, (list = []));
      list.push(decodeRow(row, tf));
    }
    rows.forEach((row, i) => (items[i]![name] = grouped.get(row.id as string) ?? []));
  }
  if (ids.length) {
    const maps = ids.map((name) => [name, relatedIds(st, r, name, idsJson)] as const);
    rows.forEach((row, i) => {
      const rels: Record<string, string[]> = {};
      for (const [name, m] of maps) rels[name] = m.get(row.id as string) ?? [];
      items[i]!._relations = rels;
    });
  }
}

/** owner id → ids of related entities, for a has-many or many-to-many relation. */
export function relatedIds(st: Statements, r: ResourceDef, name: string, ownerIdsJson: string): Map<string, string[]> {
  const rel = r.relations![name]!;
  const target = getResource(rel.target);
  let sql: string;
  if (rel.kind === 'hasMany') {
    sql = `SELECT x.${q(rel.fk)} AS o, x.id AS i FROM ${q(target.table)} x WHERE x.${q(rel.fk)} IN (SELECT value FROM json_each(?)) ORDER BY x._rid`;
  } else if (rel.kind === 'manyToMany') {
    sql = `SELECT l.${q(rel.self)} AS o, l.${q(rel.other)} AS i FROM ${q(rel.link)} l WHERE l.${q(rel.self)} IN (SELECT value FROM json_each(?))`;
  } else {
    throw badRequest(`_relations lists has-many and many-to-many links only: ${name}`);
  }
  const m = new Map<string, string[]>();
  for (const row of st.all<{ o: string; i: string }>(sql, [ownerIdsJson])) {
    let list = m.get(row.o);
    if (!list) m.set(row.o, (list = []));
    list.push(row.i);
  }
  return m;
}
