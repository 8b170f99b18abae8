// zod schemas derived from a resource declaration: create and update bodies (validation and
// OpenAPI), and the record (OpenAPI, the renderer's types).
import { z } from 'zod';
import type { FieldDef, ResourceDef } from '../resources/types';
import { fieldsOf, getResource, listRelationsOf, relationsOf } from '../resources/index';
import { dateSchema, timestampSchema, UUID_RE, uuidSchema } from './common';

export const requiredMsg = (name: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${name} is required` : undefined;

/** The input schema of one stored field, without optionality. */
export function fieldInputSchema(name: string, def: FieldDef): z.ZodType {
  const err = { error: requiredMsg(name) };
  let s: z.ZodType;
  switch (def.kind) {
    case 'uuid':
      s = z.string(err).regex(UUID_RE, 'expected a uuid');
      break;
    case 'string': {
      if (def.enum) {
        s = z.enum(def.enum as [string, ...string[]], err);
      } else {
        let str = z.string(err);
        if (def.maxLength !== undefined) str = str.max(def.maxLength);
        s = str;
      }
      break;
    }
    case 'int':
    case 'number': {
      let n = def.kind === 'int' ? z.number(err).int() : z.number(err);
      if (def.min !== undefined) n = n.min(def.min);
      if (def.max !== undefined) n = n.max(def.max);
      s = n;
      break;
    }
    case 'bool':
      s = z.boolean(err);
      break;
    case 'timestamp':
      s = timestampSchema;
      break;
    case 'date':
      s = dateSchema;
      break;
    case 'json':
      s = def.schema ?? (def.jsonShape === 'array' ? z.array(z.unknown(), err) : z.record(z.string(), z.unknown(), err));
      break;
  }
  if (def.description) s = s.describe(def.description);
  return def.notNull ? s : s.nullable();
}

/** Keys a client may send back from a record that are not written (ignored on input). */
export function ignoredKeys(r: ResourceDef): string[] {
  return [
    'created_at',
    'updated_at',
    ...Object.keys(r.computed ?? {}),
    ...relationsOf(r).map(([name]) => name),
    ...Object.entries(r.fields)
      .filter(([, d]) => d.readOnly)
      .map(([n]) => n),
  ];
}

export function relationsInputSchema(r: ResourceDef): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name] of listRelationsOf(r)) shape[name] = z.array(uuidSchema).optional();
  return z.strictObject(shape).describe('links to set: each listed kind is made equal to its list; [] removes all');
}

export function writeShape(r: ResourceDef, mode: 'create' | 'update'): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  shape.id = mode === 'create' ? uuidSchema.optional() : z.string({ error: requiredMsg('id') }).regex(UUID_RE, 'id should be uuid format');
  for (const [name, def] of Object.entries(r.fields)) {
    if (def.readOnly) continue;
    const s = fieldInputSchema(name, def);
    shape[name] = mode === 'create' && def.required && def.default === undefined ? s : s.optional();
  }
  for (const key of ignoredKeys(r)) if (!(key in shape)) shape[key] = z.unknown().optional().describe('ignored on input');
  shape._relations = relationsInputSchema(r).optional();
  return shape;
}

const cache = new Map<string, z.ZodType>();
function cached<T extends z.ZodType>(key: string, make: () => T): T {
  let s = cache.get(key);
  if (!s) {
    s = make();
    cache.set(key, s);
  }
  return s as T;
}

export type WriteBody = Record<string, unknown> & { id?: string; _relations?: Record<string, string[] | undefined> };

export function createSchemaOf(r: ResourceDef): z.ZodType<WriteBody> {
  return cached(`${r.name}:create`, () => z.strictObject(writeShape(r, 'create')).meta({ id: `${recordSchemaId(r)}Create`, description: `New ${r.title.en} record` })) as z.ZodType<WriteBody>;
}

export function updateSchemaOf(r: ResourceDef): z.ZodType<WriteBody & { id: string }> {
  return cached(`${r.name}:update`, () => z.strictObject(writeShape(r, 'update')).meta({ id: `${recordSchemaId(r)}Update`, description: `Partial update of a ${r.title.en} record` })) as unknown as z.ZodType<
    WriteBody & { id: string }
  >;
}

function outputFieldSchema(f: { kind: string; jsonShape?: string; def?: FieldDef }): z.ZodType {
  switch (f.kind) {
    case 'uuid':
      return z.string().meta({ format: 'uuid' });
    case 'int':
      return z.number().int();
    case 'number':
      return z.number();
    case 'bool':
      return z.boolean();
    case 'json':
      if (f.def?.schema) return f.def.schema;
      return f.jsonShape === 'array' ? z.array(z.unknown()) : z.record(z.string(), z.unknown());
    case 'timestamp':
      return z.string().meta({ format: 'date-time', example: '2023-12-20T00:00:01.652259Z' });
    default:
      return f.def?.enum && !f.def.secret ? z.enum(f.def.enum as [string, ...string[]]) : z.string();
  }
}

/** Which fields a record variant carries: all of them, or the stored ones (no computed fields). */
export type FieldSet = 'all' | 'stored';

/** The fields of a record as answered, each present (null when empty, unless never null). */
export function recordFieldsShape(r: ResourceDef, set: FieldSet): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const f of fieldsOf(r)) {
    if (set === 'stored' && f.source === 'computed') continue;
    let s = outputFieldSchema(f);
    const text = f.def?.description ?? (f.source === 'computed' ? r.computed?.[f.name]?.description : undefined);
    if (f.def?.secret) s = s.describe('write-only: answered as ********');
    else if (text) s = s.describe(text);
    shape[f.name] = f.def?.notNull || f.source === 'system' ? s : s.nullable();
  }
  return shape;
}

/** `_relations` of an answer: the identifiers of the has-many and many-to-many links asked for. */
function relationIdsSchema(r: ResourceDef): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name] of listRelationsOf(r)) shape[name] = z.array(z.string().meta({ format: 'uuid' })).optional();
  return z.strictObject(shape).describe('identifiers of related entities, for the link kinds asked for');
}

/** Relations as loaded into an answer: objects for belongs-to links, lists otherwise; absent unless asked for. */
function defineRelations(r: ResourceDef, shape: Record<string, z.ZodType>, target: (name: string) => z.ZodType): void {
  for (const [name, rel] of relationsOf(r)) {
    let memo: z.ZodType | undefined;
    Object.defineProperty(shape, name, {
      enumerable: true,
      configurable: true,
      get: () =>
        (memo ??= (rel.kind === 'belongsTo' ? target(rel.target).nullable() : z.array(target(rel.target)))
          .optional()
          .describe(`related ${rel.target} (${rel.kind}), when loaded`)),
    });
  }
}

/**
 * The record as answered by create, update and get: every field (computed ones included),
 * the loaded relations (related records of their targets) and `_relations`.
 */
export function recordSchemaOf(r: ResourceDef): z.ZodObject {
  return cached(`${r.name}:record`, () => {
    const shape = recordFieldsShape(r, 'all');
    defineRelations(r, shape, (t) => relatedRecordSchemaOf(getResource(t)));
    if (listRelationsOf(r).length) shape._relations = relationIdsSchema(r).optional();
    return z.strictObject(shape).meta({ id: recordSchemaId(r), description: `${r.title.en}: a record as answered` });
  });
}

/**
 * A record loaded inside another one (a relation): every field, computed ones included, and
 * never relations of its own (the server loads one level). So no record schema refers back to
 * itself through its relations, and tools that expand the document's references end.
 */
export function relatedRecordSchemaOf(r: ResourceDef): z.ZodObject {
  return cached(`${r.name}:related`, () =>
    z.strictObject(recordFieldsShape(r, 'all')).meta({ id: `${recordSchemaId(r)}Related`, description: `${r.title.en}: a related record, as loaded inside another record (its fields, without relations of its own)` }),
  );
}

/** A search result item: the record with only the fields asked for (include_fields / exclude_fields). */
export function partialRecordSchemaOf(r: ResourceDef): z.ZodObject {
  return cached(`${r.name}:partial`, () =>
    recordSchemaOf(r)
      .partial()
      .meta({ id: `${recordSchemaId(r)}Partial`, description: `${r.title.en}: a search result (the fields asked for by include_fields / exclude_fields)` }),
  );
}

/** The record's stored fields only, as the public API nests related records. */
export function storedRecordSchemaOf(r: ResourceDef): z.ZodObject {
  return cached(`${r.name}:stored`, () =>
    z.strictObject(recordFieldsShape(r, 'stored')).meta({ id: `${recordSchemaId(r)}Stored`, description: `${r.title.en}: the stored fields of a record` }),
  );
}

export function recordSchemaId(r: ResourceDef): string {
  return r.name
    .split('_')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}
