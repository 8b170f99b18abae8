// The operators of both query languages as one table: each v2 filter type (operator, the
// field kinds that take it, its SQL template) and each public standard-filter operator (which
// filter type it stands for, or its own template). The compiler, `_meta` and the public list
// read the same entries, in the manner of Datasette's filters table. Only registry identifiers
// reach the SQL text; every value from a request is a bound parameter.
import { badRequest } from '../../../src-shared/errors';
import { filtersForKind, FILTER_TYPES, type FieldInfo, type FilterType } from '../../../src-shared/resources/index';
import type { StandardOperator } from '../../../src-shared/public/standard-filters';
import { placeholders } from '../sql';

export interface Sql {
  sql: string;
  params: unknown[];
}

export const TRUE: Sql = { sql: '1', params: [] };

/** What an operator's template gets: the field, its SQL expression, the raw value, and helpers. */
export interface OperandContext {
  field: FieldInfo;
  /** The field's SQL expression over the row aliased `t`. */
  col: string;
  value: unknown;
  /** The value converted to what the column stores (400 naming the field when it cannot be). */
  coerce: (v: unknown) => unknown;
  /** A substring condition (full-text index when it can serve, Unicode-folded instr otherwise). */
  substr: (text: string) => Sql;
}

export interface FieldOperator {
  /** Whether a field takes this operator (feeds `_meta` and the 400 for a wrong filter type). */
  accepts: (f: FieldInfo) => boolean;
  sql: (o: OperandContext) => Sql;
}

const kindTakes = (op: FilterType) => (f: FieldInfo) => filtersForKind(f.kind, f.jsonShape).includes(op);

/** In-lists of up to this many values are written as placeholders; longer ones as a JSON array. */
const INLINE_LIST = 64;

/** The field filter types (`related` is a relation filter, compiled by the search compiler). */
export const FIELD_OPERATORS: Record<Exclude<FilterType, 'related'>, FieldOperator> = {
  equal: {
    accepts: kindTakes('equal'),
    sql: ({ field, col, value, coerce }) => {
      if (value === undefined || value === null || Array.isArray(value) || typeof value === 'object') {
        throw badRequest(`invalid value for ${field.name}: equal takes a string or a number`);
      }
      return { sql: `${col} = ?`, params: [coerce(value)] };
    },
  },
  substr: {
    accepts: kindTakes('substr'),
    sql: ({ field, value, substr }) => {
      if (typeof value !== 'string') throw badRequest(`invalid value for ${field.name}: substr takes a string`);
      return substr(value);
    },
  },
  intersection: {
    accepts: kindTakes('intersection'),
    sql: ({ field, col, value, coerce }) => {
      if (!Array.isArray(value)) throw badRequest(`invalid value for ${field.name}: intersection takes an array`);
      if (value.length === 0) return { sql: '0', params: [] };
      const values = value.map(coerce);
      if (field.kind === 'json') {
        return { sql: `EXISTS (SELECT 1 FROM json_each(${col}) j WHERE j.value IN (SELECT value FROM json_each(?)))`, params: [JSON.stringify(values)] };
      }
      return values.length <= INLINE_LIST
        ? { sql: `${col} IN (${placeholders(values.length)})`, params: values }
        : { sql: `${col} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(values)] };
    },
  },
  range: {
    accepts: kindTakes('range'),
    sql: ({ field, col, value, coerce }) => {
      if (!Array.isArray(value) || value.length !== 2) throw badRequest(`invalid value for ${field.name}: range takes [from, to]`);
      const [from, to] = value as unknown[];
      const parts: string[] = [];
      const params: unknown[] = [];
      if (from !== null && from !== undefined) {
        parts.push(`${col} >= ?`);
        params.push(coerce(from));
      }
      if (to !== null && to !== undefined) {
        parts.push(`${col} <= ?`);
        params.push(coerce(to));
      }
      if (!parts.length) throw badRequest(`invalid value for ${field.name}: range needs a lower or an upper bound`);
      return { sql: parts.join(' AND '), params };
    },
  },
  exists: {
    accepts: kindTakes('exists'),
    // The spec: `exists` takes no value and matches records whose field is null.
    sql: ({ col }) => ({ sql: `${col} IS NULL`, params: [] }),
  },
};

/** Filter types a field accepts, as `_meta` lists them (a secret field: only `exists`). */
export function operatorsFor(f: FieldInfo): FilterType[] {
  if (f.def?.secret) return ['exists'];
  return FILTER_TYPES.filter((op): op is Exclude<FilterType, 'related'> => op !== 'related' && FIELD_OPERATORS[op].accepts(f));
}

/** A negated condition includes records whose field is null (NOT of NULL counts as true). */
export const negate = (inner: Sql): Sql => ({ sql: `NOT COALESCE((${inner.sql}), 0)`, params: inner.params });

/**
 * The public API's standard-filter operators: each either stands for a v2 filter type (with
 * negation) or has its own template; `values` are the strings after the operator.
 */
export type PublicOperator =
  | { as: Exclude<FilterType, 'related'>; negation?: boolean; value: (values: string[]) => unknown; check?: (f: FieldInfo, name: string) => void }
  | { own: (o: { field: FieldInfo; col: string; values: string[]; coerce: (v: unknown) => unknown }) => Sql; check?: (f: FieldInfo, name: string) => void };

const comparison =
  (op: '>' | '<'): Extract<PublicOperator, { own: unknown }>['own'] =>
  ({ col, values, coerce }) => ({ sql: `${col} ${op} ?`, params: [coerce(values[0])] });

const ordered = (opName: string) => (f: FieldInfo, name: string) => {
  if (f.kind === 'json' || f.kind === 'bool') throw badRequest(`operator ${opName} is not supported for field ${name}`);
};

export const PUBLIC_OPERATORS: Record<StandardOperator, PublicOperator> = {
  eq: { as: 'equal', value: (v) => v[0] },
  noteq: { as: 'equal', negation: true, value: (v) => v[0] },
  in: { as: 'intersection', value: (v) => v },
  notin: { as: 'intersection', negation: true, value: (v) => v },
  isnull: { as: 'exists', value: () => undefined },
  isnotnull: { as: 'exists', negation: true, value: () => undefined },
  like: {
    as: 'substr',
    value: (v) => v[0] ?? '',
    check: (f, name) => {
      if (f.kind !== 'string') throw badRequest(`operator like needs a text field: ${name}`);
    },
  },
  gt: { own: comparison('>'), check: ordered('gt') },
  lt: { own: comparison('<'), check: ordered('lt') },
};
