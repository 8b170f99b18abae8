// Checking imported records against the registry, fast: each field's check is compiled once
// from its declaration (kind, enum, min/max, maxLength, not-null) and does what the field's zod
// schema (fieldInputSchema) does, without zod's per-call cost; json fields with a declared
// shape, and every value the fast check refuses, go through the zod schema itself, so the
// answer and the message are zod's. A test keeps the two in step.
import type { z } from 'zod';
import type { FieldDef, RelationDef, ResourceDef } from '../../src-shared/resources/index';
import { relationsOf } from '../../src-shared/resources/index';
import { UUID_RE } from '../../src-shared/schemas/common';
import { fieldInputSchema } from '../../src-shared/schemas/resource';
import { normalizeDate, normalizeTs } from '../../src-shared/time';
import { SECRET_MASK } from '../store/codec';
import { computedKeys } from './kinds';

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

export interface KindPlan {
  r: ResourceDef;
  columns: ColumnPlan[];
  index: Map<string, number>;
  /** Computed and public-extra keys, ignored. */
  computed: Set<string>;
  relations: Map<string, RelationDef>;
  /** Fields that must be present on a new record (required without a default). */
  required: string[];
  sequence: string | null;
}

function encodeDefault(def: FieldDef): unknown {
  const d = def.default;
  if (d === undefined || d === null) return null;
  if (def.kind === 'bool') return d ? 1 : 0;
  if (def.kind === 'json') return JSON.stringify(d);
  return d;
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

const plans = new Map<string, KindPlan>();

export function planOf(r: ResourceDef): KindPlan {
  let p = plans.get(r.name);
  if (!p) {
    const columns = Object.entries(r.fields).map(
      ([name, def]): ColumnPlan => ({ name, def, fast: fastCheck(name, def), insertDefault: encodeDefault(def), hasDefault: def.default !== undefined }),
    );
    p = {
      r,
      columns,
      index: new Map(columns.map((c, i) => [c.name, i])),
      computed: computedKeys(r),
      relations: new Map(relationsOf(r)),
      required: columns.filter((c) => c.def.required && c.def.default === undefined).map((c) => c.name),
      sequence: columns.find((c) => c.def.sequence)?.name ?? null,
    };
    plans.set(r.name, p);
  }
  return p;
}

const zodCache = new Map<string, z.ZodType>();

/** The field's value as stored-to-be, or FieldInvalid with zod's message. */
export function checkField(plan: KindPlan, col: ColumnPlan, v: unknown): unknown {
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

export const ID_RE = UUID_RE;

/** A reference of imported records that resolves neither in the import nor in the database. */
export interface MissingReference {
  /** The resource referred to (findings). */
  kind: string;
  /** The resource and field that refer to it (service_asset_findings.finding_id). */
  from: string;
  field: string;
  /** One value that does not resolve, and a record holding it. */
  value: unknown;
  id?: string;
  /** How many distinct values do not resolve. */
  ids: number;
  /** An optional reference, refused only because of --strict-references. */
  optional: boolean;
}

const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word} record${n === 1 ? '' : 's'}`;

/**
 * How an import was asked for, so that the fix a refusal suggests runs as printed: the command
 * line's flags (the target first: --db FILE, or --instance X --db MAIN) and paths; absent, the
 * console's import endpoint.
 */
export interface ImportInvocation {
  flags: string[];
  paths: string[];
}

/** A word of a shell command, quoted when it needs to be. */
export const shellWord = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

const command = (words: readonly string[]): string => words.map(shellWord).join(' ');

/**
 * Why an import is refused for missing references, and what fixes it: every kind that is
 * missing (not only the first), then the export that carries them or the flag that clears them,
 * as commands carrying every flag they need (the import's own, its target first).
 */
export function missingReferencesMessage(list: readonly MissingReference[], how?: ImportInvocation): string {
  const first = list[0]!;
  const byKind = new Map<string, number>();
  for (const m of list) byKind.set(m.kind, (byKind.get(m.kind) ?? 0) + m.ids);
  const kinds = [...byKind.keys()];
  const all = [...byKind].map(([k, n]) => plural(n, k)).join(' and ');
  const fields = list.map((m) => `${m.from}.${m.field}`).join(', ');
  let text = `${JSON.stringify(first.value)} refers to a missing ${first.kind} record (neither in the import nor in the database); in all, the import refers to ${all} it does not hold (${fields}). `;
  if (how) {
    const files = kinds.map((k) => `${k}.ndjson`);
    const exports = kinds.map((k, i) => `radar-console export --resource ${k} --format ndjson --out ${files[i]} --db SOURCE.sqlite`);
    // --kind names the resource of every file: the exported kinds are then imported first, on their own.
    const kindAt = how.flags.indexOf('--kind');
    const imports =
      kindAt >= 0
        ? [command(['radar-console', 'import', ...how.flags.filter((_, i) => i !== kindAt && i !== kindAt + 1), ...files]), command(['radar-console', 'import', ...how.flags, ...how.paths])]
        : [command(['radar-console', 'import', ...how.flags, ...files, ...how.paths])];
    text += `Import them together: export with --with-references (each record then carries the records it refers to), or export ${kinds.join(' and ')} from the database the file came from (SOURCE.sqlite below) and import them with it: ${[...exports, ...imports].join('; ')}`;
  } else {
    text += `Import them together: export with with_references (each record then carries the records it refers to), or export ${kinds.join(' and ')} from where the file came from (POST /console/v1/export ${kinds.map((k) => JSON.stringify({ resource: k, format: 'ndjson' })).join(', ')}) and import those files together with this one (several files chosen at once are imported together)`;
  }
  if (list.every((m) => m.optional)) text += how ? ', or leave out --strict-references to clear these optional references' : ', or import without strict references to clear these optional references';
  return text;
}
