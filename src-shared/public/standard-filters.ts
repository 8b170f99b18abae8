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

/** Parses a query (as an object of strings or string arrays) into filters and paging. */
export function parseStandardQuery(query: Record<string, string | string[] | undefined>): StandardQuery {
  const out: StandardQuery = { filters: [], page: 1, per_page: DEFAULT_PER_PAGE, order: [], search: '' };
  for (const [key, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    const last = values[values.length - 1] ?? '';
    switch (key) {
      case 'page':
        out.page = positiveInt('page', last);
        break;
      case 'per_page':
        out.per_page = positiveInt('per_page', last, MAX_PER_PAGE);
        break;
      case 'order':
        out.order = values.flatMap(parseOrder);
        break;
      case 'search':
        out.search = last;
        break;
      default:
        if (key === '') throw new StandardQueryError('empty field name');
        for (const v of values) out.filters.push(parseFilterExpression(key, v));
    }
  }
  // The rows skipped, (page - 1) * per_page, must stay an exact integer (SQLite's OFFSET).
  const maxPage = Math.floor(Number.MAX_SAFE_INTEGER / out.per_page) + 1;
  if (out.page > maxPage) throw new StandardQueryError(`page must be at most ${maxPage} with per_page ${out.per_page}`);
  return out;
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
