// Property-based fuzzing of the HTTP API from its own OpenAPI document: each case picks an
// operation of /openapi.json and sends it with path ids, query strings, headers and a body made
// from the operation's schemas (valid, almost valid, or nasty), or malformed altogether. The
// property: never a 500; every non-2xx answer is {error, error_code} with error_code equal to
// the status, without a stack trace or SQL; the server goes on answering.
import fc from 'fast-check';
import { request } from 'undici';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

export interface Operation {
  method: string;
  /** The path template, e.g. /cruddy/v2/software_groups/{id}. */
  path: string;
  params: { name: string; in: 'path' | 'query' | 'header'; schema: Schema }[];
  body?: Schema;
}

export interface FuzzCase {
  op: Operation;
  port: 'main' | 'routing';
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface FuzzTarget {
  main: string;
  routing: string;
  key: string;
}

// ------------------------------------------------------------------------- the operations

/**
 * Operations left out of the walk, for what they do outside the database: adding or changing an
 * instance (opens files or remote connections at the given address), snapshots (connect to the
 * given URL), imports (a thread per upload; fuzzed through their own tests), deleting every
 * record (the walk needs data to reach deep paths; `all` is fuzzed on its own at the end).
 */
export const SIDE_EFFECTS = [/^POST \/console\/v1\/instances$/, /^PUT \/console\/v1\/instances\/\{id\}$/, /^POST \/console\/v1\/snapshot$/, /^POST \/console\/v1\/import$/, /^DELETE .*\/all$/];

export function operationsOf(doc: { paths: Record<string, Record<string, Schema>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as { parameters?: { name: string; in: string; schema?: Schema }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } };
      const params = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
        .map((p) => ({ name: p.name, in: p.in as 'path' | 'query' | 'header', schema: p.schema ?? {} }));
      for (const m of path.matchAll(/\{([^}]+)\}/g)) if (!params.some((p) => p.name === m[1])) params.push({ name: m[1]!, in: 'path', schema: { type: 'string' } });
      const content = op.requestBody?.content;
      const body = content ? (content['application/json']?.schema ?? Object.values(content)[0]?.schema ?? {}) : undefined;
      ops.push({ method: method.toUpperCase(), path, params, body });
    }
  }
  return ops;
}

// ------------------------------------------------------------------------- values

const MEMBER_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'];

/** Strings that have broken parsers, SQL and lookups before. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'a\u0000b',
      '\u0000\u0000\u0000',
      "'; DROP TABLE service_asset_findings; --",
      '" OR 1=1 --',
      '%',
      '%00',
      '%zz',
      '*',
      '"',
      '\\',
      'NEAR(',
      'a AND b OR',
      'пароль',
      'Ё',
      '\ud800',
      '😀',
      '\u202e',
      '../../etc/passwd',
      'null',
      'NaN',
      'service_asset.name',
      'constructor.name',
      '__proto__.x',
      'eq,',
      'in,',
      'like,%',
      'isnull,x',
      '-created_at',
      'risklevel desc',
      '00000000-0000-0000-0000-000000000000',
      'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...MEMBER_NAMES) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([a, b]) => `${a}\u0000${b}`) },
  { weight: 1, arbitrary: fc.constantFrom('9223372036854775808', '9223372036854775', '99999999999999999999999', '1e400', '-1', '0', '9007199254740993', '4294967296', '0x10') },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((n) => 'x'.repeat(n)) },
);

const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e308, -1e308, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** JSON nested `depth` levels, as text (the parser bound is 64). */
const deepText = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

const nastyJson: fc.Arbitrary<Json> = fc.oneof(
  nastyString,
  nastyNumber,
  fc.constantFrom<Json>(null, true, false, [], {}, [null], { '': null }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  fc.dictionary(fc.oneof(nastyString, fc.constantFrom(...MEMBER_NAMES)), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>, { maxKeys: 3 }),
);

interface Pools {
  /** Ids of records in the database, to reach the paths behind an existing id. */
  ids: string[];
  /** Field and relation names of the registry, to reach the paths behind a known name. */
  fields: string[];
  /** Paths of the API, to route. */
  paths: string[];
}

const uuidArb = (pools: Pools) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(pools.ids.length ? pools.ids : ['00000000-0000-4000-8000-000000000000'])) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
  );

function resolve(doc: Schema, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 10 && typeof cur.$ref === 'string'; i++) {
    const path = (cur.$ref as string).replace(/^#\//, '').split('/');
    let node: unknown = doc;
    for (const p of path) node = (node as Record<string, unknown>)?.[p];
    cur = (node as Schema) ?? {};
  }
  return cur;
}

/** A value one time in eight, else null. */
const rarely = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: a });

/**
 * Values shaped by a JSON schema (OpenAPI 3.1), a nasty value in place of a shaped one now and
 * then (more often at the top than deep inside, so that many requests pass validation and reach
 * the store).
 */
export function fromSchema(doc: Schema, schema: Schema | undefined, pools: Pools, depth = 0): fc.Arbitrary<Json> {
  const s = resolve(doc, schema);
  const shaped = shapedBy(doc, s, pools, depth);
  return fc.oneof({ weight: depth === 0 ? 12 : 30, arbitrary: shaped }, { weight: 1, arbitrary: nastyJson });
}

function shapedBy(doc: Schema, s: Schema, pools: Pools, depth: number): fc.Arbitrary<Json> {
  if (depth > 6) return fc.constant(null);
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alts?.length) return fc.oneof(...alts.map((a) => fromSchema(doc, a, pools, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return fromSchema(doc, (s.allOf as Schema[])[0], pools, depth + 1);
  if (s.const !== undefined) return fc.constant(s.const as Json);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as Json[]));
  const type = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : [];
  if (type.length > 1) return fc.oneof(...type.map((t) => shapedBy(doc, { ...s, type: t }, pools, depth)));
  switch (type[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = typeof s.minimum === 'number' ? Math.max(s.minimum, -1e6) : -5;
      const max = typeof s.maximum === 'number' ? Math.min(s.maximum, 1e6) : 1000;
      return fc.oneof({ weight: 9, arbitrary: fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) }) }, { weight: 1, arbitrary: nastyNumber });
    }
    case 'number':
      return fc.oneof({ weight: 9, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) }, { weight: 1, arbitrary: nastyNumber });
    case 'string': {
      if (s.format === 'date-time') return fc.oneof(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4102444800000) }).map((d) => d.toISOString()), nastyString);
      if (s.format === 'uuid' || (typeof s.pattern === 'string' && s.pattern.includes('0-9a-fA-F'))) return uuidArb(pools);
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pools.fields) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 2, arbitrary: nastyString });
    }
    case 'array': {
      const item = fromSchema(doc, s.items as Schema | undefined, pools, depth + 1);
      return fc.array(item, { maxLength: 4 });
    }
    case 'object':
    default: {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(props);
      if (!names.length) {
        if (type[0] === 'object' || s.additionalProperties !== undefined) {
          return fc.dictionary(fc.oneof(fc.constantFrom(...pools.fields), nastyString), fromSchema(doc, (s.additionalProperties as Schema) || {}, pools, depth + 1), { maxKeys: 4 });
        }
        return nastyJson;
      }
      const required = new Set((s.required ?? []) as string[]);
      const record: Record<string, fc.Arbitrary<Json>> = {};
      for (const n of names) record[n] = fromSchema(doc, props[n], pools, depth + 1);
      const shaped = fc.record(record, { requiredKeys: names.filter((n) => required.has(n)) }) as fc.Arbitrary<Record<string, Json>>;
      // Sometimes a required key goes missing, or an unknown one comes along.
      return fc
        .tuple(shaped, rarely(fc.constantFrom(...names)), rarely(fc.tuple(nastyString, nastyJson)))
        .map(([obj, drop, extra]) => {
          const out: Record<string, Json> = { ...obj };
          if (drop !== null) delete out[drop];
          if (extra !== null) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, configurable: true, writable: true });
          return out;
        });
    }
  }
}

// ------------------------------------------------------------------------- requests

/** %-encoding of any string; a lone surrogate becomes the bytes a careless client sends (%ED%A0%80). */
function enc(x: string): string {
  try {
    return encodeURIComponent(x);
  } catch {
    return x.split(/([\ud800-\udfff])/).map((part) => (/^[\ud800-\udfff]$/.test(part) ? `%ED%${(0xa0 + ((part.charCodeAt(0) >> 6) & 0x1f)).toString(16).toUpperCase()}%80` : encodeURIComponent(part))).join('');
  }
}

/** Bodies that are not JSON values at all, or are JSON past the bounds. */
const malformedBody: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom('{', '[', '{"a":', 'nul', '"', '\u0000', '{}}', '[1,]', '{"a" 1}', "{'a':1}", '\ufeff{}', '   ', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
  fc.constantFrom(63, 64, 65, 1000, 20_000).map((d) => deepText(d)),
  fc.constantFrom(65, 5000).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v).slice(0, -1)),
);

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1'];

const headerValue = fc.oneof(fc.uuid(), fc.stringMatching(/^[ -~]{0,40}$/), fc.constantFrom('', 'null', '0', '1,2,3'));

/** Operations of the same kind on different resources (`POST /cruddy/v2/<r>/search`) weigh as one. */
const kindOf = (op: Operation): string => `${op.method} ${op.path.replace(/^\/(cruddy\/v2|cm\/api\/v2)\/[a-z_]+\//, '/<api>/<resource>/')}`;

export function caseArbitrary(doc: Schema, ops: Operation[], pools: Pools): fc.Arbitrary<FuzzCase> {
  const kinds = new Map<string, Operation[]>();
  for (const op of ops) {
    const k = kindOf(op);
    kinds.set(k, [...(kinds.get(k) ?? []), op]);
  }
  return fc.constantFrom(...kinds.values()).chain((group) => fc.constantFrom(...group)).chain((op) => {
    const pathParams = op.params.filter((p) => p.in === 'path');
    const queryParams = op.params.filter((p) => p.in === 'query');
    const pathArb = fc.tuple(
      ...pathParams.map((p) =>
        p.name === '*'
          ? fc.oneof(fc.constantFrom(...pools.paths), nastyString.map(enc))
          : fc.oneof({ weight: 4, arbitrary: uuidArb(pools) }, { weight: 1, arbitrary: nastyString.map(enc) }, { weight: 1, arbitrary: fc.constantFrom('%zz', '%E0%A4%A', 'a%2Fb', '..', '%00') }),
      ),
    );
    const knownQuery = fc.tuple(
      ...queryParams.map((p) =>
        fc.option(
          fromSchema(doc, p.schema, pools).map((v) => [p.name, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]),
          { freq: 2 },
        ),
      ),
    );
    const extraQuery = fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...pools.fields, 'page', 'per_page', 'order', 'search', 'relations', 'bucket', 'service_asset.name', 'finding.title'), nastyString),
        fc.oneof(
          fc.tuple(fc.constantFrom('eq', 'noteq', 'in', 'notin', 'like', 'gt', 'lt', 'isnull', 'isnotnull', 'between', ''), fc.array(nastyString, { maxLength: 3 })).map(([o, vs]) => [o, ...vs].join(',')),
          nastyString,
        ),
      ),
      { maxLength: 3 },
    );
    const bodyArb: fc.Arbitrary<string | undefined> =
      op.body !== undefined
        ? fc.oneof(
            { weight: 12, arbitrary: fromSchema(doc, op.body, pools).map((v) => JSON.stringify(v)) },
            { weight: 1, arbitrary: fc.array(fromSchema(doc, op.body, pools), { maxLength: 3 }).map((v) => JSON.stringify(v)) },
            { weight: 2, arbitrary: malformedBody },
            { weight: 1, arbitrary: fc.constant(undefined) },
          )
        : fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(malformedBody, nastyJson.map((v) => JSON.stringify(v))) });
    const headersArb = fc.record(
      {
        'content-type': fc.oneof({ weight: 14, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
        pgrselectedinstance: headerValue,
        'pgr-user-id': headerValue,
        authorization: fc.constantFrom('Bearer x.y.z', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'Basic abc'),
        'x-radar-route-hops': headerValue,
      },
      { requiredKeys: ['content-type'] },
    );
    const portArb = fc.oneof({ weight: 6, arbitrary: fc.constant('main' as const) }, { weight: 1, arbitrary: fc.constant('routing' as const) });
    // A few requests come without the key (they must be refused), most with it to reach the handlers.
    const keylessArb = fc.nat({ max: 29 }).map((n) => n === 0);
    return fc.tuple(pathArb, knownQuery, extraQuery, bodyArb, headersArb, portArb, keylessArb).map(([pathValues, known, extra, body, headers, port, keyless]) => {
      let path = op.path;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, String(pathValues[i]));
      });
      const pairs = [...known.filter((x): x is [string, string] => x !== null), ...extra];
      const query = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
      const h: Record<string, string> = { ...(headers as Record<string, string>) };
      if (keyless) h.__nokey = '1';
      return { op, port, path, query, headers: h, body };
    });
  });
}

// ------------------------------------------------------------------------- checking

export interface Tally {
  cases: number;
  byStatus: Record<number, number>;
  failures: string[];
}

const LEAK = /SQLITE_|sqlite3?|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\n\s+at |\bat .+\.(ts|js):\d+|FST_[A-Z_]+|HPE_[A-Z_]+|Error: /;

/** Why an error body is wrong, or null when it is right. */
export function errorBodyProblem(status: number, body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `body is not an object: ${JSON.stringify(body)?.slice(0, 200)}`;
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b).sort().join(',');
  if (keys !== 'error,error_code' && !(status === 409 && keys === 'error,error_code,extra')) return `keys ${keys}`;
  if (typeof b.error !== 'string') return 'error is not a string';
  if (b.error_code !== status) return `error_code ${String(b.error_code)} is not the status ${status}`;
  if (LEAK.test(b.error)) return `error text leaks internals: ${b.error.slice(0, 200)}`;
  return null;
}

function checkAnswer(c: FuzzCase, status: number, text: string): string | null {
  const what = `${c.op.method} ${c.path}${c.query ? `?${c.query}` : ''} (${c.port} port)`;
  if (status >= 500 && status !== 502 && status !== 503 && status !== 504 && status !== 508) return `${what}: ${status} ${text.slice(0, 300)}`;
  if (status === 500) return `${what}: 500 ${text.slice(0, 300)}`;
  let parsed: unknown;
  const isJsonLike = status >= 400 || (c.port === 'routing' && status < 300);
  if (isJsonLike) {
    try {
      parsed = JSON.parse(text);
    } catch {
      return `${what}: ${status} with a body that is not JSON: ${text.slice(0, 200)}`;
    }
  }
  if (status >= 400) {
    const p = errorBodyProblem(status, parsed);
    return p ? `${what}: ${status}: ${p}` : null;
  }
  if (c.port === 'routing' && Array.isArray(parsed)) {
    for (const el of parsed as { status_code?: number; data?: unknown }[]) {
      const s = el.status_code ?? 0;
      if (s === 500) return `${what}: an instance answered 500: ${JSON.stringify(el.data).slice(0, 300)}`;
      if (s >= 400) {
        const p = errorBodyProblem(s, el.data);
        if (p) return `${what}: the instance's ${s}: ${p}`;
      }
    }
  }
  return null;
}

/** Sends one case; answers the problem found, or null. */
export async function runCase(target: FuzzTarget, c: FuzzCase, tally: Tally): Promise<string | null> {
  const base = c.port === 'main' ? target.main : target.routing;
  const headers: Record<string, string> = { ...c.headers };
  const keyless = headers.__nokey === '1';
  delete headers.__nokey;
  if (!keyless) headers.pgrapikey = target.key;
  let status: number;
  let text: string;
  try {
    const res = await request(`${base}${c.path}${c.query ? `?${c.query}` : ''}`, {
      method: c.op.method as 'GET',
      headers,
      body: c.body,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (e) {
    return `${c.op.method} ${c.path}: no answer: ${(e as Error).message}`;
  }
  tally.cases++;
  tally.byStatus[status] = (tally.byStatus[status] ?? 0) + 1;
  if (keyless && status < 400) return `${c.op.method} ${c.path}: without the key answered ${status}`;
  return checkAnswer(c, status, text);
}

export async function alive(target: FuzzTarget): Promise<boolean> {
  try {
    const res = await request(`${target.main}/tenancy/instance/list`, { headers: { pgrapikey: target.key }, headersTimeout: 10_000 });
    await res.body.text();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

export function poolsFrom(doc: Schema, ids: string[], fields: string[]): Pools {
  const paths = Object.keys((doc.paths ?? {}) as Record<string, unknown>)
    .filter((p) => !p.includes('{*}'))
    .map((p) => p.replace(/\{[^}]+\}/g, ids[0] ?? '00000000-0000-4000-8000-000000000000'));
  // Routed paths that name the routing endpoint again (a loop), plainly, %-encoded or doubled.
  const loops = ['/console/v1/route'.repeat(3), '/console/v1/route'.repeat(30), '/console/v1/%72oute', '//console//v1//route', '/CONSOLE/V1/ROUTE', '/console/v1/route%2F..%2Froute'].map(
    (p) => `${p}/data/public/api/v1/incidents`,
  );
  return { ids, fields, paths: [...paths, ...loops] };
}
