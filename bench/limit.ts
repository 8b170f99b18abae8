// The limit the benchmarks measure the product against: the same SQL, prepared once and run by
// hand on better-sqlite3, plus JSON. Per request it reads the page's ids, their rows, the
// relations the answer carries, and COUNTs the matches (no reuse), then JSON.stringify. No
// framework, no compiler at run time, no pool: what a hand-written server answering the same
// request does. The SQL text is the product's own (built here once from its plan); the runner
// is plain JavaScript (limit-run.mjs), also used by the bare server.
import type Database from 'better-sqlite3';
import { fieldOf, fieldsOf, getResource, type FieldInfo } from '../src-shared/resources/index';
import { columnExpr, selectByRids } from '../src-main/store/search';
import { countSqlOf, idsSqlOf, inlineSlots, planResource, type Plan } from '../src-main/store/query/plan';
import { q } from '../src-main/store/sql';
import { prepareLimit, type LimitField, type LimitQuery, type LimitSpec } from './limit-run.mjs';

export type { LimitQuery, LimitSpec };

const fieldSpec = (f: FieldInfo): LimitField => ({ name: f.name, kind: f.kind, ...(f.def?.secret ? { secret: true } : {}) });

/** A plan's statements as data; `shape` and `link` as the route answers. */
export function limitSpec(plan: Plan, shape: 'items' | 'objects', link?: { prefix: string; suffix: string }): LimitSpec {
  const r = planResource(plan.resource);
  const fields = plan.fields.map((n) => fieldOf(r, n)!);
  const hidden = plan.hidden.map((n) => fieldOf(r, n)!);
  const ids = idsSqlOf(r, plan);
  const count = countSqlOf(r, plan);
  return {
    ids: inlineSlots(plan, ids.sql, ids.params),
    rows: selectByRids(r, [...fields, ...hidden]),
    count: inlineSlots(plan, count.sql, count.params),
    fields: fields.map(fieldSpec),
    rels: plan.load.map((name) => {
      const rel = r.relations![name]!;
      const target = getResource(rel.target);
      const tf = fieldsOf(target).filter((f) => plan.relatedComputed || f.source !== 'computed');
      const cols = tf.map((f) => `${columnExpr(target, f, 'x')} AS ${q(f.name)}`).join(', ');
      const sql =
        rel.kind === 'belongsTo'
          ? `SELECT ${cols} FROM ${q(target.table)} x WHERE x.id IN (SELECT value FROM json_each(?))`
          : rel.kind === 'hasMany'
            ? `SELECT x.${q(rel.fk)} AS _owner, ${cols} FROM ${q(target.table)} x WHERE x.${q(rel.fk)} IN (SELECT value FROM json_each(?)) ORDER BY x._rid`
            : `SELECT l.${q(rel.self)} AS _owner, ${cols} FROM ${q(rel.link)} l JOIN ${q(target.table)} x ON x.id = l.${q(rel.other)} WHERE l.${q(rel.self)} IN (SELECT value FROM json_each(?)) ORDER BY x._rid`;
      return { name, kind: rel.kind, ...(rel.kind === 'belongsTo' ? { fk: rel.fk } : {}), sql, fields: tf.map(fieldSpec) };
    }),
    shape,
    ...(link ? { link } : {}),
  };
}

export function limitQuery(db: Database.Database, plan: Plan, shape: 'items' | 'objects', link?: { prefix: string; suffix: string }): LimitQuery {
  return prepareLimit(db, limitSpec(plan, shape, link));
}
