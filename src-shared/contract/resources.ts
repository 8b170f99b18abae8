// The generic operation set of a resource (the one the spec lists for software_groups), declared
// from the resource's registry entry. Named endpoints (named.ts) replace single operations of
// some resources with their own behaviour and schemas, under the same operationId.
import { z } from 'zod';
import { ERR } from '../errors';
import type { ResourceDef } from '../resources/types';
import { createSchemaOf, partialRecordSchemaOf, recordSchemaOf, updateSchemaOf, type WriteBody } from '../schemas/resource';
import {
  extensionParamsSchema,
  deleteAllSchema,
  groupAnswerSchema,
  groupRequestSchema,
  listSchema,
  massDeleteSchema,
  massResultsSchema,
  massUpdateSchema,
  metaSchema,
  searchRequestSchema,
} from '../schemas/search';
import { documentAlso } from './document-as';
import { errorAnswers, idParams, relationsQuerySchema } from './common';
import { API_BASES, defineOperation, lazily, once } from './operation';

// The server requires one of the two spellings of chidlrens_all (a refinement, which the generated
// JSON Schema would leave out): the document says so.
documentAlso(extensionParamsSchema, { anyOf: [{ type: 'object', required: ['chidlrens_all'] }, { type: 'object', required: ['children_all'] }] });

export const GENERIC_OPS = ['create', 'update', 'search', 'get', 'delete', 'group', 'mass_create', 'mass_delete', 'mass_update', 'delete_all', 'meta'] as const;
export type GenericOp = (typeof GENERIC_OPS)[number];

/** A mass create body: a bare array of records (the README's form) or `{items: [...]}`; both arrive as `{items}`. */
export function massCreateSchemaOf(r: ResourceDef): z.ZodType<{ items: WriteBody[] }> {
  const items = z.array(createSchemaOf(r)).min(1, 'items should not be empty');
  return z
    .xor([items.describe('the records'), z.strictObject({ items }).describe('the records under `items`')])
    .transform((v) => (Array.isArray(v) ? { items: v } : v))
    .describe('the records to create: an array, or an object holding it under `items`') as unknown as z.ZodType<{ items: WriteBody[] }>;
}

const lower = (r: ResourceDef) => r.title.en.toLowerCase();

/**
 * Every generic operation of `r` under `base` (the data-management API, or the agent API for
 * agents). `idPrefix` names the API in operationIds when it is not the data-management one.
 */
const made = new Map<string, ReturnType<typeof declareResource>>();

export function resourceOperations(r: ResourceDef, base: string = API_BASES.v2, idPrefix = '') {
  const key = `${base} ${idPrefix} ${r.name}`;
  let ops = made.get(key);
  if (!ops) made.set(key, (ops = declareResource(r, base, idPrefix)));
  return ops;
}

function declareResource(r: ResourceDef, base: string, idPrefix: string) {
  const at = `${base}/${r.name}`;
  const id = (op: string) => `${idPrefix}${r.name}.${op}`;
  const tag = r.name;
  const record = once(() => recordSchemaOf(r));
  const what = lower(r);
  const update = (method: 'PUT' | 'POST') =>
    defineOperation(
      lazily(
        {
          operationId: id(method === 'PUT' ? 'update' : 'update_post'),
          method,
          path: `${at}/update`,
          tag,
          summary: `Update ${what}${method === 'POST' ? ' (POST)' : ''}`,
          description:
            `Partial update: only the fields sent are changed; \`id\` names the record. \`_relations\` sets many-to-many and has-many links (a list makes the links equal to it, \`[]\` removes them, absent leaves them). ` +
            `Fields a record answers but nobody writes (timestamps, computed fields, loaded relations) are accepted and ignored, so a record read can be sent back changed.` +
            (method === 'POST' ? ' The same operation as PUT, under the method the published examples use.' : ''),
        },
        {
          body: () => updateSchemaOf(r),
          responses: () => ({ 200: record().describe('the updated record'), ...errorAnswers(400, 401, 404, 409, 500) }),
        },
      ),
    );
  return {
    create: defineOperation(
      lazily(
        {
          operationId: id('create'),
          method: 'POST',
          path: `${at}/create`,
          tag,
          summary: `Create ${what}`,
          description: `Creates a record and answers it (201). \`id\` may be given (a uuid); otherwise one is made. Required fields missing, a wrong type or a value out of range are 400 naming the field; a taken unique value is 409 with \`extra.fields\`.`,
        },
        {
          body: () => createSchemaOf(r),
          responses: () => ({ 201: record().describe('the created record'), ...errorAnswers(400, 401, 409, 500) }),
        },
      ),
    ),
    update: update('PUT'),
    update_post: update('POST'),
    search: defineOperation(
      lazily(
        {
          operationId: id('search'),
          method: 'POST',
          path: `${at}/search`,
          tag,
          summary: `Search ${what}`,
          description:
            'The search request (spec: Search request): `filters` (equal, substr, intersection, range, related, exists; `negation`), `ordering`, `virtual_search` (a substring of any text field, Cyrillic case folded), ' +
            '`extension_params` (children / parents of tree resources), `relations` to load, `_relations` to list ids of, `include_fields` / `exclude_fields`, `limit` (at most 10,000) and `offset`. ' +
            '`total` counts every match, not the page.' +
            Object.entries(r.sortKeys ?? {})
              .map(([name, k]) => ` \`ordering\` also takes the sort-only key \`${name}\`: ${k.description}.`)
              .join(''),
        },
        {
          body: () => searchRequestSchema,
          responses: () => ({ 200: listSchema(partialRecordSchemaOf(r)).describe('a page of matches and the number of all matches'), ...errorAnswers(400, 401, 500) }),
        },
      ),
    ),
    get: defineOperation(
      lazily(
        {
          operationId: id('get'),
          method: 'GET',
          path: `${at}/{id}`,
          tag,
          summary: `Get ${what} by id`,
          description: `One record with its relations: all of them when \`relations\` is absent, none when it is empty, else the ones listed. \`_relations\` lists the ids of its has-many and many-to-many links.`,
        },
        {
          params: () => idParams(r.name),
          query: () => relationsQuerySchema,
          responses: () => ({ 200: record().describe('the record'), ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    delete: defineOperation(
      lazily(
        {
          operationId: id('delete'),
          method: 'DELETE',
          path: `${at}/{id}`,
          tag,
          summary: `Delete ${what} by id`,
          description: `Deletes one record and answers its id. A record other records need (a required reference) is 409 \`${ERR.relatedData}\` with \`extra.fields\` naming them.`,
        },
        {
          params: () => idParams(r.name),
          responses: () => ({ 200: z.strictObject({ id: z.string().meta({ format: 'uuid' }) }).describe('the id of the deleted record'), ...errorAnswers(400, 401, 404, 409, 500) }),
        },
      ),
    ),
    group: defineOperation(
      lazily(
        {
          operationId: id('group'),
          method: 'POST',
          path: `${at}/group`,
          tag,
          summary: `Count ${what} by the values of a field`,
          description: `Counts records by the values of \`group_field\`, among those matching \`filters\` (the search filters). A missing field is 400 \`${ERR.groupFieldEmpty}\`, an unknown one 400 \`${ERR.invalidField}\`. Without \`order\`, \`limit\` or \`offset\` the answer is every group, the most frequent first. \`limit\`/\`offset\` page it and add \`groups\` (the number of all groups) and \`total\` (the records matched); \`order: "value"\` lists the groups by value (none first), the order a field's index serves: a page of a field with very many values (a title) is read without counting every group, while the most frequent first needs every group counted for each page.`,
        },
        {
          body: () => groupRequestSchema,
          responses: () => ({ 200: groupAnswerSchema, ...errorAnswers(400, 401, 500) }),
        },
      ),
    ),
    mass_create: defineOperation(
      lazily(
        {
          operationId: id('mass_create'),
          method: 'POST',
          path: `${at}/mass_create`,
          tag,
          summary: `Create several ${what} at once`,
          description: 'All or nothing, in one transaction: either every record is created, or none (the first problem is answered, as create would). The body is an array of records, or `{items: [...]}`.',
        },
        {
          body: () => massCreateSchemaOf(r),
          responses: () => ({ 201: z.strictObject({ items: z.array(record()), total: z.number().int() }).describe('the created records'), ...errorAnswers(400, 401, 409, 500) }),
        },
      ),
    ),
    mass_delete: defineOperation(
      lazily(
        {
          operationId: id('mass_delete'),
          method: 'POST',
          path: `${at}/mass_delete`,
          tag,
          summary: `Delete several ${what}`,
          description: 'Deletes each id on its own and answers a code per id: 0 deleted, 11001 other records need it, 11002 storage error, 11003 nothing deleted (unknown id), 12012 not a uuid.',
        },
        {
          body: () => massDeleteSchema,
          responses: () => ({ 200: massResultsSchema, ...errorAnswers(400, 401, 500) }),
        },
      ),
    ),
    mass_update: defineOperation(
      lazily(
        {
          operationId: id('mass_update'),
          method: 'POST',
          path: `${at}/mass_update`,
          tag,
          summary: `Update several ${what}`,
          description:
            'Two styles: `{ids, field, value}` sets one field on each object and answers a code per object (0 ok, 11001 related data, 11002 storage error, 11003 nothing affected, 12012 not a uuid); ' +
            '`{ids, fields}` sets several fields on all of them in one transaction (all or nothing: the first problem is answered as an error).',
        },
        {
          body: () => massUpdateSchema,
          responses: () => ({ 200: massResultsSchema, ...errorAnswers(400, 401, 404, 409, 500) }),
        },
      ),
    ),
    delete_all: defineOperation(
      lazily(
        {
          operationId: id('delete_all'),
          method: 'DELETE',
          path: `${at}/all`,
          tag,
          summary: `Delete ${what} matching filters, or all`,
          description: 'Deletes the records matching `filters` (the search filters); without a body or filters, every record. Answers how many were deleted.',
          bodyRequired: false,
        },
        {
          body: () => deleteAllSchema,
          responses: () => ({ 200: z.strictObject({ deleted: z.number().int() }).describe('how many records were deleted'), ...errorAnswers(400, 401, 409, 500) }),
        },
      ),
    ),
    meta: defineOperation(
      lazily(
        {
          operationId: id('meta'),
          method: 'GET',
          path: `${at}/_meta`,
          tag,
          summary: `Fields, filters, actions and relations of ${what}`,
          description: 'Each field with its type and the filter types it takes, whether it is required, unique or read-only; the actions and instance actions; the relations that `relations` may load.',
        },
        {
          responses: () => ({ 200: metaSchema, ...errorAnswers(401, 500) }),
        },
      ),
    ),
  };
}

export type ResourceOperations = ReturnType<typeof declareResource>;
