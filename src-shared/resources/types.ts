// The vocabulary every resource declaration is written in. The store derives DDL and SQL,
// the server derives routes, _meta and OpenAPI, the renderer derives columns and search
// builders, all from one `ResourceDef` per record kind.
import type { z } from 'zod';

export type FieldKind =
  | 'uuid' // uuid string (TEXT)
  | 'string' // free text (TEXT)
  | 'int' // integer (INTEGER)
  | 'number' // float (REAL)
  | 'bool' // boolean (INTEGER 0/1)
  | 'timestamp' // ISO 8601 UTC with six fractional digits (TEXT, sorts chronologically)
  | 'date' // calendar date or timestamp string (TEXT)
  | 'json'; // object or array (TEXT holding JSON)

export type OnDelete = 'set null' | 'cascade' | 'restrict';

export interface FieldDef {
  kind: FieldKind;
  /** Must be present on create. */
  required?: boolean;
  /** NOT NULL in storage (a value is always present). */
  notNull?: boolean;
  unique?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  /** Allowed values of a string field. */
  enum?: readonly string[];
  /** Shape of a json field, checked on every write. */
  schema?: z.ZodType;
  /** json fields: whether the value is an array (for filters) or an object. */
  jsonShape?: 'array' | 'object';
  /** A uuid field pointing at another resource (one-to-one / belongs-to). */
  ref?: string;
  onDelete?: OnDelete;
  /** Accepted on writes, never returned (returned masked). */
  secret?: boolean;
  /** Set by the server only; ignored when sent. */
  readOnly?: boolean;
  /** An integer assigned as max+1 on create when not given (display ids). */
  sequence?: boolean;
  /** Default stored on create when the field is absent. */
  default?: string | number | boolean | null | readonly unknown[] | Record<string, unknown>;
  /** Part of virtual_search (string fields are, unless false). */
  searchable?: boolean;
  /** Single-column index. */
  index?: boolean;
  description?: string;
}

export interface ComputedDef {
  kind: FieldKind;
  /** SQL expression over the resource's row, aliased `t`. Written here, never from input. */
  sql: string;
  jsonShape?: 'array' | 'object';
  description?: string;
}

/**
 * A key accepted in a search's `ordering` only (never returned, never filtered): an order the
 * raw values do not give, such as a workflow's order of statuses.
 */
export interface SortKeyDef {
  /**
   * SQL expression over the resource's stored columns, qualified by the row alias `t` and never
   * NULL. Written here, never from input; an index may list the key (indexed as the expression).
   */
  sql: string;
  description: string;
}

export type RelationDef =
  | { kind: 'belongsTo'; target: string; fk: string }
  | { kind: 'hasMany'; target: string; fk: string }
  | { kind: 'manyToMany'; target: string; link: string; self: string; other: string };

export interface ResourceDef {
  /** Path segment and registry key, e.g. `service_assets`. */
  name: string;
  table: string;
  title: { en: string; ru: string };
  /** Field used as a human label in lists and pickers. */
  label: string;
  fields: Record<string, FieldDef>;
  computed?: Record<string, ComputedDef>;
  /** Keys `ordering` accepts besides the fields (their names are no field's). */
  sortKeys?: Record<string, SortKeyDef>;
  relations?: Record<string, RelationDef>;
  /** Composite indexes (column lists; a sort key's name stands for its expression) chosen for the listing and search paths. */
  indexes?: readonly (readonly string[])[];
  /** A tree resource: children_all / parents_all walk this parent field. */
  tree?: { parent: string };
  /** Other names a file or `--kind` may give the kind (its public list's path, short forms), lower case. */
  aliases?: readonly string[];
  /** APIs besides the data-management one that serve the kind's generic operations (`cm`: agent management, /cm/api/v2). */
  apis?: readonly 'cm'[];
  /** Instance actions shown by _meta besides the generic ones. */
  instanceActions?: readonly { action: string; params: readonly string[] }[];
  /** Pure checks and derivations run on every write path (HTTP, bulk, import). */
  hooks?: ResourceHooks;
  description?: string;
}

export interface ResourceHooks {
  /** May change `values` (derived fields) or throw an ApiError to refuse the write. */
  beforeWrite?: (values: Record<string, unknown>, ctx: { op: 'create' | 'update'; existing?: Record<string, unknown> }) => void;
}

/** Fields every stored record has. */
export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at'] as const;

export const FILTER_TYPES = ['equal', 'substr', 'intersection', 'range', 'related', 'exists'] as const;
export type FilterType = (typeof FILTER_TYPES)[number];

/** Filter types each kind of field accepts; `related` applies to relations, not fields. */
export function filtersForKind(kind: FieldKind, jsonShape?: 'array' | 'object'): FilterType[] {
  switch (kind) {
    case 'string':
      return ['equal', 'substr', 'intersection', 'exists'];
    case 'uuid':
      return ['equal', 'intersection', 'exists'];
    case 'int':
    case 'number':
    case 'timestamp':
    case 'date':
      return ['equal', 'intersection', 'range', 'exists'];
    case 'bool':
      return ['equal', 'exists'];
    case 'json':
      return jsonShape === 'array' ? ['intersection', 'exists'] : ['exists'];
  }
}
