// The generic operation set (the one the spec lists for software_groups), registered for a
// resource from its declaration. Named endpoints replace single operations where the spec
// gives them their own behaviour.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, badRequest, ERR } from '../../../src-shared/errors';
import type { ResourceDef } from '../../../src-shared/resources/index';
import { errorBodySchema, isUuid } from '../../../src-shared/schemas/common';
import { createSchemaOf, recordSchemaOf, updateSchemaOf } from '../../../src-shared/schemas/resource';
import {
  deleteAllSchema,
  groupRequestSchema,
  listSchema,
  massDeleteSchema,
  massResultsSchema,
  massUpdateSchema,
  metaSchema,
  searchRequestSchema,
} from '../../../src-shared/schemas/search';
import { compileSearchPlan } from '../../store/query/plan';
import type { ApiDeps } from '../deps';
import { laneOf, sendJson } from '../reads';

export const GENERIC_OPS = [
  'create',
  'update',
  'search',
  'get',
  'delete',
  'group',
  'mass_create',
  'mass_delete',
  'mass_update',
  'delete_all',
  'meta',
] as const;
export type GenericOp = (typeof GENERIC_OPS)[number];

export const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, errorBodySchema]));

export const relationsQuerySchema = z.object({
  relations: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('links to load, comma-separated or repeated; absent: all links; present and empty: none'),
});

/** The `relations` query parameter: undefined = all links, '' = none, else the listed ones. */
export function parseRelationsQuery(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

export function checkId(id: string | undefined): string {
  if (!id || id.trim() === '') throw badRequest(ERR.idEmpty);
  if (!isUuid(id)) throw badRequest(ERR.idNotUuid);
  return id;
}

export function registerResource(app: FastifyInstance, prefix: string, r: ResourceDef, deps: ApiDeps, skip: ReadonlySet<GenericOp> = new Set()): void {
  const z_ = app.withTypeProvider<ZodTypeProvider>();
  const base = `${prefix}/${r.name}`;
  const tags = [r.name];
  const record = recordSchemaOf(r);
  const store = deps.store;
  const has = (op: GenericOp) => !skip.has(op);

  if (has('create')) {
    z_.post(`${base}/create`, {
      schema: { tags, summary: `Create ${r.title.en.toLowerCase()}`, body: createSchemaOf(r), response: { 201: record, ...errors(400, 401, 409, 500) } },
      handler: async (req, reply) => reply.code(201).send(store().create(r, req.body, { userId: req.userId })),
    });
  }
  if (has('update')) {
    for (const method of ['PUT', 'POST'] as const) {
      z_.route({
        method,
        url: `${base}/update`,
        schema: {
          tags,
          summary: `Update ${r.title.en.toLowerCase()} (partial)${method === 'POST' ? ' — POST as in the published examples' : ''}`,
          body: updateSchemaOf(r),
          response: { 200: record, ...errors(400, 401, 404, 409, 500) },
        },
        handler: async (req) => store().update(r, req.body, { userId: req.userId }),
      });
    }
  }
  if (has('search')) {
    z_.post(`${base}/search`, {
      schema: { tags, summary: `Search ${r.title.en.toLowerCase()}`, body: searchRequestSchema, response: { 200: listSchema(record), ...errors(400, 401, 500) } },
      handler: async (req, reply) => sendJson(reply, await deps.reads().read({ kind: 'page', plan: compileSearchPlan(r, req.body), shape: 'items' }, laneOf(req))),
    });
  }
  if (has('meta')) {
    z_.get(`${base}/_meta`, {
      schema: { tags, summary: 'Field properties, filters, actions and relations', response: { 200: metaSchema, ...errors(401, 500) } },
      handler: async () => store().meta(r),
    });
  }
  if (has('group')) {
    z_.post(`${base}/group`, {
      schema: {
        tags,
        summary: 'Count records by the values of a field',
        body: groupRequestSchema,
        response: { 200: z.object({ items: z.array(z.object({ value: z.unknown(), count: z.number().int() })) }), ...errors(400, 401, 500) },
      },
      handler: async (req) => store().group(r, req.body.group_field, req.body.filters),
    });
  }
  if (has('mass_create')) {
    const body = z.preprocess(
      (v) => (Array.isArray(v) ? { items: v } : v),
      z.object({ items: z.array(createSchemaOf(r)).min(1, 'items should not be empty') }),
    );
    z_.post(`${base}/mass_create`, {
      schema: {
        tags,
        summary: 'Create several records at once (all or nothing); the body is an array or {items}',
        body,
        response: { 201: z.object({ items: z.array(record), total: z.number().int() }), ...errors(400, 401, 409, 500) },
      },
      handler: async (req, reply) => {
        const items = store().massCreate(r, req.body.items, { userId: req.userId });
        return reply.code(201).send({ items, total: items.length });
      },
    });
  }
  if (has('mass_delete')) {
    z_.post(`${base}/mass_delete`, {
      schema: { tags, summary: 'Delete several records; a result code per id', body: massDeleteSchema, response: { 200: massResultsSchema, ...errors(400, 401, 500) } },
      handler: async (req) => ({ results: store().massDelete(r, req.body.ids, { userId: req.userId }) }),
    });
  }
  if (has('mass_update')) {
    z_.post(`${base}/mass_update`, {
      schema: {
        tags,
        summary: 'Update several records: {ids, field, value} (per-object results) or {ids, fields} (all or nothing)',
        body: massUpdateSchema,
        response: { 200: massResultsSchema, ...errors(400, 401, 404, 409, 500) },
      },
      handler: async (req) => {
        const { ids, field, value, fields } = req.body;
        if (fields !== undefined && field !== undefined) throw badRequest('give either field and value, or fields');
        if (fields !== undefined) return { results: store().massUpdateFields(r, ids, fields, { userId: req.userId }) };
        if (field === undefined) throw badRequest('field is required');
        return { results: store().massUpdateField(r, ids, field, value, { userId: req.userId }) };
      },
    });
  }
  if (has('delete_all')) {
    z_.delete(`${base}/all`, {
      schema: {
        tags,
        summary: 'Delete the records matching the filters (no filters: all records)',
        body: deleteAllSchema,
        response: { 200: z.object({ deleted: z.number().int() }), ...errors(400, 401, 409, 500) },
      },
      handler: async (req) => store().deleteAll(r, req.body?.filters ?? [], { userId: req.userId }),
    });
  }
  if (has('get')) {
    z_.get(`${base}/:id`, {
      schema: {
        tags,
        summary: `Get ${r.title.en.toLowerCase()} by id`,
        params: z.object({ id: z.string() }),
        querystring: relationsQuerySchema,
        response: { 200: record, ...errors(400, 401, 404, 500) },
      },
      handler: async (req) => store().get(r, checkId(req.params.id), parseRelationsQuery(req.query.relations)),
    });
    z_.get(base, { schema: { hide: true }, handler: async () => Promise.reject(badRequest(ERR.idEmpty)) });
  }
  if (has('delete')) {
    z_.delete(`${base}/:id`, {
      schema: {
        tags,
        summary: `Delete ${r.title.en.toLowerCase()} by id`,
        params: z.object({ id: z.string() }),
        response: { 200: z.object({ id: z.string() }), ...errors(400, 401, 404, 409, 500) },
      },
      handler: async (req) => store().delete(r, checkId(req.params.id), { userId: req.userId }),
    });
  }
}

export { ApiError };
