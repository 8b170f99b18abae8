// The public API's standard filters (spec: Standard filters of the public API; contract.md §3):
//   <field>=<operator>,<value>[,<value>...]   nested entity fields as <entity>.<field>
//   page (from 1), per_page (default 50, at most 1000), order (`field`, `field asc|desc`,
//   `-field`, several comma-separated), search (case-insensitive substring of text fields).
// Parsed here, shared by the server (which compiles it to SQL) and the console's builder
// (which edits the same objects and writes them back as a query string).

export const STANDARD_OPERATORS = ['like', 'gt', 'lt', 'in', 'notin', 'eq', 'noteq', 'isnull', 'isnotnull'] as const;
export type StandardOperator = (typeof STANDARD_OPERATORS)[number];

/** Operators that take no value, and those that take a list. */
export const NO_VALUE_OPERATORS: readonly StandardOperator[] = ['isnull', 'isnotnull'];
export const LIST_OPERATORS: readonly StandardOperator[] = ['in', 'notin'];

export const RESERVED_PARAMS = ['page', 'per_page', 'order', 'search'] as const;

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;

export interface StandardFilter {
  /** `field`, or `entity.field` for a nested entity. */
  field: string;
  op: StandardOperator;
  values: string[];
}

export interface StandardOrder {
  field: string;
  direction: 'asc' | 'desc';
}

export interface StandardQuery {
  filters: StandardFilter[];
  page: number;
  per_page: number;
  order: StandardOrder[];
  search: string;
}

export class StandardQueryError extends Error {}

const isOperator = (s: string): s is StandardOperator => (STANDARD_OPERATORS as readonly string[]).includes(s);

/** One `<operator>,<value>...` expression for a field. */
export function parseFilterExpression(field: string, expr: string): StandardFilter {
  const comma = expr.indexOf(',');
  const op = (comma < 0 ? expr : expr.slice(0, comma)).trim().toLowerCase();
  const rest = comma < 0 ? null : expr.slice(comma + 1);
  if (!isOperator(op)) throw new StandardQueryError(`unknown operator "${op}" for field ${field}`);
  if (NO_VALUE_OPERATORS.includes(op)) {
    if (rest !== null && rest !== '') throw new StandardQueryError(`operator ${op} takes no value (field ${field})`);
    return { field, op, values: [] };
  }
  if (rest === null) throw new StandardQueryError(`operator ${op} needs a value (field ${field})`);
  // Lists split on commas; single-value operators keep commas inside the value.
  const values = LIST_OPERATORS.includes(op) ? rest.split(',') : [rest];
  return { field, op, values };
}

export function parseOrder(order: string): StandardOrder[] {
  return order
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^(-)?([^\s]+)(?:\s+(asc|desc))?$/i.exec(part);
      if (!m) throw new StandardQueryError(`invalid order "${part}"`);
      if (m[1] && m[3]) throw new StandardQueryError(`invalid order "${part}": use -field or field desc`);
      const direction = m[1] ? 'desc' : ((m[3]?.toLowerCase() ?? 'asc') as 'asc' | 'desc');
      return { field: m[2]!, direction };
    });
}

function positiveInt(name: string, v: string, max: number = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(v.trim())) throw new StandardQueryError(`${name} must be a positive integer`);
  const n = Number(v);
  if (n < 1) throw new StandardQueryError(`${name} must be at least 1`);
  if (n > max) throw new StandardQueryError(`${name} must be at most ${max}`);
  return n;
}

/**
 * Parses a query (as an object of strings or string arrays), reading every part it can and
 * collecting the message of each part it cannot (in the query's order): the builder shows them
 * all at once; the server answers with the first.
 */
export function parseStandardQueryAll(query: Record<string, string | string[] | undefined>): { query: StandardQuery; errors: { param: string; message: string }[] } {
  const out: StandardQuery = { filters: [], page: 1, per_page: DEFAULT_PER_PAGE, order: [], search: '' };
  const errors: { param: string; message: string }[] = [];
  const attempt = (param: string, f: () => void) => {
    try {
      f();
    } catch (e) {
      if (!(e instanceof StandardQueryError)) throw e;
      errors.push({ param, message: e.message });
    }
  };
  for (const [key, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    const last = values[values.length - 1] ?? '';
    switch (key) {
      case 'page':
        attempt(key, () => (out.page = positiveInt('page', last)));
        break;
      case 'per_page':
        attempt(key, () => (out.per_page = positiveInt('per_page', last, MAX_PER_PAGE)));
        break;
      case 'order':
        attempt(key, () => (out.order = values.flatMap(parseOrder)));
        break;
      case 'search':
        out.search = last;
        break;
      default:
        if (key === '') errors.push({ param: key, message: 'empty field name' });
        else for (const v of values) attempt(key, () => out.filters.push(parseFilterExpression(key, v)));
    }
  }
  // The rows skipped, (page - 1) * per_page, must stay an exact integer (SQLite's OFFSET).
  const maxPage = Math.floor(Number.MAX_SAFE_INTEGER / out.per_page) + 1;
  if (out.page > maxPage) errors.push({ param: 'page', message: `page must be at most ${maxPage} with per_page ${out.per_page}` });
  return { query: out, errors };
}

/** Parses a query into filters and paging; the first mistake throws a StandardQueryError. */
export function parseStandardQuery(query: Record<string, string | string[] | undefined>): StandardQuery {
  const { query: out, errors } = parseStandardQueryAll(query);
  if (errors.length) throw new StandardQueryError(errors[0]!.message);
  return out;
}

/** The message for a value outside a field's allowed values (the server's 400, the builder's flag). */
export function enumValueMessage(field: string, value: string, allowed: readonly string[]): string {
  return `invalid value "${value}" for ${field}: expected one of ${allowed.join(', ')}`;
}

/** The first value of an equality or list filter that the field can never hold, if any. */
export function valueOutsideEnum(f: StandardFilter, allowed: readonly string[] | undefined): string | undefined {
  if (!allowed || !['eq', 'noteq', 'in', 'notin'].includes(f.op)) return undefined;
  return f.values.find((v) => !allowed.includes(v));
}

/** The query string for a query (the builder's "copy as URL"). */
export function formatStandardQuery(q: Partial<StandardQuery>): string {
  const params = new URLSearchParams();
  for (const f of q.filters ?? []) params.append(f.field, NO_VALUE_OPERATORS.includes(f.op) ? f.op : [f.op, ...f.values].join(','));
  if (q.order?.length) params.set('order', q.order.map((o) => (o.direction === 'desc' ? `-${o.field}` : o.field)).join(','));
  if (q.search) params.set('search', q.search);
  if (q.page && q.page !== 1) params.set('page', String(q.page));
  if (q.per_page && q.per_page !== DEFAULT_PER_PAGE) params.set('per_page', String(q.per_page));
  return params.toString();
}
