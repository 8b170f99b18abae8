// Comparing a field's value here with the origin's: JSON with sorted keys, timestamps in the
// stored form, link lists as sorted id lists.
import type { ResourceDef } from '../../src-shared/resources/index';
import { normalizeTs } from '../../src-shared/time';
import { REL_PREFIX } from '../store/outbox';

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v === undefined ? null : v;
}

/** The value of `field` in the form the outbox keeps it (JSON text). */
export function valueKey(r: ResourceDef, field: string, v: unknown): string {
  if (field.startsWith(REL_PREFIX)) {
    const ids = Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x.toLowerCase() : x)).sort() : [];
    return JSON.stringify(ids);
  }
  const kind = r.fields[field]?.kind;
  if (kind === 'timestamp' && typeof v === 'string') return JSON.stringify(normalizeTs(v) ?? v);
  if (kind === 'bool' && (v === 0 || v === 1)) return JSON.stringify(v === 1);
  return JSON.stringify(canonical(v));
}

/** Whether two outbox values (JSON text) are the same value of `field`. */
export function sameValue(r: ResourceDef, field: string, a: string | null, b: string | null): boolean {
  return valueKey(r, field, JSON.parse(a ?? 'null')) === valueKey(r, field, JSON.parse(b ?? 'null'));
}

/** A field's value in a record from the origin (link lists from its `_relations`). */
export function remoteValue(rec: Record<string, unknown>, field: string): unknown {
  if (field.startsWith(REL_PREFIX)) {
    const rels = rec._relations as Record<string, unknown> | undefined;
    return rels?.[field.slice(REL_PREFIX.length)] ?? [];
  }
  return rec[field] ?? null;
}
