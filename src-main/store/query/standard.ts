// Standard filters of the public API compiled to SQL with the search compiler's pieces:
// fields (and nested `entity.field`) are checked against the registry; values are bound.
import { badRequest } from '../../../src-shared/errors';
import { fieldOf, getResource, type ResourceDef } from '../../../src-shared/resources/index';
import { enumValueMessage, valueOutsideEnum, type StandardFilter, type StandardQuery } from '../../../src-shared/public/standard-filters';
import { listPlan, SlotContext, textSliceOf, type Plan } from './plan';
import { and, coerceValue, columnExpr, filterSql, orderKeys, SUBQUERY_CONTEXT, virtualSearchSql, type Sql, type SqlContext } from '../search';
import { sliceOf, type Condition } from '../kinds/incidents/kept';
import { PUBLIC_OPERATORS } from './operators';
import { q } from '../sql';

function leafSql(r: ResourceDef, field: string, f: StandardFilter, ctx: SqlContext): Sql {
  const info = fieldOf(r, field);
  if (!info) throw badRequest(`unknown field: ${f.field}`);
  const op = PUBLIC_OPERATORS[f.op];
  op.check?.(info, f.field);
  // A value a field can never hold is a mistake in the query, not an empty answer.
  const allowed = info.def?.enum;
  const bad = valueOutsideEnum(f, allowed);
  if (bad !== undefined) throw badRequest(enumValueMessage(f.field, bad, allowed!));
  if ('own' in op) return op.own({ field: info, col: columnExpr(r, info), values: f.values, coerce: (v) => coerceValue(info, v) });
  return filterSql(r, { field, filter_type: op.as, value: op.value(f.values), negation: op.negation ?? false }, ctx);
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

/**
 * A standard query as a plan (pure: full-text matches become slots). `load` names the relations
 * each record carries (the public incident's asset and occurrences); related records carry
 * their stored fields only, as the public API answers them.
 */
export function compileStandardQuery(r: ResourceDef, query: StandardQuery, load: readonly string[] = []): Plan {
  const slots = new SlotContext();
  const where = and([...query.filters.map((f) => standardFilterSql(r, f, slots)), virtualSearchSql(r, { value: query.search, strict: false }, slots)]);
  for (const o of query.order) if (o.field.includes('.')) throw badRequest(`order by a nested field is not supported: ${o.field}`);
  const order = orderKeys(
    r,
    query.order.map((o) => ({ field: o.field, direction: o.direction })),
  );
  const plan = listPlan(r, { fts: slots.slots, where, order, limit: query.per_page, offset: (query.page - 1) * query.per_page, load, relatedComputed: false });
  const conds = conditionsOfQuery(query);
  const tally = conds && sliceOf(r, conds);
  const textTally = textSliceOf(slots.slots, query.search !== '', () => {
    const rest = conditionsOfQuery({ ...query, search: '' });
    return rest && sliceOf(r, rest);
  });
  return { ...plan, ...(tally ? { tally } : {}), ...(textTally ? { textTally } : {}) };
}

const KEPT_OPS: Partial<Record<StandardFilter['op'], Condition['op']>> = { eq: 'eq', in: 'in', isnull: 'isnull', gt: 'gt', lt: 'lt' };

/** A standard query's conditions as the kept counts take them (sliceOf); undefined with a search or another operator. */
function conditionsOfQuery(query: StandardQuery): Condition[] | undefined {
  if (query.search !== '') return undefined;
  const out: Condition[] = [];
  for (const f of query.filters) {
    const op = KEPT_OPS[f.op];
    if (!op) return undefined;
    out.push({ field: f.field, op, values: op === 'eq' || op === 'gt' || op === 'lt' ? [f.values[0] ?? ''] : op === 'in' ? [...f.values] : [] });
  }
  return out;
}
