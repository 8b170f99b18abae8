// Builds valid records for any registry resource from its field declarations, and creates them
// over HTTP (required references first, recursively), through the endpoint that resource's
// create really is (generic or named).
import crypto from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { fieldsOf, getResource, listRelationsOf, relationsOf, type FieldDef, type ResourceDef } from '../../src-shared/resources/index';
import type { CallResult, TestServer } from '../helpers/server';

export const B = '/cruddy/v2';
export const CM = '/cm/api/v2';
export const TS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SECRET_MASK = '********';

let counter = 0;
/** A short tag unique within the process, for unique fields. */
export const uniq = (): string => `${process.pid.toString(36)}${Date.now().toString(36)}${(++counter).toString(36)}`;
export const uuid = (): string => crypto.randomUUID();

/** Values chosen for particular fields, where the declaration alone does not say what is valid. */
const OVERRIDES: Record<string, Record<string, (tag: string) => unknown>> = {
  rules: { query: () => "nginx & !'apache httpd'" },
  input_sources: { port: () => 5140, input_type: () => 'raw-json' },
  service_assets: { type: () => 'Host' },
};

const OBJECT_CANDIDATES: unknown[] = [{ note: 'значение', n: 1, nested: { ok: true } }, {}];
const ARRAY_CANDIDATES: unknown[] = [
  ['tag-a', 'тег-б'],
  [{ name: 'col', type: 'string', is_key: true }],
  [{ parameter_name: 'src_ip', parameter_value: 'event.src.ip', from_logline: true, strategy: 'last' }],
  [{ type: 'compare-condition', id: 'c1' }],
  [],
];

/** A JSON value the field's own schema accepts unchanged (so the record can echo it). */
function jsonValue(def: FieldDef): unknown {
  const candidates = def.jsonShape === 'array' ? ARRAY_CANDIDATES : OBJECT_CANDIDATES;
  if (!def.schema) return structuredClone(candidates[0]);
  for (const c of candidates) {
    const res = def.schema.safeParse(structuredClone(c));
    if (res.success && isDeepStrictEqual(res.data, c)) return structuredClone(c);
  }
  throw new Error('no JSON candidate fits the schema');
}

/** A valid value for a stored, non-reference field. */
export function sampleValue(r: ResourceDef, name: string, def: FieldDef, tag: string): unknown {
  const o = OVERRIDES[r.name]?.[name];
  if (o) return o(tag);
  switch (def.kind) {
    case 'uuid':
      return uuid();
    case 'string': {
      if (def.enum) return def.enum[0];
      const s = def.unique ? `${name}-${tag}` : `${name} значение`;
      return def.maxLength ? s.slice(0, def.maxLength) : s;
    }
    case 'int':
    case 'number': {
      const lo = def.min ?? 0;
      const hi = def.max ?? lo + 100;
      const v = Math.min(lo + 2, hi);
      return def.kind === 'number' && v + 0.5 <= hi ? v + 0.5 : v;
    }
    case 'bool':
      return def.default === true ? false : true;
    case 'timestamp':
      return '2024-01-02T03:04:05.123456Z';
    case 'date':
      return '2024-03-01';
    case 'json':
      return jsonValue(def);
  }
}

/** Resources whose create is a named endpoint that needs every reference filled. */
const ALL_REFS = new Set(['occurrences']);

export interface BuildOptions {
  /** Fill optional references too (creating their targets). */
  allRefs?: boolean;
  /** Values to use instead of generated ones. */
  over?: Record<string, unknown>;
}

/** A create body for `r`: every writable field, required references created first. */
export async function buildCreate(srv: TestServer, r: ResourceDef, opts: BuildOptions = {}): Promise<Record<string, unknown>> {
  const tag = uniq();
  const body: Record<string, unknown> = {};
  const allRefs = opts.allRefs ?? ALL_REFS.has(r.name);
  for (const [name, def] of Object.entries(r.fields)) {
    if (def.readOnly || def.sequence) continue;
    if (opts.over && name in opts.over) continue;
    if (def.ref) {
      if (def.required || allRefs) body[name] = (await createRecord(srv, getResource(def.ref))).id;
      continue;
    }
    body[name] = sampleValue(r, name, def, tag);
  }
  return { ...body, ...opts.over };
}

/** The create endpoint of a resource and the headers it needs. */
export function createCall(r: ResourceDef): { path: string; headers: Record<string, string> } {
  const headers: Record<string, string> = r.name === 'engine_go_rules_integration_actions' ? { 'Pgr-User-Id': uuid() } : {};
  return { path: `${B}/${r.name}/create`, headers };
}

export async function postCreate(srv: TestServer, r: ResourceDef, body: Record<string, unknown>): Promise<CallResult> {
  const c = createCall(r);
  return srv.call('POST', c.path, body, c.headers);
}

/** Creates a record (its required references first); throws unless the server answers 201. */
export async function createRecord(srv: TestServer, r: ResourceDef, opts: BuildOptions = {}): Promise<Record<string, any>> {
  const body = await buildCreate(srv, r, opts);
  const res = await postCreate(srv, r, body);
  if (res.status !== 201) throw new Error(`create ${r.name}: ${res.status} ${res.text}`);
  return res.body;
}

export async function createByName(srv: TestServer, name: string, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return createRecord(srv, getResource(name), { over });
}

/** Fields each named update requires besides `id`, taken from the stored record. */
const NAMED_UPDATE_REQUIRED: Record<string, readonly string[]> = {
  rules: ['trace_id', 'name', 'query'],
  service_assets: ['trace_id', 'type', 'name', 'location'],
  custom_field_values: ['created_at', 'updated_at', 'custom_field_id', 'service_asset_finding_id'],
};

/** An update body: the id, what the resource's update requires, and the change. */
export function updateBody(r: ResourceDef, rec: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { id: rec.id };
  for (const k of NAMED_UPDATE_REQUIRED[r.name] ?? []) body[k] = rec[k];
  return { ...body, ...change };
}

/** Resources with an update at POST /update as well as PUT. */
export const hasPostUpdate = (r: ResourceDef): boolean => r.name !== 'custom_field_values';


/** A field an update can change freely, and a new value for it. */
export function changeOf(r: ResourceDef): { field: string; value: unknown } {
  const entries = Object.entries(r.fields).filter(([n, d]) => !d.readOnly && !d.secret && !d.ref && !d.sequence && !d.unique);
  const keep = new Set(NAMED_UPDATE_REQUIRED[r.name] ?? []);
  const str = entries.find(([n, d]) => d.kind === 'string' && !d.enum && !keep.has(n) && !OVERRIDES[r.name]?.[n]);
  if (str) return { field: str[0], value: `изменено ${uniq()}` };
  const bool = entries.find(([, d]) => d.kind === 'bool');
  if (bool) return { field: bool[0], value: bool[1].default !== true ? false : true };
  const int = entries.find(([, d]) => d.kind === 'int');
  if (int) return { field: int[0], value: int[1].min ?? 1 };
  throw new Error(`${r.name}: no field to change`);
}

/** A field every generated record has the same value in (for group). */
export function groupFieldOf(r: ResourceDef): string {
  const e = Object.entries(r.fields).find(
    ([n, d]) => !d.readOnly && !d.secret && !d.ref && !d.unique && !d.sequence && d.kind !== 'json' && d.kind !== 'uuid' && !OVERRIDES[r.name]?.[n],
  );
  if (!e) throw new Error(`${r.name}: no field to group on`);
  return e[0];
}

export const relationNames = (r: ResourceDef): string[] => relationsOf(r).map(([n]) => n);
export const listRelationNames = (r: ResourceDef): string[] => listRelationsOf(r).map(([n]) => n);

/** The record's own fields only: no loaded links, no `_relations`, nothing else. */
export function plain(r: ResourceDef, rec: Record<string, unknown>): Record<string, unknown> {
  const keep = new Set(fieldsOf(r).map((f) => f.name));
  return Object.fromEntries(Object.entries(rec).filter(([k]) => keep.has(k)));
}

export const idFilter = (ids: string[]) => ({ field: 'id', filter_type: 'intersection', value: ids });
