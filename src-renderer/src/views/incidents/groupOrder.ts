// The order of paged groups (groupPages.ts): values in SQLite's order, and the pages of several
// instances merged without showing a group before every instance has read past its value.
import type { InstanceTag } from '../../data/source';

export interface Group {
  instance: InstanceTag;
  value: unknown;
  count: number;
}

/** SQLite's order of values: none first, then numbers, then text by code point (its binary order of UTF-8). */
export function compareValues(a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  const na = typeof a === 'number' || typeof a === 'boolean';
  const nb = typeof b === 'number' || typeof b === 'boolean';
  if (na && nb) return Number(a) - Number(b);
  if (na !== nb) return na ? -1 : 1;
  const x = String(a);
  const y = String(b);
  for (let i = 0, j = 0; i < x.length && j < y.length; ) {
    const cx = x.codePointAt(i)!;
    const cy = y.codePointAt(j)!;
    if (cx !== cy) return cx - cy;
    i += cx > 0xffff ? 2 : 1;
    j += cy > 0xffff ? 2 : 1;
  }
  return x.length - y.length;
}

export interface Part {
  tag: InstanceTag;
  items: Group[];
  /** The offset of the next page. */
  next: number;
  groups: number;
  total: number;
  done: boolean;
}

export const byValueThenInstance = (a: Group, b: Group) => compareValues(a.value, b.value) || (a.instance.id < b.instance.id ? -1 : a.instance.id > b.instance.id ? 1 : 0);

/** The groups that can be shown in order: every read group up to the smallest last value of the instances with more to read. */
export function mergedOf(parts: readonly Part[]): Group[] {
  if (parts.length === 1) return parts[0]!.items;
  const open = parts.filter((p) => !p.done);
  let bound: Group | undefined;
  for (const p of open) {
    const last = p.items[p.items.length - 1];
    if (!last) return [];
    if (!bound || byValueThenInstance(last, bound) < 0) bound = last;
  }
  const all = parts.flatMap((p) => p.items).sort(byValueThenInstance);
  return bound ? all.filter((g) => byValueThenInstance(g, bound) <= 0) : all;
}

