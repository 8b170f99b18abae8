// Link lists (`_relations`): making a record's links of one relation equal to a list. The SQL
// is written here once, for the API's writes (Store.setRelations) and the bulk writes.
import { badRequest } from '../../../src-shared/errors';
import { getResource, type RelationDef, type ResourceDef } from '../../../src-shared/resources/index';
import { isUuid } from '../../../src-shared/schemas/common';
import type { Rec } from '../api';
import { q } from '../sql';

/** What setRelations needs of the store: its cached statements. */
export interface LinkSql {
  get1<T = Rec>(sql: string, params?: readonly unknown[]): T | undefined;
  run(sql: string, params?: readonly unknown[]): { changes: number };
}

/**
 * The two statements making a many-to-many link list equal to a JSON list of ids: the links
 * not in it removed, the missing ones added. Parameters of each: (owner id, ids JSON).
 */
export function manyToManySql(rel: Extract<RelationDef, { kind: 'manyToMany' }>): [remove: string, add: string] {
  const link = q(rel.link);
  return [
    `DELETE FROM ${link} WHERE ${q(rel.self)} = ? AND ${q(rel.other)} NOT IN (SELECT value FROM json_each(?))`,
    `INSERT OR IGNORE INTO ${link} (${q(rel.self)}, ${q(rel.other)}) SELECT ?, value FROM json_each(?)`,
  ];
}

/**
 * Makes each listed link kind equal to its list (spec: link management through `_relations`):
 * absent keys are left alone, [] removes all; every id must exist.
 */
export function setRelations(s: LinkSql, r: ResourceDef, id: string, rels: Record<string, string[] | undefined>, at: string): void {
  for (const [name, list] of Object.entries(rels)) {
    if (list === undefined) continue;
    const rel = r.relations?.[name];
    if (!rel || rel.kind === 'belongsTo') throw badRequest(`unknown relation: ${name}`);
    const ids = [...new Set(list.map((x) => (typeof x === 'string' ? x.toLowerCase() : x)))];
    const target = getResource(rel.target);
    if (ids.some((x) => !isUuid(x))) throw badRequest(`incorrect relation identifiers for ${name}`);
    const json = JSON.stringify(ids);
    const found = s.get1<{ n: number }>(`SELECT COUNT(*) AS n FROM ${q(target.table)} WHERE id IN (SELECT value FROM json_each(?))`, [json])!.n;
    if (found !== ids.length) throw badRequest(`incorrect relation identifiers for ${name}`);
    if (rel.kind === 'manyToMany') {
      const [remove, add] = manyToManySql(rel);
      s.run(remove, [id, json]);
      s.run(add, [id, json]);
    } else {
      const tt = q(target.table);
      const fk = q(rel.fk);
      const detach = s.get1<{ n: number }>(`SELECT COUNT(*) AS n FROM ${tt} WHERE ${fk} = ? AND id NOT IN (SELECT value FROM json_each(?))`, [id, json])!.n;
      if (detach > 0) {
        if (target.fields[rel.fk]!.notNull) throw badRequest(`${name} cannot be detached from ${r.name}: ${rel.target}.${rel.fk} is required`);
        s.run(`UPDATE ${tt} SET ${fk} = NULL, updated_at = ? WHERE ${fk} = ? AND id NOT IN (SELECT value FROM json_each(?))`, [at, id, json]);
      }
      s.run(`UPDATE ${tt} SET ${fk} = ?, updated_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND ${fk} IS NOT ?`, [id, at, json, id]);
    }
  }
}
