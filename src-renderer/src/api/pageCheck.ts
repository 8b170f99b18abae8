// A search page's check against the contract, compiled once per resource: the page's shape
// ({items, total}, nothing else), each record's fields known to the resource, and each value of
// the JSON type its field answers (or null where the field may be null). A list reads pages of
// 100-300 records as the user scrolls: going field by field through the operation's full schema
// for each of them costs more than drawing the rows. What the compiled check does not vouch for
// (relations loaded into a record, values it does not know how to read) is checked by the
// operation's schema itself, value by value, and a page the compiled check refuses is checked
// by the schema in full, whose issues are the error shown: a malformed answer fails as before.
import { ContractMismatchError } from '../../../src-shared/client/index';
import { findOperation, isMediaAnswer, type OperationDef } from '../../../src-shared/contract/index';

/** The schema's part a check reads (the contract's zod schemas; the renderer does not import zod). */
interface Schema {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly unknown[] } };
  _zod: { def: { type: string; innerType?: Schema; shape?: Record<string, Schema>; entries?: Record<string, unknown>; checks?: readonly { _zod: { def: { check?: string; format?: string } } }[] } };
}

/** How one field's value is checked: by its JSON type, or by its own schema. */
interface FieldCheck {
  nullable: boolean;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'schema';
  /** The values an enumeration or literal allows. */
  allowed?: ReadonlySet<unknown>;
  schema: Schema;
}

type PageCheck = (answer: unknown) => boolean;

function fieldCheck(schema: Schema): FieldCheck {
  let s = schema;
  let nullable = false;
  for (;;) {
    const t = s._zod.def.type;
    if ((t === 'optional' || t === 'nullable') && s._zod.def.innerType) {
      if (t === 'nullable') nullable = true;
      s = s._zod.def.innerType;
      continue;
    }
    break;
  }
  const def = s._zod.def;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  // Checks beyond the type (lengths, patterns, bounds) are the schema's to make; a safe integer is read here.
  const integer = checks.length === 1 && checks[0]!.check === 'number_format' && checks[0]!.format === 'safeint';
  switch (def.type) {
    case 'string':
      return { nullable, kind: checks.length ? 'schema' : 'string', schema };
    case 'number':
      return { nullable, kind: !checks.length ? 'number' : integer ? 'integer' : 'schema', schema };
    case 'boolean':
      return { nullable, kind: 'boolean', schema };
    case 'enum':
      return { nullable, kind: checks.length ? 'schema' : 'string', allowed: new Set(Object.values(def.entries ?? {})), schema };
    default:
      // Anything else (formats with checks of their own, objects, arrays): the field's own schema.
      return { nullable, kind: 'schema', schema };
  }
}

function valueOk(c: FieldCheck, v: unknown): boolean {
  if (v === null) return c.nullable;
  switch (c.kind) {
    case 'string':
      return typeof v === 'string' && (!c.allowed || c.allowed.has(v));
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return c.schema.safeParse(v).success;
  }
}

/** The compiled check of a page of this record schema, or null when its shape is not a plain object of fields. */
function compile(answer: Schema): PageCheck | null {
  const page = answer._zod.def;
  const itemsSchema = page.type === 'object' ? page.shape?.items : undefined;
  const item = itemsSchema?._zod.def.type === 'array' ? (itemsSchema._zod.def as { element?: Schema }).element : undefined;
  const shape = item?._zod.def.type === 'object' ? item._zod.def.shape : undefined;
  if (!shape || Object.keys(page.shape ?? {}).sort().join(',') !== 'items,total') return null;
  const fields = new Map<string, FieldCheck>();
  for (const name of Object.keys(shape)) {
    const f = shape[name]!;
    // Relations are defined lazily (a getter): their schemas are built only when a record carries one.
    fields.set(name, Object.getOwnPropertyDescriptor(shape, name)?.get ? { nullable: false, kind: 'schema', schema: f } : fieldCheck(f));
  }
  return (body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
    const b = body as Record<string, unknown>;
    let keys = 0;
    for (const k in b) {
      if (k !== 'items' && k !== 'total') return false;
      keys++;
    }
    if (keys !== 2 || typeof b.total !== 'number' || !Number.isSafeInteger(b.total) || !Array.isArray(b.items)) return false;
    for (const rec of b.items as unknown[]) {
      if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return false;
      const r = rec as Record<string, unknown>;
      for (const k in r) {
        const c = fields.get(k);
        const v = r[k];
        // An absent field is allowed (the fields asked for); a present one is of its type.
        if (!c || (v !== undefined && !valueOk(c, v))) return false;
      }
    }
    return true;
  };
}

const compiled = new Map<string, { op: OperationDef; schema: Schema; check: PageCheck | null }>();

function answerSchemaOf(op: OperationDef): Schema | undefined {
  const a = op.responses[200];
  if (!a) return undefined;
  return (isMediaAnswer(a) ? a.content?.['application/json'] : a) as Schema | undefined;
}

/**
 * A search page of `resource` as the server answered it (not checked yet), checked: the page
 * itself when the compiled check accepts it, else the operation's schema decides (its issues
 * thrown as the typed client throws them).
 */
export function checkedPage<T>(resource: string, body: unknown): T {
  const operationId = `${resource}.search`;
  let entry = compiled.get(operationId);
  if (!entry) {
    const op = findOperation(operationId);
    const schema = op && answerSchemaOf(op);
    if (!op || !schema) throw new Error(`unknown operation ${operationId}`);
    entry = { op, schema, check: compile(schema) };
    compiled.set(operationId, entry);
  }
  if (entry.check?.(body)) return body as T;
  const parsed = entry.schema.safeParse(body);
  if (!parsed.success) throw new ContractMismatchError(entry.op.operationId, parsed.error.issues as ConstructorParameters<typeof ContractMismatchError>[1]);
  return parsed.data as T;
}
