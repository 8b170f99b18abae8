// GET /openapi.json: a valid OpenAPI 3.1 document listing every route of the API.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src-shared/resources/index';
import { startTestServer, type TestServer } from '../helpers/server';
import { B, CM } from './gen';

let srv: TestServer;
let doc: any;

beforeAll(async () => {
  srv = await startTestServer();
  const res = await srv.call('GET', '/openapi.json');
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  doc = res.body;
});

afterAll(async () => {
  await srv?.stop();
});

/** [method, path] of every generic operation of a resource under a prefix. */
function genericRoutes(prefix: string, name: string): [string, string][] {
  const base = `${prefix}/${name}`;
  return [
    ['post', `${base}/create`],
    ['put', `${base}/update`],
    // custom_field_values: the spec gives PUT only for its (named) update
    ...(name === 'custom_field_values' ? [] : ([['post', `${base}/update`]] as [string, string][])),
    ['post', `${base}/search`],
    ['get', `${base}/{id}`],
    ['delete', `${base}/{id}`],
    ['post', `${base}/group`],
    ['post', `${base}/mass_create`],
    ['post', `${base}/mass_delete`],
    ['post', `${base}/mass_update`],
    ['delete', `${base}/all`],
    ['get', `${base}/_meta`],
  ];
}

const NAMED: [string, string][] = [
  ['post', `${B}/engine_go_rules/search`],
  ['post', `${B}/engine_go_rules/search_with_update_reload`],
  ['post', `${B}/rules/create`],
  ['put', `${B}/rules/update`],
  ['post', `${B}/rules/update`],
  ['put', `${B}/service_assets/update`],
  ['post', `${B}/service_assets/update`],
  ['post', `${B}/occurrences/create`],
  ['put', `${B}/custom_field_values/update`],
  ['post', `${B}/engine_go_rules_integration_actions/create`],
  ['post', `${CM}/agents/{id}/apply_config`],
  ['post', `${B}/sonar/services/scan`],
  ['post', '/sonar/services/scan'],
];

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 with JSON content', async () => {
    const res = await srv.call('GET', '/openapi.json');
    expect(res.headers.get('content-type') ?? '').toContain('application/json');
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info?.title).toBe('string');
    expect(typeof doc.info?.version).toBe('string');
  });

  it('is valid according to the OpenAPI schema validator', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares the PgrApiKey and bearer security schemes, and requires one of them', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(schemes.PgrApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'PgrApiKey' });
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual(expect.arrayContaining([{ PgrApiKey: [] }, { bearer: [] }]));
  });

  for (const r of RESOURCES) {
    it(`lists every generic route of ${r.name}`, () => {
      const missing = genericRoutes(B, r.name).filter(([m, p]) => !doc.paths?.[p]?.[m]);
      expect(missing).toEqual([]);
    });
  }

  it('lists the agents routes under /cm/api/v2 as well', () => {
    const missing = genericRoutes(CM, 'agents').filter(([m, p]) => !doc.paths?.[p]?.[m]);
    expect(missing).toEqual([]);
  });

  it('lists every named endpoint with its method', () => {
    const missing = NAMED.filter(([m, p]) => !doc.paths?.[p]?.[m]);
    expect(missing).toEqual([]);
  });

  it('every operation documents a success answer and the error body', () => {
    const problems: string[] = [];
    for (const [p, ops] of Object.entries<any>(doc.paths ?? {})) {
      if (!p.startsWith(B) && !p.startsWith(CM) && !p.startsWith('/sonar')) continue;
      for (const [m, op] of Object.entries<any>(ops)) {
        if (!['get', 'put', 'post', 'delete', 'patch'].includes(m)) continue;
        const codes = Object.keys(op.responses ?? {});
        if (!codes.some((c) => c.startsWith('2'))) problems.push(`${m} ${p}: no 2xx`);
        if (!codes.some((c) => c.startsWith('4'))) problems.push(`${m} ${p}: no 4xx`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('says what the server requires of a search\'s extension_params: one of the two spellings of chidlrens_all', async () => {
    const deref = (x: any): any => (x?.$ref ? deref(x.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc)) : x);
    const body = deref(doc.paths[`${B}/service_asset_findings/search`].post.requestBody.content['application/json'].schema);
    const ext = deref(body.properties.extension_params);
    expect(ext.required).toEqual(['parents_all']);
    expect(ext.anyOf.map((a: any) => a.required)).toEqual([['chidlrens_all'], ['children_all']]);
    const search = (extension_params: Record<string, boolean>) =>
      srv.call('POST', `${B}/service_asset_findings/search`, { include_fields: ['id'], exclude_fields: [], filters: [], ordering: [], virtual_search: { value: '', strict: false }, extension_params, relations: [], limit: 1, offset: 0 });
    const neither = await search({ parents_all: false });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toBe('extension_params.chidlrens_all is required');
    expect((await search({ parents_all: false, chidlrens_all: false })).status).toBe(200);
    expect((await search({ parents_all: false, children_all: false })).status).toBe(200);
  });

  it('the create endpoints answer 201, and the {id} routes declare the path parameter', () => {
    for (const r of RESOURCES) {
      const create = doc.paths[`${B}/${r.name}/create`]?.post;
      expect(Object.keys(create?.responses ?? {}), r.name).toContain('201');
      const get = doc.paths[`${B}/${r.name}/{id}`]?.get;
      const params = (get?.parameters ?? []).filter((x: any) => x.in === 'path').map((x: any) => x.name);
      expect(params, r.name).toContain('id');
    }
  });
});

describe('GET /openapi.json: public API, instances and the console API', () => {
  it.each([
    ['get', '/data/public/api/v1/incidents'],
    ['get', '/data/public/api/v1/findings'],
    ['get', '/data/public/api/v1/serviceAssets'],
    ['put', '/data/public/api/v1/incidents/update/status'],
    ['put', '/data/public/api/v1/incidents/update/critical'],
    ['post', '/data/v1/create'],
    ['get', '/tenancy/instance/list'],
    ['get', '/karaken/instance/list'],
    ['get', '/console/v1/instances'],
    ['post', '/console/v1/instances'],
    ['put', '/console/v1/instances/{id}'],
    ['delete', '/console/v1/instances/{id}'],
    ['post', '/console/v1/instances/{id}/test'],
    ['get', '/console/v1/instances/health'],
  ])('lists %s %s', (method, path) => {
    expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });

  it('documents ServiceAssetFindingDBFields with its upper camel case fields', () => {
    const schema = doc.components?.schemas?.ServiceAssetFindingDBFields;
    expect(schema).toBeDefined();
    for (const f of ['Id', 'Risklevel', 'ServiceAssetId', 'CCustomerRetentionTime', 'DisplayId']) expect(schema.properties).toHaveProperty(f);
  });
});

/** Every operation of the document, with its path and method. */
function allOperations(): { path: string; method: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([m]) => ['get', 'put', 'post', 'delete', 'patch'].includes(m))
      .map(([method, op]) => ({ path, method, op })),
  );
}

/** A schema with its $ref followed (components only). */
function deref(s: any): any {
  while (s?.$ref) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
  return s;
}

describe('GET /openapi.json: a complete contract', () => {
  it('every operation has a unique operationId of resource and operation, tags, a summary and a description', () => {
    const ids = new Set<string>();
    const problems: string[] = [];
    for (const { path, method, op } of allOperations()) {
      if (typeof op.operationId !== 'string' || !/^[a-z][a-z0-9_.]*$/.test(op.operationId)) problems.push(`${method} ${path}: operationId ${op.operationId}`);
      if (ids.has(op.operationId)) problems.push(`${method} ${path}: operationId ${op.operationId} twice`);
      ids.add(op.operationId);
      if (!op.tags?.length) problems.push(`${method} ${path}: no tag`);
      if (!op.summary || !op.description) problems.push(`${method} ${path}: no summary or description`);
    }
    expect(problems).toEqual([]);
    expect(doc.paths[`${B}/service_asset_findings/search`].post.operationId).toBe('service_asset_findings.search');
    expect(doc.paths[`${B}/rules/{id}`].get.operationId).toBe('rules.get');
    expect(doc.paths[`${CM}/agents/{id}/apply_config`].post.operationId).toBe('cm.agents.apply_config');
  });

  it('every tag used is declared with a description', () => {
    const declared = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    for (const { op } of allOperations()) for (const t of op.tags) expect(declared.get(t), t).toBeTruthy();
  });

  it('names the main port as the server, and the routing port where the routing serves an operation', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: srv.main })]);
    const create = doc.paths['/data/v1/create'].post;
    expect(create.servers.map((s: any) => s.url)).toEqual([srv.routing, srv.main]);
    const header = create.parameters.find((p: any) => p.name === 'pgrselectedinstance');
    expect(header).toMatchObject({ in: 'header' });
  });

  it('path templates are valid: every {parameter} is declared, ids are uuids', () => {
    const problems: string[] = [];
    for (const { path, method, op } of allOperations()) {
      if (/\{\*\}|\*/.test(path)) problems.push(`${path}: not a template`);
      for (const name of (path.match(/\{([^}]+)\}/g) ?? []).map((m) => m.slice(1, -1))) {
        const p = (op.parameters ?? []).find((x: any) => x.in === 'path' && x.name === name);
        if (!p?.required) problems.push(`${method} ${path}: {${name}} not declared`);
        if (name === 'id' && path.startsWith('/cruddy') && p?.schema?.format !== 'uuid') problems.push(`${method} ${path}: id is not a uuid`);
      }
    }
    expect(problems).toEqual([]);
    expect(doc.paths['/console/v1/route/{path}']?.get).toBeDefined();
  });

  it('answers list their required fields; records carry every field of the resource, typed', () => {
    for (const r of RESOURCES) {
      const rec = deref(doc.paths[`${B}/${r.name}/{id}`].get.responses['200'].content['application/json'].schema);
      expect(rec.required, r.name).toEqual(expect.arrayContaining(['id', 'created_at', 'updated_at', ...Object.keys(r.fields)]));
      expect(rec.additionalProperties, r.name).toBe(false);
      for (const [name, rel] of Object.entries(r.relations ?? {})) {
        const s = rec.properties[name];
        const text = JSON.stringify(s);
        expect(text, `${r.name}.${name}`).toMatch(/#\/components\/schemas\//);
        expect(rel).toBeDefined();
      }
    }
    const list = doc.paths[`${B}/rules/search`].post.responses['200'].content['application/json'].schema;
    expect(list.required).toEqual(['items', 'total']);
  });

  it('the public API entities are typed: incidents carry their extras, their asset and their occurrences', () => {
    const ok = (path: string) => deref(doc.paths[`/data/public/api/v1/${path}`].get.responses['200'].content['application/json'].schema);
    const incident = deref(ok('incidents').properties.objects.items);
    for (const f of ['id', 'status', 'risklevel', 'service_asset_name', 'display_title', 'front_link', 'service_asset', 'occurrences']) expect(incident.required, f).toContain(f);
    expect(incident.properties.status.enum).toContain('assigned_customer');
    expect(deref(incident.properties.occurrences.items).properties.event_type).toBeDefined();
    for (const p of ['findings', 'serviceAssets']) {
      const o = deref(ok(p).properties.objects.items);
      expect(o.additionalProperties, p).toBe(false);
      expect(Object.keys(o.properties).length, p).toBeGreaterThan(10);
    }
    expect(JSON.stringify(doc.components.schemas.PublicIncident)).not.toContain('"additionalProperties":{}');
  });

  it('declares the standard filters: page and per_page integers, order, search, and a filter per field', () => {
    const params = doc.paths['/data/public/api/v1/incidents'].get.parameters;
    const by = (n: string) => params.find((p: any) => p.name === n && p.in === 'query');
    expect(by('page').schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(by('per_page').schema).toMatchObject({ type: 'integer', maximum: 1000 });
    expect(by('order')).toBeDefined();
    expect(by('search')).toBeDefined();
    expect(by('status').schema.pattern).toMatch(/in\|notin/);
    expect(by('risklevel')).toBeDefined();
  });

  it('bodies of two styles are oneOf: mass_update, mass_create (array or {items}), the export, the incident create', () => {
    const body = (p: string, m = 'post') => deref(doc.paths[p][m].requestBody.content['application/json'].schema);
    expect(body(`${B}/software_groups/mass_update`).oneOf).toHaveLength(2);
    const mc = body(`${B}/software_groups/mass_create`);
    expect(mc.oneOf.map((s: any) => deref(s).type).sort()).toEqual(['array', 'object']);
    expect(body('/console/v1/export').oneOf).toHaveLength(2);
    expect(body('/data/v1/create').oneOf).toHaveLength(2);
  });

  it('Pgr-User-Id is required where the server requires it', () => {
    const op = doc.paths[`${B}/engine_go_rules_integration_actions/create`].post;
    expect(op.parameters.find((p: any) => p.in === 'header' && p.name === 'pgr-user-id')).toMatchObject({ required: true, schema: { format: 'uuid' } });
  });

  it('documents the routing envelope, the logmule_go_* aliases and the export media types', () => {
    const routed = doc.components.schemas.RoutedAnswer;
    expect(routed.required).toEqual(expect.arrayContaining(['id', 'name', 'data', 'error', 'status_code', 'time', 'version']));
    expect(doc.paths[`${B}/logmule_go_rules/search`].post.operationId).toBe('logmule_go_rules.search');
    const content = doc.paths['/console/v1/export'].post.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-ndjson', 'text/csv']);
  });

  it('the known mismatches are gone: rules/update answers rule_sets null; occurrences/create answers engine_go_result', () => {
    const upd = deref(doc.paths[`${B}/rules/update`].put.responses['200'].content['application/json'].schema);
    expect(upd.properties.rule_sets).toMatchObject({ type: 'null' });
    const occ = deref(doc.paths[`${B}/occurrences/create`].post.responses['201'].content['application/json'].schema);
    expect(occ.properties.engine_go_result).toBeDefined();
    expect(occ.properties.engine_go_results).toBeUndefined();
  });
});

