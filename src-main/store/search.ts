// The search compiler: a validated search request becomes parameterised SQL. Field names are
// checked against the registry and only the registry's identifiers reach the SQL text; every
// value from the request is a bound parameter.
import { badRequest } from '../../src-shared/errors';
import {
  fieldOf,
  fieldsOf,
  getResource,
  relationsOf,
  type FieldInfo,
  type RelationDef,
  type ResourceDef,
} from '../../src-shared/resources/index';
import { isUuid } from '../../src-shared/schemas/common';
import type { ExtensionParams, SearchFilter, SearchOrdering, SearchRequest } from '../../src-shared/schemas/search';
import { normalizeDate, normalizeTs } from '../../src-shared/time';
import { fold } from './db';
import { ftsTable, searchableFields } from './ddl';
import { FIELD_OPERATORS, negate, TRUE, type Sql } from './query/operators';
import { q } from './sql';

export type { Sql };

/**
 * How a full-text match becomes a condition on `t._rid`. The default is a subquery; the store
 * materialises each match once into a temporary table (see query/runner.ts), so the page and the
 * count do not both run it and the planner knows how many rows it holds.
 */
export interface SqlContext {
  fts(table: string, match: string): Sql;
}

export const SUBQUERY_CONTEXT: SqlContext = {
  fts: (table, match) => ({ sql: `t._rid IN (SELECT rowid FROM ${q(table)} WHERE ${q(table)} MATCH ?)`, params: [match] }),
};

/** SQL expression of a readable field over the row aliased `t`. */
export function columnExpr(r: ResourceDef, f: FieldInfo, alias = 't'): string {
  if (f.source === 'computed') {
    const sql = r.computed![f.name]!.sql;
    return alias === 't' ? `(${sql})` : `(${sql.replace(/\bt\./g, `${alias}.`)})`;
  }
  return `${alias}.${q(f.name)}`;
}

/** Relation names a request asks to load; 400 for an unknown one. */
export function checkRelationNames(r: ResourceDef, names: readonly string[]): string[] {
  for (const n of names) if (!r.relations?.[n]) throw badRequest(`unknown relation: ${n}`);
  return [...new Set(names)];
}

/** Relation names whose ids go in `_relations`: has-many and many-to-many only. */
export function checkIdRelationNames(r: ResourceDef, names: readonly string[]): string[] {
  for (const n of names) {
    const rel = r.relations?.[n];
    if (!rel) throw badRequest(`unknown relation: ${n}`);
    if (rel.kind === 'belongsTo') throw badRequest(`_relations lists has-many and many-to-many links only: ${n}`);
  }
  return [...new Set(names)];
}

export function requireField(r: ResourceDef, name: unknown, what = 'field'): FieldInfo {
  if (typeof name !== 'string') throw badRequest(`${what} should be a string`);
  const f = fieldOf(r, name);
  if (!f) throw badRequest(`unknown ${what}: ${name}`);
  return f;
}

const KIND_NAME: Record<string, string> = {
  uuid: 'a uuid',
  string: 'a string',
  int: 'an integer',
  number: 'a number',
  bool: 'a boolean',
  timestamp: 'an ISO 8601 timestamp',
  date: 'an ISO 8601 date',
  json: 'a JSON value',
};

/** A filter value converted to what the column stores; 400 naming the field when it cannot be. */
export function coerceValue(f: FieldInfo, v: unknown): unknown {
  const wrong = () => badRequest(`invalid value for ${f.name}: expected ${KIND_NAME[f.kind]}`);
  switch (f.kind) {
    case 'uuid':
      if (!isUuid(v)) throw wrong();
      return v.toLowerCase();
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      throw wrong();
    case 'int':
    case 'number': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(n) || (f.kind === 'int' && !Number.isInteger(n))) throw wrong();
      return n;
    }
    case 'bool':
      if (v === true || v === 1 || v === 'true' || v === '1') return 1;
      if (v === false || v === 0 || v === 'false' || v === '0') return 0;
      throw wrong();
    case 'timestamp': {
      const t = typeof v === 'string' ? normalizeTs(v) : null;
      if (t === null) throw wrong();
      return t;
    }
    case 'date': {
      const t = typeof v === 'string' ? normalizeDate(v) : null;
      if (t === null) throw wrong();
      return t;
    }
    case 'json':
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
      throw wrong();
  }
}

/** An FTS5 phrase matching the text as a substring (trigram tokens), quotes doubled. */
export const ftsPhrase = (text: string): string => `"${text.replace(/"/g, '""')}"`;

/**
 * FTS trigram queries need at least three characters; FTS5's query parser ends a string at a NUL
 * character, so a term holding one is matched without the index.
 */
const ftsUsable = (text: string): boolean => [...text].length >= 3 && !text.includes('\0');

function substrSql(r: ResourceDef, f: FieldInfo, value: string, ctx: SqlContext): Sql {
  if (value === '') return TRUE;
  const searchable = f.source === 'stored' && searchableFields(r).includes(f.name);
  if (searchable && ftsUsable(value)) return ctx.fts(ftsTable(r), `${f.name} : ${ftsPhrase(value)}`);
  return { sql: `instr(rc_fold(${columnExpr(r, f)}), ?) > 0`, params: [fold(value)] };
}

function treeExpand(target: ResourceDef, ids: string[], ext: ExtensionParams | undefined): Sql {
  const children = !!(ext?.chidlrens_all || ext?.children_all);
  const parents = !!ext?.parents_all;
  if (!target.tree || (!children && !parents)) return { sql: `SELECT value FROM json_each(?)`, params: [JSON.stringify(ids)] };
  const tt = q(target.table);
  const parent = q(target.tree.parent);
  const parts: string[] = [];
  if (children) parts.push(`d(id) AS (SELECT value FROM json_each(?) UNION SELECT c.id FROM ${tt} c JOIN d ON c.${parent} = d.id)`);
  if (parents) parts.push(`u(id) AS (SELECT value FROM json_each(?) UNION SELECT p.${parent} FROM ${tt} p JOIN u ON p.id = u.id WHERE p.${parent} IS NOT NULL)`);
  const union = [children ? 'SELECT id FROM d' : '', parents ? 'SELECT id FROM u' : ''].filter(Boolean).join(' UNION ');
  return { sql: `WITH RECURSIVE ${parts.join(', ')} ${union}`, params: parts.map(() => JSON.stringify(ids)) };
}

function findRelation(r: ResourceDef, name: string): [string, RelationDef] | undefined {
  const rels = relationsOf(r);
  return rels.find(([n]) => n === name) ?? rels.find(([, rel]) => rel.kind === 'belongsTo' && rel.fk === name);
}

function relatedSql(r: ResourceDef, filter: SearchFilter): Sql {
  const found = findRelation(r, filter.field);
  if (!found) throw badRequest(`unknown relation: ${filter.field}`);
  const [name, rel] = found;
  const raw = filter.value;
  const ids = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
  for (const id of ids) if (!isUuid(id)) throw badRequest(`invalid value for ${name}: expected uuid strings`);
  const target = getResource(rel.target);
  const tt = q(target.table);
  if (ids.length === 0) {
    // An empty list asks for records without related entities (with negation: with some).
    switch (rel.kind) {
      case 'belongsTo':
        return { sql: `t.${q(rel.fk)} IS NULL`, params: [] };
      case 'hasMany':
        return { sql: `NOT EXISTS (SELECT 1 FROM ${tt} x WHERE x.${q(rel.fk)} = t.id)`, params: [] };
      case 'manyToMany':
        return { sql: `NOT EXISTS (SELECT 1 FROM ${q(rel.link)} l WHERE l.${q(rel.self)} = t.id)`, params: [] };
    }
  }
  const set = treeExpand(target, (ids as string[]).map((x) => x.toLowerCase()), filter.extension_params);
  switch (rel.kind) {
    case 'belongsTo':
      return { sql: `t.${q(rel.fk)} IN (${set.sql})`, params: set.params };
    case 'hasMany':
      return { sql: `EXISTS (SELECT 1 FROM ${tt} x WHERE x.${q(rel.fk)} = t.id AND x.id IN (${set.sql}))`, params: set.params };
    case 'manyToMany':
      return {
        sql: `EXISTS (SELECT 1 FROM ${q(rel.link)} l WHERE l.${q(rel.self)} = t.id AND l.${q(rel.other)} IN (${set.sql}))`,
        params: set.params,
      };
  }
}

export function filterSql(r: ResourceDef, filter: SearchFilter, ctx: SqlContext = SUBQUERY_CONTEXT): Sql {
  let inner: Sql;
  if (filter.filter_type === 'related') {
    inner = relatedSql(r, filter);
  } else {
    const f = requireField(r, filter.field);
    const op = Object.hasOwn(FIELD_OPERATORS, filter.filter_type) ? FIELD_OPERATORS[filter.filter_type] : undefined;
    if (!op?.accepts(f)) throw badRequest(`filter_type ${filter.filter_type} is not supported for field ${f.name}`);
    if (f.def?.secret && filter.filter_type !== 'exists') throw badRequest(`field ${f.name} cannot be filtered`);
    inner = op.sql({
      field: f,
      col: columnExpr(r, f),
      value: filter.value,
      coerce: (v) => coerceValue(f, v),
      substr: (text) => substrSql(r, f, text, ctx),
    });
  }
  return filter.negation ? negate(inner) : inner;
}

export function virtualSearchSql(r: ResourceDef, vs: { value: string; strict: boolean } | undefined, ctx: SqlContext = SUBQUERY_CONTEXT): Sql {
  if (!vs || vs.value === '') return TRUE;
  const cols = searchableFields(r);
  if (!cols.length) return { sql: '0', params: [] };
  const candidates: Sql | null = ftsUsable(vs.value) ? ctx.fts(ftsTable(r), ftsPhrase(vs.value)) : null;
  if (vs.strict) {
    const eq = { sql: `(${cols.map((c) => `t.${q(c)} = ?`).join(' OR ')})`, params: cols.map(() => vs.value) };
    return candidates ? { sql: `${candidates.sql} AND ${eq.sql}`, params: [...candidates.params, ...eq.params] } : eq;
  }
  if (candidates) return candidates;
  const needle = fold(vs.value);
  return { sql: `(${cols.map((c) => `instr(rc_fold(t.${q(c)}), ?) > 0`).join(' OR ')})`, params: cols.map(() => needle) };
}

export function and(parts: Sql[]): Sql {
  const real = parts.filter((p) => p.sql !== '1');
  if (!real.length) return TRUE;
  if (real.length === 1) return real[0]!;
  return { sql: real.map((p) => `(${p.sql})`).join(' AND '), params: real.flatMap((p) => p.params) };
}

export function whereSql(r: ResourceDef, filters: readonly SearchFilter[] = [], vs?: { value: string; strict: boolean }, ctx: SqlContext = SUBQUERY_CONTEXT): Sql {
  return and([...filters.map((f) => filterSql(r, f, ctx)), virtualSearchSql(r, vs, ctx)]);
}

/** `WHERE <cond>`, or nothing for an empty condition (so COUNT(*) can take SQLite's fast path). */
export const whereClause = (where: Sql): string => (where.sql === '1' ? '' : `WHERE ${where.sql}`);

/** The matched set widened to descendants and/or ancestors on a tree resource. */
export function widenTree(r: ResourceDef, where: Sql, ext: ExtensionParams | undefined): { cte: string; where: Sql } {
  const children = !!(ext?.chidlrens_all || ext?.children_all);
  const parents = !!ext?.parents_all;
  if (!r.tree || (!children && !parents)) return { cte: '', where };
  const tt = q(r.table);
  const parent = q(r.tree.parent);
  const parts = [`m(id) AS (SELECT t.id FROM ${tt} t WHERE ${where.sql})`];
  if (children) parts.push(`d(id) AS (SELECT id FROM m UNION SELECT c.id FROM ${tt} c JOIN d ON c.${parent} = d.id)`);
  if (parents) parts.push(`u(id) AS (SELECT id FROM m UNION SELECT p.${parent} FROM ${tt} p JOIN u ON p.id = u.id WHERE p.${parent} IS NOT NULL)`);
  const union = [children ? 'SELECT id FROM d' : '', parents ? 'SELECT id FROM u' : ''].filter(Boolean).join(' UNION ');
  return { cte: `WITH RECURSIVE ${parts.join(', ')} `, where: { sql: `t.id IN (${union})`, params: where.params } };
}

/** One key of a total order (the last is always `t._rid`). */
export interface OrderKey {
  /** SQL expression over the row aliased `t`. */
  expr: string;
  desc: boolean;
  /** Whether the expression is never NULL (keyset paging needs this). */
  notNull: boolean;
  /** An expression an index holds (a sort key): SQLite ranges that index only by the expression alone. */
  indexedExpr?: boolean;
}

export const orderSqlOf = (keys: readonly OrderKey[]): string => keys.map((k) => `${k.expr} ${k.desc ? 'DESC' : 'ASC'}`).join(', ');

/**
 * The total order of a request's ordering: its keys, then the tie-break. The tie-break follows a
 * declared index when one continues the last key with created_at, so the index serves the whole
 * ORDER BY (no sort of every match); _rid keeps the order total.
 */
export function orderKeys(r: ResourceDef, ordering: readonly SearchOrdering[]): OrderKey[] {
  if (!ordering.length) return [{ expr: 't._rid', desc: false, notNull: true }];
  const keys = ordering.map((o): OrderKey => {
    const sortKey = typeof o.field === 'string' && Object.hasOwn(r.sortKeys ?? {}, o.field) ? r.sortKeys![o.field]! : undefined;
    if (sortKey) return { expr: `(${sortKey.sql})`, desc: o.direction === 'desc', notNull: true, indexedExpr: true };
    const f = requireField(r, o.field, 'ordering field');
    if (f.kind === 'json' || f.def?.secret) throw badRequest(`field ${f.name} cannot be used for ordering`);
    return { expr: columnExpr(r, f), desc: o.direction === 'desc', notNull: f.source === 'system' || (f.source === 'stored' && !!f.def?.notNull) };
  });
  const lastKey = ordering[ordering.length - 1]!;
  const desc = lastKey.direction === 'desc';
  const followsIndex =
    !ordering.some((o) => o.field === 'created_at') &&
    (r.indexes ?? []).some((ix) => {
      const i = ix.indexOf(lastKey.field);
      return i >= 0 && ix[i + 1] === 'created_at';
    });
  if (followsIndex) keys.push({ expr: 't.created_at', desc, notNull: true });
  keys.push({ expr: 't._rid', desc, notNull: true });
  return keys;
}

export const orderSql = (r: ResourceDef, ordering: readonly SearchOrdering[]): string => orderSqlOf(orderKeys(r, ordering));

/** Which fields a search answers with (include_fields, then exclude_fields). */
export function selectedFields(r: ResourceDef, include: readonly string[], exclude: readonly string[]): FieldInfo[] {
  for (const n of [...include, ...exclude]) requireField(r, n, 'field');
  const all = fieldsOf(r);
  const inc = include.length ? all.filter((f) => include.includes(f.name)) : all;
  return inc.filter((f) => !exclude.includes(f.name));
}

export interface CompiledSearch {
  /** The page as row ids, in order: only the sort keys are computed for every match. */
  ids: Sql;
  /** The selected columns of given row ids (bind a JSON array of _rid values). */
  select: string;
  /** The page in one statement, every column (for streaming every match, as exports do). */
  page: Sql;
  count: Sql;
  /** The condition alone (after tree widening). */
  where: Sql;
  fields: FieldInfo[];
  /** Columns selected only for loading relations, removed from the answer. */
  hidden: FieldInfo[];
}

/** SELECT of the given columns for a JSON array of row ids (order restored by the caller). */
export function selectByRids(r: ResourceDef, fields: readonly FieldInfo[]): string {
  const cols = fields.map((f) => `${columnExpr(r, f)} AS ${q(f.name)}`).join(', ');
  return `SELECT t._rid AS _rid, ${cols} FROM ${q(r.table)} t WHERE t._rid IN (SELECT value FROM json_each(?))`;
}

/** Everything a search request compiles to, with full-text matches as `ctx` writes them. */
export interface SearchParts {
  fields: FieldInfo[];
  /** Columns selected only for loading relations (and `id`), removed from the answer. */
  hidden: FieldInfo[];
  /** Relations to load, and relations whose ids go in `_relations`. */
  load: string[];
  idRels: string[];
  /** A WITH prefix (tree widening), or ''. */
  cte: string;
  where: Sql;
  order: OrderKey[];
}

/** A v2 search request (validated by its schema) compiled; 400 for a bad field, value or relation. */
export function searchParts(r: ResourceDef, req: SearchRequest, ctx: SqlContext = SUBQUERY_CONTEXT): SearchParts {
  const load = checkRelationNames(r, req.relations);
  const idRels = checkIdRelationNames(r, req._relations ?? []);
  const fields = selectedFields(r, req.include_fields, req.exclude_fields);
  const needFk = load.flatMap((n) => {
    const rel = r.relations![n]!;
    return rel.kind === 'belongsTo' ? [rel.fk] : [];
  });
  const hidden = ['id', ...needFk].filter((n, i, all) => all.indexOf(n) === i && !fields.some((f) => f.name === n)).map((n) => fieldOf(r, n)!);
  const base = whereSql(r, req.filters, req.virtual_search, ctx);
  const { cte, where } = widenTree(r, base, req.extension_params);
  return { fields, hidden, load, idRels, cte, where, order: orderKeys(r, req.ordering) };
}

/** The statements of a compiled request: the page's ids, the page in one statement, the COUNT. */
export const idsSql = (r: ResourceDef, p: { cte: string; where: Sql; order: readonly OrderKey[] }, limit: number, offset: number): Sql => ({
  sql: `${p.cte}SELECT t._rid AS _rid FROM ${q(r.table)} t ${whereClause(p.where)} ORDER BY ${orderSqlOf(p.order)} LIMIT ? OFFSET ?`,
  params: [...p.where.params, limit, offset],
});

export function pageSql(r: ResourceDef, p: { cte: string; where: Sql; order: readonly OrderKey[] }, columns: readonly FieldInfo[], limit: number, offset: number): Sql {
  const cols = columns.map((f) => `${columnExpr(r, f)} AS ${q(f.name)}`).join(', ');
  return {
    sql: `${p.cte}SELECT ${cols} FROM ${q(r.table)} t ${whereClause(p.where)} ORDER BY ${orderSqlOf(p.order)} LIMIT ? OFFSET ?`,
    params: [...p.where.params, limit, offset],
  };
}

export const countSql = (r: ResourceDef, p: { cte: string; where: Sql }): Sql => ({
  sql: `${p.cte}SELECT COUNT(*) AS n FROM ${q(r.table)} t ${whereClause(p.where)}`,
  params: p.where.params,
});

/** A search's statements with full-text matches as subqueries, each runnable alone. */
export function compileSearch(r: ResourceDef, req: SearchRequest): CompiledSearch {
  const p = searchParts(r, req);
  return {
    ids: idsSql(r, p, req.limit, req.offset),
    select: selectByRids(r, [...p.fields, ...p.hidden]),
    page: pageSql(r, p, [...p.fields, ...p.hidden], req.limit, req.offset),
    count: countSql(r, p),
    where: p.where,
    fields: p.fields,
    hidden: p.hidden,
  };
}
