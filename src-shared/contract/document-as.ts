// What the OpenAPI document shows for a schema when it says more for people than the runtime
// schema can: a query value the server reads as text and checks itself (page numbers, the
// standard filters' `<operator>,<value>` expressions), which the document types as what it means.
import type { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const shown = new WeakMap<object, JsonSchema>();

/** Makes the document show `json` for `schema` (the server still validates with `schema`). */
export function documentAs<T extends z.ZodType>(schema: T, json: JsonSchema): T {
  shown.set(schema, json);
  return schema;
}

export const documentedAs = (schema: object): JsonSchema | undefined => shown.get(schema);

const added = new WeakMap<object, JsonSchema>();

/**
 * Adds `json`'s keywords to what the document shows for `schema`: a rule the server checks in a
 * refinement (one of two keys required), which the generated JSON Schema would otherwise leave out.
 */
export function documentAlso<T extends z.ZodType>(schema: T, json: JsonSchema): T {
  added.set(schema, json);
  return schema;
}

export const documentedAlso = (schema: object): JsonSchema | undefined => added.get(schema);
