// Writes src-shared/client/contract-types.ts: the typed client's types, generated from the same
// declarations that make the server's routes and /openapi.json. Each operation's input and
// answer are the document's schemas (written from the contract's zod schemas) printed as
// TypeScript; each resource's fields with the filter types they take and their values, its
// relations and sort keys, and the public API's filter keys come from the resource registry.
// `npm run client-types` runs it after a change of the contract; test/unit/client-types.test.ts
// fails while the file is not what this script writes.
import fs from 'node:fs';
import path from 'node:path';
import { operations } from '../src-shared/contract/index';
import { openApiDocument } from '../src-shared/contract/openapi';
import { PUBLIC_ENTITIES, publicResource } from '../src-shared/public/entities';
import { STANDARD_OPERATORS } from '../src-shared/public/standard-filters';
import { fieldsOf, filtersForKind, getResource, listRelationsOf, relationsOf, RESOURCES, type FieldInfo, type ResourceDef } from '../src-shared/resources/index';

export const OUT = path.resolve(__dirname, '../src-shared/client/contract-types.ts');

type Json = Record<string, unknown>;

const OPERATOR_PATTERN = `^(${STANDARD_OPERATORS.join('|')})(,.*)?$`;
const ANY = ['null', 'boolean', 'string', 'number', 'array', 'object'];
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Component names that would shadow a global of TypeScript's libraries. */
const RENAMED: Record<string, string> = { Error: 'ErrorBody' };

const typeName = (component: string): string => RENAMED[component] ?? component;
const key = (name: string): string => (IDENT.test(name) ? name : JSON.stringify(name));
const literal = (v: unknown): string => JSON.stringify(v);

function comment(text: unknown, indent: string): string {
  if (typeof text !== 'string' || !text.trim()) return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  return lines.length === 1 ? `${indent}/** ${lines[0]} */\n` : `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join('\n')}\n${indent} */\n`;
}

const union = (parts: string[]): string => {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length ? unique.map((p) => (/^[^(]*=>/.test(p) ? `(${p})` : p)).join(' | ') : 'never';
};

/** A JSON Schema of the document as a TypeScript type. */
function tsOf(s: unknown, indent = ''): string {
  if (s === true || s === undefined) return 'unknown';
  if (s === false) return 'never';
  if (!s || typeof s !== 'object') return 'unknown';
  const o = s as Json;
  if (typeof o.$ref === 'string') return typeName(o.$ref.replace('#/components/schemas/', ''));
  if ('const' in o) return literal(o.const);
  if (Array.isArray(o.enum)) return union(o.enum.map(literal));
  const alternatives = (o.anyOf ?? o.oneOf) as unknown[] | undefined;
  if (alternatives && o.properties) {
    // An object whose alternatives say which of its keys are required (one of two spellings).
    const { anyOf: _any, oneOf: _one, ...base } = o;
    const props = o.properties as Record<string, Json>;
    const needs = alternatives.map((a) => `{ ${(((a as Json).required ?? []) as string[]).map((k) => `${key(k)}: ${tsOf(props[k], indent)}`).join('; ')} }`);
    return `${tsOf(base, indent)} & (${needs.join(' | ')})`;
  }
  if (alternatives) return union(alternatives.map((a) => tsOf(a, indent)));
  if (Array.isArray(o.allOf)) return (o.allOf as unknown[]).map((a) => tsOf(a, indent)).join(' & ');
  const types = typeof o.type === 'string' ? [o.type] : Array.isArray(o.type) ? (o.type as string[]) : ANY;
  if (ANY.every((t) => types.includes(t))) return 'unknown';
  return union(types.map((t) => typeOfKind(t, o, indent)));
}

function typeOfKind(t: string, o: Json, indent: string): string {
  switch (t) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'integer':
    case 'number':
      return 'number';
    case 'string':
      return o.pattern === OPERATOR_PATTERN ? 'StandardFilter' : 'string';
    case 'array': {
      if (Array.isArray(o.prefixItems)) return `[${(o.prefixItems as unknown[]).map((x) => tsOf(x, indent)).join(', ')}]`;
      const item = tsOf(o.items, indent);
      return /[|&\s]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(o, indent);
    default:
      return 'unknown';
  }
}

function objectType(o: Json, indent: string): string {
  const props = (o.properties ?? {}) as Record<string, Json>;
  const required = new Set((o.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(props).map(([name, p]) => `${comment(p.description, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${tsOf(p, inner)};`);
  const extra = o.additionalProperties;
  if (extra !== false && extra !== undefined) lines.push(`${inner}[key: string]: ${Object.keys(props).length ? 'unknown' : tsOf(extra, inner)};`);
  else if (extra === undefined && !Object.keys(props).length) return 'Record<string, unknown>';
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
}

/** What a field takes in a search filter: the filter types of its kind, and the type of its values. */
function fieldEntry(f: FieldInfo): string {
  const filters = f.def?.secret ? ['exists'] : filtersForKind(f.kind, f.jsonShape);
  let value: string;
  switch (f.kind) {
    case 'int':
    case 'number':
      value = 'number';
      break;
    case 'bool':
      value = 'boolean';
      break;
    case 'json':
      value = f.jsonShape === 'array' ? 'string | number' : 'unknown';
      break;
    default:
      value = f.def?.enum && !f.def.secret ? union(f.def.enum.map(literal)) : 'string';
  }
  return `{ filters: ${union(filters.map(literal))}; value: ${value} }`;
}

function resourceEntry(r: ResourceDef): string {
  const fields = fieldsOf(r).map((f) => `      ${key(f.name)}: ${fieldEntry(f)};`);
  const relations = relationsOf(r).map(([name, rel]) => `      ${key(name)}: { target: ${literal(rel.target)}; kind: ${literal(rel.kind)}${rel.kind === 'belongsTo' ? `; fk: ${literal(rel.fk)}` : ''} };`);
  const sortKeys = Object.keys(r.sortKeys ?? {});
  const writable = Object.entries(r.fields)
    .filter(([, d]) => !d.readOnly)
    .map(([n]) => n);
  return [
    `  ${key(r.name)}: {`,
    `    /** Every field of a record: the filter types it takes and the type of its values. */`,
    `    fields: {\n${fields.join('\n')}\n    };`,
    `    /** Links \`relations\` loads (\`related\` filters take their names or their id fields). */`,
    `    relations: {${relations.length ? `\n${relations.join('\n')}\n    ` : ''}};`,
    `    /** Links whose ids \`_relations\` lists and sets. */`,
    `    listRelations: ${union(listRelationsOf(r).map(([n]) => literal(n)))};`,
    `    /** Keys \`ordering\` takes besides the fields. */`,
    `    sortKeys: ${union(sortKeys.map(literal))};`,
    `    /** Fields a write may set. */`,
    `    writable: ${union(writable.map(literal))};`,
    `  };`,
  ].join('\n');
}

/** The public lists' filter keys: the entity's fields, and the fields of its one-to-one links as `link.field`. */
function publicEntry(path: string): string {
  const e = PUBLIC_ENTITIES.find((x) => x.path === path)!;
  const r = publicResource(e);
  const own = fieldsOf(r).map((f) => f.name);
  const nested = relationsOf(r)
    .filter(([, rel]) => rel.kind === 'belongsTo')
    .flatMap(([name, rel]) => fieldsOf(getResource(rel.target)).map((f) => `${name}.${f.name}`));
  return `  ${key(path)}: ${union([...own, ...nested].map(literal))};`;
}

interface DocOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Json; description?: string }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

const PUBLIC_LISTS: Record<string, string> = {
  'public.incidents.list': 'incidents',
  'public.findings.list': 'findings',
  'public.service_assets.list': 'serviceAssets',
};

function operationEntry(operationId: string, op: DocOperation, aliasOf: string | undefined): string {
  if (aliasOf) return `  ${literal(operationId)}: Operations[${literal(aliasOf)}];`;
  const parts: string[] = [];
  const params = (op.parameters ?? []).filter((p) => p.in === 'path');
  if (params.length) parts.push(`    params: { ${params.map((p) => `${key(p.name)}: string`).join('; ')} };`);
  const query = (op.parameters ?? []).filter((p) => p.in === 'query');
  if (PUBLIC_LISTS[operationId]) parts.push(`    query: PublicQuery<${literal(PUBLIC_LISTS[operationId])}>;`);
  else if (query.length) {
    const lines = query.map((p) => `${comment(p.description, '      ')}      ${key(p.name)}${p.required ? '' : '?'}: ${queryValue(tsOf(p.schema, '      '))};`);
    parts.push(`    query: {\n${lines.join('\n')}\n    };`);
  }
  const body = op.requestBody?.content?.['application/json']?.schema ?? Object.values(op.requestBody?.content ?? {})[0]?.schema;
  if (op.requestBody) {
    parts.push(`    body: ${op.requestBody.content?.['application/json'] ? tsOf(body, '    ') : 'string | Blob | ArrayBuffer | Uint8Array'};`);
    parts.push(`    bodyRequired: ${op.requestBody.required ? 'true' : 'false'};`);
  }
  const success = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s)).sort()[0];
  const content = success ? op.responses![success]!.content : undefined;
  const answers: string[] = [];
  for (const [type, media] of Object.entries(content ?? {})) answers.push(type.includes('json') && !type.includes('ndjson') ? tsOf(media.schema, '    ') : 'string');
  parts.push(`    answer: ${answers.length ? union(answers) : 'undefined'};`);
  return `  ${literal(operationId)}: {\n${parts.join('\n')}\n  };`;
}

/** A query value goes out as text: numbers may be given as numbers or as their text. */
const NUMBER_TEXT = `\`\${number}\``;
const queryValue = (t: string): string => (t === 'number' ? `number | ${NUMBER_TEXT}` : t === 'boolean' ? 'boolean | "true" | "false"' : t);

export function clientTypesSource(): string {
  const doc = openApiDocument({ version: '0', servers: { main: 'http://127.0.0.1:9000', routing: 'http://127.0.0.1:9009' }, examples: {} });
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  const components = Object.entries(schemas).map(([name, s]) => {
    const t = tsOf(s);
    const head = comment(s.description, '');
    // Type aliases, not interfaces: a record is then also a `Record<string, unknown>`.
    return `${head}export type ${typeName(name)} = ${t};`;
  });
  const paths = doc.paths as Record<string, Record<string, DocOperation>>;
  const ops = operations().map((o) => operationEntry(o.operationId, paths[o.path]![o.method.toLowerCase()]!, o.aliasOf));
  return [
    '// Generated by scripts/client-types.ts (`npm run client-types`) from the declarations that make',
    "// the server's routes and /openapi.json: do not edit. test/unit/client-types.test.ts checks that",
    '// it is current.',
    '',
    `/** A standard filter of the public API: \`<operator>,<value>[,<value>...]\` (\`isnull\` and \`isnotnull\` take no value). */`,
    `export type StandardFilter = ${union(['isnull', 'isnotnull'].map(literal))} | \`\${${union(STANDARD_OPERATORS.filter((o) => o !== 'isnull' && o !== 'isnotnull').map(literal))}},\${string}\`;`,
    '',
    '/** The resources of the data-management API (`/cruddy/v2/<name>`). */',
    `export type ResourceName = ${union(RESOURCES.map((r) => literal(r.name)))};`,
    '',
    "/** Each resource's fields (what search filters take), links and sort keys, from its declaration. */",
    'export interface Resources {',
    RESOURCES.map(resourceEntry).join('\n'),
    '}',
    '',
    "/** The filter keys of each public list: the entity's fields, and `link.field` for its one-to-one links. */",
    'export interface PublicFilterKeys {',
    ...Object.keys(PUBLIC_LISTS).map((id) => publicEntry(PUBLIC_LISTS[id]!)),
    '}',
    '',
    '/** The query of a public list: a standard filter per key (one, or several to AND them), and paging. */',
    'export type PublicQuery<E extends keyof PublicFilterKeys> = {',
    '  [K in PublicFilterKeys[E]]?: StandardFilter | readonly StandardFilter[];',
    '} & {',
    '  /** page number, from 1 */',
    `  page?: number | ${NUMBER_TEXT};`,
    '  /** rows per page (default 50, at most 1000) */',
    `  per_page?: number | ${NUMBER_TEXT};`,
    '  /** `field`, `field asc`, `field desc` or `-field`; several comma-separated */',
    '  order?: string;',
    '  /** case-insensitive substring of the text fields (Cyrillic included) */',
    '  search?: string;',
    '};',
    '',
    '/** Every operation of the contract by its operationId: path parameters, query, body and its success answer. */',
    'export interface Operations {',
    ops.join('\n'),
    '}',
    '',
    '// The named schemas of /openapi.json (its components).',
    '',
    components.join('\n\n'),
    '',
  ].join('\n');
}

if (require.main === module) {
  const text = clientTypesSource();
  fs.writeFileSync(OUT, text);
  console.log(`${path.relative(process.cwd(), OUT)}: ${operations().length} operations, ${RESOURCES.length} resources (${Math.round(text.length / 1024)} KiB)`);
}
