// Field checks of the write path, fast: each field's check is compiled once from its
// declaration (kind, enum, min/max, maxLength, not-null) and does what the field's zod schema
// (fieldInputSchema) does, without zod's per-call cost; json fields with a declared shape, and
// every value the fast check refuses, go through the zod schema itself, so the answer and the
// message are zod's. A test keeps the two in step. Used by imports, snapshots and pulls (each
// record) and by the API's loose values (mass_update).
import type { z } from 'zod';
import type { FieldDef, RelationDef, ResourceDef } from '../../../src-shared/resources/index';
import { relationsOf } from '../../../src-shared/resources/index';
import { UUID_RE } from '../../../src-shared/schemas/common';
import { fieldInputSchema } from '../../../src-shared/schemas/resource';
import { normalizeDate, normalizeTs } from '../../../src-shared/time';
import { encodeDefault, SECRET_MASK } from '../codec';

/** A value refused by a field's check: the zod message. */
export class FieldInvalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const FAIL = Symbol('fail');

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const digit = (s: string, i: number): number => {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : NaN;
};
const num = (s: string, from: number, to: number): number => {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + digit(s, i);
  return n;
};

/**
 * normalizeTs, with a shortcut for text already in the platform's form
 * (2023-12-20T00:00:01.652259Z): a real date and time is returned as it is. Years 1700-2200
 * only, where normalizeTs's microsecond count is exact (it is a double).
 */
export function fastTs(s: string): string | null {
  if (
    s.length === 27 &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(7) === 45 &&
    s.charCodeAt(10) === 84 &&
    s.charCodeAt(13) === 58 &&
    s.charCodeAt(16) === 58 &&
    s.charCodeAt(19) === 46 &&
    s.charCodeAt(26) === 90
  ) {
    const y = num(s, 0, 4);
    const mo = num(s, 5, 7);
    const d = num(s, 8, 10);
    const h = num(s, 11, 13);
    const mi = num(s, 14, 16);
    const sec = num(s, 17, 19);
    const frac = num(s, 20, 26);
    if (y >= 1700 && y <= 2200 && mo >= 1 && mo <= 12 && d >= 1 && h <= 23 && mi <= 59 && sec <= 59 && frac >= 0) {
      const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
      const max = mo === 2 && leap ? 29 : DAYS[mo - 1]!;
      if (d <= max) return s;
    }
  }
  return normalizeTs(s);
}
type Check = (v: unknown) => unknown;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ColumnPlan {
  name: string;
  def: FieldDef;
  /** Normalised value (timestamps to six digits, reference uuids lower-cased) or FAIL. */
  fast: Check;
  /** SQLite value stored when the field is absent on insert (the declaration's default), or null. */
  insertDefault: unknown;
  hasDefault: boolean;
}

/** A resource's fields as the write path checks and stores them, made once per resource. */
export interface ColumnsPlan {
  r: ResourceDef;
  columns: ColumnPlan[];
  index: Map<string, number>;
  relations: Map<string, RelationDef>;
  /** Fields that must be present on a new record (required without a default). */
  required: string[];
  sequence: string | null;
}

function fastCheck(name: string, def: FieldDef): Check {
  const nullable = !def.notNull;
  const orNull =
    (inner: Check): Check =>
    (v) =>
      v === null ? (nullable ? null : FAIL) : inner(v);
  switch (def.kind) {
    case 'uuid': {
      const lower = !!def.ref;
      return orNull((v) => (typeof v === 'string' && UUID_RE.test(v) ? (lower ? v.toLowerCase() : v) : FAIL));
    }
    case 'string': {
      if (def.enum) {
        const allowed = new Set<unknown>(def.enum);
        return orNull((v) => (allowed.has(v) ? v : FAIL));
      }
      const max = def.maxLength;
      return orNull((v) => (typeof v === 'string' && (max === undefined || v.length <= max) ? v : FAIL));
    }
    case 'int':
    case 'number': {
      const int = def.kind === 'int';
      const min = def.min ?? -Infinity;
      const max = def.max ?? Infinity;
      return orNull((v) => (typeof v === 'number' && (int ? Number.isSafeInteger(v) : Number.isFinite(v)) && v >= min && v <= max ? v : FAIL));
    }
    case 'bool':
      return orNull((v) => (typeof v === 'boolean' ? v : FAIL));
    case 'timestamp':
      return orNull((v) => (typeof v === 'string' ? (fastTs(v) ?? FAIL) : FAIL));
    case 'date':
      return orNull((v) => (typeof v === 'string' ? (normalizeDate(v) ?? FAIL) : FAIL));
    case 'json': {
      if (def.schema) {
        const s = fieldInputSchema(name, def);
        return (v) => {
          const res = s.safeParse(v);
          return res.success ? res.data : FAIL;
        };
      }
      const array = def.jsonShape === 'array';
      return orNull((v) => (array ? (Array.isArray(v) ? v : FAIL) : isPlainObject(v) ? v : FAIL));
    }
  }
}

const plans = new Map<string, ColumnsPlan>();

export function columnPlanOf(r: ResourceDef): ColumnsPlan {
  let p = plans.get(r.name);
  if (!p) {
    const columns = Object.entries(r.fields).map(
      ([name, def]): ColumnPlan => ({ name, def, fast: fastCheck(name, def), insertDefault: encodeDefault(def), hasDefault: def.default !== undefined }),
    );
    p = {
      r,
      columns,
      index: new Map(columns.map((c, i) => [c.name, i])),
      relations: new Map(relationsOf(r)),
      required: columns.filter((c) => requiredOn(c.def, 'bulk')).map((c) => c.name),
      sequence: columns.find((c) => c.def.sequence)?.name ?? null,
    };
    plans.set(r.name, p);
  }
  return p;
}

const zodCache = new Map<string, z.ZodType>();

/** The field's value as stored-to-be, or FieldInvalid with zod's message. */
export function checkField(plan: ColumnsPlan, col: ColumnPlan, v: unknown): unknown {
  const out = col.fast(v);
  if (out !== FAIL) return out;
  const key = `${plan.r.name}.${col.name}`;
  let s = zodCache.get(key);
  if (!s) zodCache.set(key, (s = fieldInputSchema(col.name, col.def)));
  const res = s.safeParse(v);
  if (res.success) return col.def.ref && typeof res.data === 'string' ? res.data.toLowerCase() : res.data;
  throw new FieldInvalid(col.name, res.error.issues[0]?.message ?? 'invalid value');
}

/** Secret fields are exported masked: the mask is not a value to store. */
export const isMasked = (col: ColumnPlan, v: unknown): boolean => !!col.def.secret && v === SECRET_MASK;

/** One field's value checked (see checkField), by name. */
export function checkValue(r: ResourceDef, name: string, v: unknown): unknown {
  const plan = columnPlanOf(r);
  const i = plan.index.get(name);
  if (i === undefined) throw new FieldInvalid(name, 'unknown field');
  return checkField(plan, plan.columns[i]!, v);
}

/**
 * Whether a new record must carry the field. Two rules, one place: a write of the API (`client`)
 * needs the declared-required, not-null fields a client may set (a default fills an absent one
 * before the check); a bulk write (import, snapshot, pull) needs the declared-required fields
 * without a default, read-only ones included (a file carries the record whole).
 */
export function requiredOn(def: FieldDef, rule: 'client' | 'bulk'): boolean {
  return rule === 'client' ? !!def.required && !!def.notNull && !def.readOnly : !!def.required && def.default === undefined;
}

/** The first field a new record lacks under the rule, or null. */
export function missingRequired(r: ResourceDef, values: Record<string, unknown>, rule: 'client' | 'bulk'): string | null {
  const plan = columnPlanOf(r);
  if (rule === 'bulk') {
    for (const name of plan.required) if (!(name in values)) return name;
    return null;
  }
  for (const c of plan.columns) if (requiredOn(c.def, 'client') && (values[c.name] === undefined || values[c.name] === null)) return c.name;
  return null;
}
