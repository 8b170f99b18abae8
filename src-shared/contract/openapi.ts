// The OpenAPI 3.1 document, derived from the contract: every operation with its operationId,
// tag, words, parameters, body and answers (JSON Schema 2020-12 from the zod schemas; named
// schemas as components), examples, security and servers.
import { z } from 'zod';
import { RESOURCES } from '../resources/index';
import { errorBodySchema } from '../schemas/common';
import { documentedAlso, documentedAs, type JsonSchema } from './document-as';
import { operations } from './index';
import { isMediaAnswer, type OperationDef, type OperationExample } from './operation';

type Io = 'input' | 'output';

export interface DocumentOptions {
  version: string;
  /** Base URLs of the two ports. */
  servers: { main: string; routing: string };
  /** Examples by operationId (taken from the demo data). */
  examples?: Readonly<Record<string, OperationExample>>;
}

const URI = '__uri__:';
const SLOT = '__slot__:';
/** A reference zod wrote through `uri`: to another requested schema, or to one of the shared definitions (named schemas). */
const SHARED_RE = /^__uri__:__shared#\/\$defs\/(.+)$/;

/**
 * Zod schemas to JSON Schema, all at once per direction (input: requests; output: answers), so
 * named schemas are written once, as components. A component used both ways whose two forms
 * differ gets an `Input` variant for requests.
 */
class SchemaWriter {
  private readonly requested: Record<Io, z.ZodType[]> = { input: [], output: [] };

  /** A placeholder, filled with the schema's JSON by `finish`. */
  convert(schema: z.ZodType, io: Io): JsonSchema {
    const list = this.requested[io];
    let i = list.indexOf(schema);
    if (i < 0) i = list.push(schema) - 1;
    return { $ref: `${SLOT}${io}:${i}` };
  }

  private generate(io: Io): { slots: JsonSchema[]; defs: Record<string, JsonSchema> } {
    const temp = new z.core.$ZodRegistry<{ id?: string }>();
    this.requested[io].forEach((s, i) => {
      // A named schema is requested through a wrapper, so that it lands among the shared definitions.
      temp.add(z.globalRegistry.get(s)?.id ? z.object({ x: s }) : s, { id: `slot${i}` });
    });
    const out = z.toJSONSchema(temp, {
      target: 'draft-2020-12',
      io,
      metadata: z.globalRegistry,
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
      uri: (id) => `${URI}${id}`,
      override: (ctx) => {
        const also = documentedAlso(ctx.zodSchema);
        if (also) Object.assign(ctx.jsonSchema, also);
        const shown = documentedAs(ctx.zodSchema);
        if (!shown) return;
        for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[k];
        Object.assign(ctx.jsonSchema, shown);
      },
    });
    const schemas = out.schemas as Record<string, JsonSchema>;
    const slots = this.requested[io].map((s, i) => {
      const json = strip(schemas[`slot${i}`]) as JsonSchema;
      return z.globalRegistry.get(s)?.id ? ((json.properties as Record<string, JsonSchema>).x as JsonSchema) : json;
    });
    const defs = (schemas.__shared?.$defs ?? {}) as Record<string, JsonSchema>;
    return { slots, defs: Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, strip(v) as JsonSchema])) };
  }

  /** Fills the placeholders of `doc` and answers the components. */
  finish(doc: JsonSchema): { doc: JsonSchema; components: Record<string, JsonSchema> } {
    const made = { input: this.generate('input'), output: this.generate('output') };
    const names: Record<Io, Map<string, string>> = { input: new Map(), output: new Map() };
    const components: Record<string, JsonSchema> = {};
    const nameOf = (id: string) => (/^schema\d+$/.test(id) ? `Shared${id.slice(6)}` : id);
    for (const [id, json] of Object.entries(made.output.defs)) {
      names.output.set(id, nameOf(id));
      components[nameOf(id)] = json;
    }
    for (const [id, json] of Object.entries(made.input.defs)) {
      const out = made.output.defs[id];
      const name = !out || JSON.stringify(out) === JSON.stringify(json) ? nameOf(id) : `${nameOf(id)}Input`;
      names.input.set(id, name);
      components[name] = json;
    }
    const anonymous = (id: string) => /^schema\d+$/.test(id);
    const inlining = new Set<string>();
    const fill = (v: unknown, io?: Io): unknown => {
      if (Array.isArray(v)) return v.map((x) => fill(x, io));
      if (!v || typeof v !== 'object') return v;
      const { $ref: ref, ...rest } = v as JsonSchema;
      if (typeof ref === 'string') {
        // A placeholder of the document, another requested schema, or a shared definition
        // without a name (inlined where it is used, unless it refers to itself).
        let inline: [Io, JsonSchema, string] | undefined;
        if (ref.startsWith(SLOT)) {
          const [slotIo, n] = ref.slice(SLOT.length).split(':') as [Io, string];
          inline = [slotIo, made[slotIo].slots[Number(n)]!, ref];
        } else if (io && ref.startsWith(`${URI}slot`)) {
          inline = [io, made[io].slots[Number(ref.slice(URI.length + 4))]!, ref];
        } else if (io) {
          const m = SHARED_RE.exec(ref);
          if (m && anonymous(m[1]!) && !inlining.has(m[1]!)) inline = [io, made[io].defs[m[1]!]!, m[1]!];
          else if (m) return { $ref: `#/components/schemas/${names[io].get(m[1]!) ?? m[1]}`, ...(fill(rest, io) as JsonSchema) };
        }
        if (inline) {
          inlining.add(inline[2]);
          const body = fill(inline[1], inline[0]) as JsonSchema;
          inlining.delete(inline[2]);
          return { ...body, ...(fill(rest, io) as JsonSchema) };
        }
      }
      return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, fill(child, io)]));
    };
    const filled = fill(doc) as JsonSchema;
    const comps: Record<string, JsonSchema> = {};
    for (const io of ['output', 'input'] as const) {
      for (const [id, json] of Object.entries(made[io].defs)) {
        if (anonymous(id)) continue;
        comps[names[io].get(id)!] = fill(json, io) as JsonSchema;
      }
    }
    return { doc: filled, components: sortKeys(comps) };
  }
}

/** Drops the identity keywords zod stamps on generated roots. */
function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (!v || typeof v !== 'object') return v;
  const out: JsonSchema = {};
  for (const [k, child] of Object.entries(v)) {
    if (k === '$schema' || k === '$id' || k === 'id') {
      if (k !== 'id' || typeof child === 'string') continue;
    }
    out[k] = k === 'properties' && child && typeof child === 'object' ? Object.fromEntries(Object.entries(child).map(([n, s]) => [n, strip(s)])) : strip(child);
  }
  return out;
}

/** Answers any operation may give besides its own: a Host that is not loopback (403), a body too large (413) or of another type (415), a busy database (503). */
const otherErrors = errorBodySchema.describe('any other error: 403 a Host that is not a loopback name, 413 a body too large, 415 a body of another media type, 503 a busy database');

const sortKeys = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

const STATUS_TEXTS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

const TAG_TEXTS: Record<string, string> = {
  sonar: 'Service discovery: TCP connect probes of the configured ports.',
  public: 'Public API v1: finding types, incidents and assets with the standard filters; the incident status and risk updates; the incident create of the routing port.',
  instances: 'The master host’s instance list (ids for PgrSelectedInstance).',
  routing:
    'Multi-instance routing. The routing port (the second server) serves every path of the main port: with the header PgrSelectedInstance the answer is a one-element array holding the instance’s answer under `data`; without it every instance is asked and the array has an element per instance. /console/v1/route/{path} is the same on the main origin.',
  console: 'The console’s own API: instances, their health, incident aggregates.',
  transfer: 'Import, export and snapshot, with jobs that report progress.',
  sync: 'Offline triage that goes back to the platform: for each snapshot instance, its outbox of local changes, push and pull with the origin, conflicts resolved per field.',
  reference: 'The API’s own description: this document.',
  'logmule_go aliases': 'The vendor’s names of the correlation resources (`logmule_go_*`), served as aliases of `engine_go_*`: the same operations.',
};

function tagsOf(ops: readonly OperationDef[]): { name: string; description: string }[] {
  const resourceTexts = new Map(RESOURCES.map((r) => [r.name, `${r.title.en} (${r.title.ru}): the data-management API v2 at /cruddy/v2/${r.name}.${r.description ? ` ${r.description}` : ''}`]));
  const names = [...new Set(ops.map((op) => op.tag))];
  return names.map((name) => ({ name, description: resourceTexts.get(name) ?? TAG_TEXTS[name] ?? name }));
}

/** The description of a schema, looking through optional / nullable / default wrappers. */
function descriptionOf(schema: z.ZodType): string | undefined {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 5; i++) {
    const d = z.globalRegistry.get(s)?.description ?? (documentedAs(s)?.description as string | undefined);
    if (d) return d;
    s = (s._zod.def as { innerType?: z.ZodType }).innerType;
  }
  return undefined;
}

/** The type the document shows for a parameter (through optional wrappers). */
function shownType(schema: z.ZodType): unknown {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 5; i++) {
    const t = documentedAs(s)?.type;
    if (t) return t;
    s = (s._zod.def as { innerType?: z.ZodType }).innerType;
  }
  return undefined;
}

function parameters(w: SchemaWriter, schema: z.ZodType | undefined, where: 'path' | 'query' | 'header', example?: Record<string, string>): JsonSchema[] {
  if (!schema) return [];
  if (!(schema instanceof z.ZodObject)) throw new Error(`${where} parameters must be declared as an object`);
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, s]) => {
    const p: JsonSchema = { name, in: where, required: where === 'path' || !s.safeParse(undefined).success, schema: w.convert(s, 'input') };
    const description = descriptionOf(s);
    if (description) p.description = description;
    const ex = example?.[name];
    // Query values are text; the document shows numbers where the parameter is one.
    if (ex !== undefined) p.example = shownType(s) === 'integer' && /^\d+$/.test(ex) ? Number(ex) : ex;
    return p;
  });
}

function answer(w: SchemaWriter, status: number, a: OperationDef['responses'][number], example?: OperationExample): JsonSchema {
  const ex = example && example.status === status && example.answer !== undefined ? { examples: { demo: { summary: example.summary ?? 'from the demo data', value: example.answer } } } : {};
  const exampleType = example?.mediaType ?? 'application/json';
  if (!isMediaAnswer(a)) {
    const desc = z.globalRegistry.get(a)?.description ?? STATUS_TEXTS[status] ?? 'Answer';
    return { description: desc, content: { 'application/json': { schema: w.convert(a, 'output'), ...ex } } };
  }
  const out: JsonSchema = { description: a.description };
  if (a.content) {
    out.content = Object.fromEntries(Object.entries(a.content).map(([type, s]) => [type, { schema: w.convert(s, 'output'), ...(type === exampleType ? ex : {}) }]));
  }
  if (a.headers) out.headers = Object.fromEntries(Object.entries(a.headers).map(([name, h]) => [name, { description: h.description, schema: w.convert(h.schema, 'output') }]));
  return out;
}

function operationObject(w: SchemaWriter, op: OperationDef, servers: DocumentOptions['servers'], example?: OperationExample): JsonSchema {
  const out: JsonSchema = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: op.description,
  };
  const params = [
    ...parameters(w, op.params, 'path', example?.params),
    ...parameters(w, op.query, 'query', example?.query),
    ...parameters(w, op.headers, 'header', example?.headers),
  ];
  if (params.length) out.parameters = params;
  const ex = example?.body !== undefined ? { examples: { demo: { summary: example.summary ?? 'from the demo data', value: example.body } } } : {};
  if (op.bodyContent) {
    out.requestBody = {
      required: op.bodyRequired ?? true,
      content: Object.fromEntries(Object.entries(op.bodyContent).map(([type, s]) => [type, { schema: w.convert(s, 'input') }])),
    };
  } else if (op.body) {
    out.requestBody = { required: op.bodyRequired ?? !op.body.safeParse(undefined).success, content: { 'application/json': { schema: w.convert(op.body, 'input'), ...ex } } };
  }
  out.responses = {
    ...Object.fromEntries(Object.entries(op.responses).map(([status, a]) => [status, answer(w, Number(status), a, example)])),
    default: answer(w, 0, otherErrors),
  };
  if (op.servers) {
    out.servers = op.servers.map((s) => (s === 'main' ? { url: servers.main, description: 'the main port' } : { url: servers.routing, description: 'the routing port (answers are envelopes)' }));
  }
  if (op.deprecated) out.deprecated = true;
  return out;
}

const ANY_TYPE = ['null', 'boolean', 'string', 'number', 'array', 'object'] as const;
const SUBSCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'propertyNames', 'contains', 'unevaluatedProperties'] as const;
const SUBSCHEMA_LISTS = ['prefixItems', 'anyOf', 'oneOf', 'allOf'] as const;
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'] as const;

/**
 * Every schema of the document says its `type`: the types its alternatives allow (`anyOf` /
 * `oneOf` of a nullable value), or every JSON type where any value goes (`{}`). The same
 * meaning, written so that tools whose model wants a `type` on each schema (Scalar's reference
 * among them) read the document without errors.
 */
function typeEverySchema(doc: JsonSchema): void {
  const components = ((doc.components as JsonSchema | undefined)?.schemas ?? {}) as Record<string, JsonSchema>;
  const inferring = new Set<JsonSchema>();
  const typesOf = (s: unknown): Set<string> => {
    if (s === true || s === undefined) return new Set(ANY_TYPE);
    if (!s || typeof s !== 'object') return new Set();
    const o = s as JsonSchema;
    if (typeof o.type === 'string') return new Set([o.type]);
    if (Array.isArray(o.type)) return new Set(o.type as string[]);
    if (typeof o.$ref === 'string') {
      const target = components[o.$ref.replace('#/components/schemas/', '')];
      if (!target || inferring.has(target)) return new Set(ANY_TYPE);
      inferring.add(target);
      try {
        return typesOf(target);
      } finally {
        inferring.delete(target);
      }
    }
    if ('const' in o) return new Set([jsonType(o.const)]);
    if (Array.isArray(o.enum)) return new Set(o.enum.map(jsonType));
    const alternatives = (o.anyOf ?? o.oneOf) as unknown[] | undefined;
    if (alternatives) return new Set(alternatives.flatMap((a) => [...typesOf(a)]));
    if (Array.isArray(o.allOf) && o.allOf.length) return (o.allOf as unknown[]).map(typesOf).reduce((a, b) => new Set([...a].filter((t) => b.has(t) || (t === 'integer' && b.has('number')))));
    return new Set(ANY_TYPE);
  };
  const visit = (s: unknown): void => {
    if (!s || typeof s !== 'object' || Array.isArray(s)) return;
    const o = s as JsonSchema;
    for (const k of SUBSCHEMA_KEYS) {
      const v = o[k];
      if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 && k === 'additionalProperties') o[k] = true;
      else visit(v);
    }
    for (const k of SUBSCHEMA_LISTS) if (Array.isArray(o[k])) (o[k] as unknown[]).forEach(visit);
    for (const k of SUBSCHEMA_MAPS) if (o[k] && typeof o[k] === 'object') Object.values(o[k] as object).forEach(visit);
    if (o.type !== undefined || typeof o.$ref === 'string') return;
    const types = [...typesOf(o)];
    // integer is a number: where both are allowed, number says it.
    const list = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
    o.type = list.length === 1 ? list[0] : ANY_TYPE.filter((t) => list.includes(t)).concat(list.includes('integer') ? ['integer' as never] : []);
  };
  Object.values(components).forEach(visit);
  for (const item of Object.values(doc.paths as Record<string, Record<string, JsonSchema>>)) {
    for (const op of Object.values(item)) {
      for (const p of (op.parameters ?? []) as JsonSchema[]) visit(p.schema);
      for (const c of Object.values(((op.requestBody as JsonSchema | undefined)?.content ?? {}) as Record<string, JsonSchema>)) visit(c.schema);
      for (const r of Object.values((op.responses ?? {}) as Record<string, JsonSchema>)) {
        for (const c of Object.values((r.content ?? {}) as Record<string, JsonSchema>)) visit(c.schema);
        for (const h of Object.values((r.headers ?? {}) as Record<string, JsonSchema>)) visit(h.schema);
      }
    }
  }
}

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);

/** The whole document. */
export function openApiDocument(o: DocumentOptions): JsonSchema {
  const ops = operations();
  const w = new SchemaWriter();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of ops) {
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(w, op, o.servers, o.examples?.[op.operationId] ?? op.example);
  }
  const doc: JsonSchema = {
    openapi: '3.1.0',
    info: {
      title: 'Radar console local API',
      version: o.version,
      summary: 'The Radar platform’s HTTP APIs, served over a local SQLite database.',
      description:
        'The platform APIs served over a local SQLite database: data management v2 (/cruddy/v2), agent management (/cm/api/v2), public API v1 (/data/public/api/v1), ' +
        'the master host’s instance list and routing (the routing port; /console/v1/route on the main port), and the console’s own API (/console/v1). ' +
        'Every call needs `PgrApiKey: <key>` or `Authorization: Bearer <JWT>`. Every non-2xx answer is `{error, error_code}` (409 adds `extra.fields`).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: o.servers.main, description: 'the main port (the main instance)' }],
    security: [{ PgrApiKey: [] }, { bearer: [] }],
    tags: tagsOf(ops),
    paths,
    components: {
      securitySchemes: {
        PgrApiKey: { type: 'apiKey', in: 'header', name: 'PgrApiKey', description: 'the API key (`serve` prints it; `global_api_key` on the platform)' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'a JWT signed with the server’s secret (`radar-console token`)' },
      },
    },
  };
  const { doc: filled, components } = w.finish(doc);
  (filled.components as JsonSchema).schemas = components;
  typeEverySchema(filled);
  shareAnswers(filled);
  return filled;
}

/**
 * Answers many operations give alike (the error answers: the same description and body) are
 * written once, under `components.responses`, and referred to: the document says the same in
 * half the bytes, which tools read (and mock servers start) the faster for.
 */
function shareAnswers(doc: JsonSchema): void {
  const ops = Object.values(doc.paths as Record<string, Record<string, JsonSchema>>).flatMap((item) => Object.values(item));
  const seen = new Map<string, { status: string; count: number; answer: JsonSchema }>();
  for (const op of ops) {
    for (const [status, answer] of Object.entries(op.responses as Record<string, JsonSchema>)) {
      if (/^2/.test(status)) continue;
      const key = `${status} ${JSON.stringify(answer)}`;
      const had = seen.get(key);
      if (had) had.count++;
      else seen.set(key, { status, count: 1, answer });
    }
  }
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const shared: Record<string, JsonSchema> = {};
  for (const [key, { status, count, answer }] of [...seen].sort(([, a], [, b]) => b.count - a.count)) {
    if (count < 3) continue;
    const routed = JSON.stringify(answer).includes('#/components/schemas/RoutedAnswer');
    const base = status === 'default' ? 'OtherError' : `${routed ? 'RoutedError' : 'Error'}${status}`;
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
    taken.add(name);
    names.set(key, name);
    shared[name] = answer;
  }
  for (const op of ops) {
    const responses = op.responses as Record<string, JsonSchema>;
    for (const [status, answer] of Object.entries(responses)) {
      const name = names.get(`${status} ${JSON.stringify(answer)}`);
      if (name) responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  (doc.components as JsonSchema).responses = sortKeys(shared);
}
