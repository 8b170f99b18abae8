// Deep pages at the cost of the page: keyset paging behind offset paging. Each page read notes
// where its first and last rows sit in the order (their sort keys, at their positions); a later
// page of the same matches and order, on the same data, starts from the nearest noted row at or
// before its offset (`keys >= that row's keys`, walking the ordering's index) instead of counting
// every row before it. The API keeps limit/offset; paging through a result (the console's
// table scrolling, scripts walking pages) stops paying for the offset.
//
// Only orders whose every key is never NULL take part (row-value comparisons and NULL do not
// mix); the tie-break on _rid makes every order total, so positions are exact.
import type { OrderKey } from '../search';
import type { Sql } from './operators';
import type { Plan } from './plan';

export { type Anchor, Anchors } from './anchors';

/** Whether a plan's pages can start from a noted row. */
export const keysetUsable = (plan: Plan): boolean => !plan.cte && plan.limit > 0 && plan.order.every((k) => k.notNull);

/** Sort key columns selected with the page's ids, as k0, k1, ... */
export const keyColumns = (order: readonly OrderKey[]): string => order.map((k, i) => `${k.expr} AS k${i}`).join(', ');

/**
 * Rows at or after the anchor in the order: one row-value comparison when every key runs the
 * same way (an index range), else the expanded form.
 */
export function fromAnchor(order: readonly OrderKey[], key: readonly unknown[]): Sql {
  const cond = anchorCondition(order, key);
  // SQLite ranges an index on an expression only by a comparison of the expression alone (not
  // by a row value it leads): a first key of that kind is bounded alone as well, so the page
  // starts at the anchor's group of equal first keys instead of the order's first row.
  const lead = order[0]!;
  if (!lead.indexedExpr) return cond;
  return { sql: `${lead.expr} ${lead.desc ? '<=' : '>='} ? AND ${cond.sql}`, params: [key[0], ...cond.params] };
}

function anchorCondition(order: readonly OrderKey[], key: readonly unknown[]): Sql {
  const desc = order[0]!.desc;
  if (order.every((k) => k.desc === desc)) {
    const cols = order.map((k) => k.expr).join(', ');
    return { sql: `(${cols}) ${desc ? '<=' : '>='} (${order.map(() => '?').join(', ')})`, params: [...key] };
  }
  // k0 beyond a0, or k0 = a0 and (k1 beyond a1, or ... and the last key at or beyond its value).
  const build = (i: number): Sql => {
    const k = order[i]!;
    if (i === order.length - 1) return { sql: `${k.expr} ${k.desc ? '<=' : '>='} ?`, params: [key[i]] };
    const rest = build(i + 1);
    return { sql: `(${k.expr} ${k.desc ? '<' : '>'} ? OR (${k.expr} = ? AND ${rest.sql}))`, params: [key[i], key[i], ...rest.params] };
  };
  return build(0);
}
