// Between records (JSON) and rows (SQLite values).
import type { FieldInfo } from '../../src-shared/resources/index';
import type { FieldDef, FieldKind } from '../../src-shared/resources/types';

export const SECRET_MASK = '********';

export function encodeValue(kind: FieldKind, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  switch (kind) {
    case 'bool':
      return v ? 1 : 0;
    case 'json':
      return JSON.stringify(v);
    default:
      return v;
  }
}

/** The stored value of a field's declared default (null when it has none). */
export function encodeDefault(def: FieldDef): unknown {
  return def.default === undefined ? null : encodeValue(def.kind, def.default);
}

export function decodeValue(kind: FieldKind, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'bool':
      return v === 1 || v === true || v === '1';
    case 'json':
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return null;
      }
    case 'int':
    case 'number':
      return typeof v === 'bigint' ? Number(v) : v;
    default:
      return v;
  }
}

/** A row selected with the given fields (as columns of the same names) to a record. */
export function decodeRow(row: Record<string, unknown>, fields: readonly FieldInfo[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = decodeValue(f.kind, row[f.name]);
    out[f.name] = f.def?.secret && v !== null ? SECRET_MASK : v;
  }
  return out;
}
