// Standard filters of the public API compiled to SQL with the search compiler's pieces:
// fields (and nested `entity.field`) are checked against the registry; values are bound.
import { badRequest } from '../../src-shared/errors';
import { fieldOf, getResource, type ResourceDef } from '../../src-shared/resources/index';
import type { StandardFilter, StandardQuery } from '../../src-shared/public/standard-filters';
import type { SearchFilter } from '../../src-shared/schemas/search';
import { and, coerceValue, columnExpr, filterSql, orderSql, SUBQUERY_CONTEXT, virtualSearchSql, type Sql, type SqlContext } from '../store/search';
import { q } from '../store/sql';

function leafSql(r: ResourceDef, field: string, f: StandardFilter, ctx: SqlContext): Sql {
  const info = fieldOf(r, field);
  if (!info) throw badRequest(`unknown field: ${f.field}`);
  const as = (filter_type: SearchFilter['filter_type'], value: unknown, negation = false): Sql =>
    filterSql(r, { field, filter_type, value, negation }, ctx);
  // A value a field can never hold is a mistake in the query, not an empty answer.
  const allowed = info.def?.enum;
  if (allowed && (f.op === 'eq' || f.op === 'noteq' || f.op === 'in' || f.op === 'notin')) {
    const bad = f.values.find((v) => !allowed.includes(v));
    if (bad !== undefined) throw badRequest(`invalid value "${bad}" for ${f.field}: expected one of ${allowed.join(', ')}`);
  }
  switch (f.op) {
    case 'eq':
      return as('equal', f.values[0]);
    case 'noteq':
      return as('equal', f.values[0], true);
    case 'in':
      return as('intersection', f.values);
    case 'notin':
      return as('intersection', f.values, true);
    case 'isnull':
      return as('exists', undefined);
    case 'isnotnull':
      return as('exists', undefined, true);
    case 'like':
      if (info.kind !== 'string') throw badRequest(`operator like needs a text field: ${f.field}`);
      return as('substr', f.values[0] ?? '');
    case 'gt':
    case 'lt': {
      if (info.kind === 'json' || info.kind === 'bool') throw badRequest(`operator ${f.op} is not supported for field ${f.field}`);
      return { sql: `${columnExpr(r, info)} ${f.op === 'gt' ? '>' : '<'} ?`, params: [coerceValue(info, f.values[0])] };
    }
  }
}

/** A filter on the record's own field, or on a field of a related entity (`service_asset.name`). */
export function standardFilterSql(r: ResourceDef, f: StandardFilter, ctx: SqlContext = SUBQUERY_CONTEXT): Sql {
  const dot = f.field.indexOf('.');
  if (dot < 0) return leafSql(r, f.field, f, ctx);
  const entity = f.field.slice(0, dot);
  const rel = r.relations?.[entity];
  if (!rel || rel.kind !== 'belongsTo') throw badRequest(`unknown entity: ${entity}`);
  const target = getResource(rel.target);
  const inner = leafSql(target, f.field.slice(dot + 1), f, ctx);
  // The inner alias `t` shadows the outer one inside the subquery.
  return { sql: `t.${q(rel.fk)} IN (SELECT t.id FROM ${q(target.table)} t WHERE ${inner.sql})`, params: inner.params };
}

export interface CompiledList {
  where: Sql;
  order: string;
  limit: number;
  offset: number;
}

export function compileStandardQuery(r: ResourceDef, query: StandardQuery, ctx: SqlContext = SUBQUERY_CONTEXT): CompiledList {
  const where = and([...query.filters.map((f) => standardFilterSql(r, f, ctx)), virtualSearchSql(r, { value: query.search, strict: false }, ctx)]);
  for (const o of query.order) if (o.field.includes('.')) throw badRequest(`order by a nested field is not supported: ${o.field}`);
  const order = orderSql(
    r,
    query.order.map((o) => ({ field: o.field, direction: o.direction })),
  );
  return { where, order, limit: query.per_page, offset: (query.page - 1) * query.per_page };
}
