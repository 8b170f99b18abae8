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
