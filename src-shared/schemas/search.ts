// The search request shared by every `<resource>/search` (spec: Search request), and the bodies
// of the other generic operations.
import { z } from 'zod';
import { FILTER_TYPES } from '../resources/types';
import { emptySearch as emptyRequest } from '../client/empty-search';

/** Largest `limit` a search accepts. */
export const MAX_LIMIT = 10_000;

export const extensionParamsSchema = z
  .object({
    chidlrens_all: z.boolean().optional().describe('get all children of the matched objects (the spec spells it so)'),
    children_all: z.boolean().optional().describe('accepted spelling of chidlrens_all'),
    parents_all: z.boolean().describe('get the chain of parents of the matched objects'),
  })
  .refine((v) => v.chidlrens_all !== undefined || v.children_all !== undefined, {
    message: 'extension_params.chidlrens_all is required',
    path: ['chidlrens_all'],
  });

export type ExtensionParams = z.infer<typeof extensionParamsSchema>;

/**
 * extension_params of one filter (the spec's filter-level example gives `children_all` alone):
 * every key optional, a missing one false.
 */
export const filterExtensionParamsSchema = z.object({
  chidlrens_all: z.boolean().optional().describe('widen the given ids to their descendants (the spec spells it so)'),
  children_all: z.boolean().optional().describe('accepted spelling of chidlrens_all'),
  parents_all: z.boolean().default(false).describe('widen the given ids to their ancestors'),
});

export const filterSchema = z
  .object({
    field: z.string().min(1, 'filter field should not be empty'),
    value: z.unknown().optional(),
    filter_type: z.enum(FILTER_TYPES),
    negation: z.boolean().optional(),
    extension_params: filterExtensionParamsSchema.optional(),
  })
  .meta({ id: 'SearchFilter' });

export type SearchFilter = z.infer<typeof filterSchema>;

export const orderingSchema = z
  .object({
    field: z.string().describe("a field of the resource, or a sort-only key its search operation names (such as the incidents' `status_rank`, the status in workflow order)"),
    direction: z.enum(['asc', 'desc']),
  })
  .meta({ id: 'SearchOrdering' });
export type SearchOrdering = z.infer<typeof orderingSchema>;

export const virtualSearchSchema = z.object({
  value: z.string(),
  strict: z.boolean().describe('true: some string field equals the value exactly; false: case-insensitive substring of any string field'),
});

export const searchRequestSchema = z
  .object({
    include_fields: z.array(z.string()).describe('fields to return ([] = all)'),
    exclude_fields: z.array(z.string()),
    filters: z.array(filterSchema),
    ordering: z.array(orderingSchema),
    virtual_search: virtualSearchSchema,
    extension_params: extensionParamsSchema,
    relations: z.array(z.string()).describe('links to load (see _meta)'),
    limit: z.number().int().min(0).max(MAX_LIMIT),
    offset: z.number().int().min(0),
    _relations: z.array(z.string()).optional().describe('related entities whose ids are returned in each result'),
  })
  .meta({ id: 'SearchRequest' });

export type SearchRequest = z.infer<typeof searchRequestSchema>;

/** A request with every part empty: all records, first page. */
export function emptySearch(limit = 50, offset = 0): SearchRequest {
  return emptyRequest(limit, offset);
}

/** The orders of the group operation's answer: the most frequent first (the default), or by value. */
export const GROUP_ORDERS = ['count', 'value'] as const;
export type GroupOrder = (typeof GROUP_ORDERS)[number];

export const groupRequestSchema = z.object({
  group_field: z.string().optional().describe('the field whose values are counted'),
  filters: z.array(filterSchema).optional().describe('count among the records these search filters match'),
  order: z
    .enum(GROUP_ORDERS)
    .optional()
    .describe(
      'the order of the groups: `count` (default) the most frequent first, then by value; `value` by value ascending (records without one first), the order of the field\'s index, so that a page of a field with very many values is read without counting every group',
    ),
  limit: z.number().int().min(0).max(MAX_LIMIT).optional().describe('pages the answer: at most this many groups (absent: every group from `offset` on)'),
  offset: z.number().int().min(0).optional().describe('pages the answer: the groups skipped before the page, in the answer\'s order (default 0)'),
});

export type GroupRequest = z.infer<typeof groupRequestSchema>;

const groupItemsSchema = z.array(
  z.strictObject({
    value: z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).describe('a value of the field (null: records without one)'),
    count: z.number().int(),
  }),
);

export const groupAnswerSchema = z
  .strictObject({
    items: groupItemsSchema,
    groups: z.number().int().min(0).optional().describe('the number of all groups, not only the page\'s: present when the request is paged (`limit` or `offset` given)'),
    total: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('the number of records the filters match, the sum of every group\'s count (not only the page\'s): present when the request is paged'),
  })
  .meta({
    id: 'GroupAnswer',
    description:
      'record counts per value of the field, the most frequent first (or by value: `order`); every group, or with `limit`/`offset` one page of them with the number of groups and of records',
  });

export type GroupAnswer = z.infer<typeof groupAnswerSchema>;

export const idsSchema = z.array(z.string()).min(1, 'ids should not be empty');

export const massDeleteSchema = z.object({ ids: idsSchema }).meta({ id: 'MassDeleteRequest' });

/** mass_update's two styles (contract.md §2): one field per object with per-object codes, or several fields all or nothing. */
export const massUpdateFieldSchema = z
  .strictObject({
    ids: idsSchema,
    field: z.string().describe('the field set on each object'),
    value: z.unknown().optional().describe('its new value (absent: null)'),
  })
  .describe('style 1: one field set on each object, a result code per object');

export const massUpdateFieldsSchema = z
  .strictObject({
    ids: idsSchema,
    fields: z.record(z.string(), z.unknown()).describe('field → new value'),
  })
  .describe('style 2: several fields set on every object in one transaction (all or nothing)');

export const massUpdateSchema = z.xor([massUpdateFieldSchema, massUpdateFieldsSchema]).meta({ id: 'MassUpdateRequest' });
export type MassUpdateRequest = z.infer<typeof massUpdateSchema>;

export const deleteAllSchema = z
  .object({ filters: z.array(filterSchema).optional().describe('the search filters (absent: every record)') })
  .nullish()
  .meta({ id: 'DeleteAllRequest' });

export const massResultsSchema = z
  .strictObject({
    results: z.array(
      z.strictObject({
        id: z.string(),
        error_code: z.number().int().describe('0 ok, 11001 related data, 11002 storage error, 11003 nothing affected, 12012 not a uuid'),
      }),
    ),
  })
  .meta({ id: 'MassResults', description: 'a result code per id, in the order given' });

export const listSchema = (item: z.ZodType) => z.strictObject({ items: z.array(item), total: z.number().int().describe('the number of all matches') });

const metaFieldSchema = z.strictObject({
  name: z.string(),
  type: z.enum(['uuid', 'string', 'integer', 'float', 'boolean', 'timestamp', 'date', 'json']),
  filters: z.array(z.enum(FILTER_TYPES)).describe('filter types the field takes'),
  required: z.boolean(),
  unique: z.boolean(),
  read_only: z.boolean(),
  enum: z.array(z.string()).optional(),
  ref: z.string().optional().describe('the resource this field refers to'),
  max_length: z.number().int().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  description: z.string().optional(),
});

export const metaSchema = z
  .strictObject({
    name: z.string(),
    title: z.strictObject({ en: z.string(), ru: z.string() }),
    label: z.string().describe('the field used as a label in lists'),
    fields: z.array(metaFieldSchema),
    actions: z.array(z.string()),
    instance_actions: z.array(z.strictObject({ action: z.string(), params: z.array(z.string()) })),
    relations: z.array(z.string()).describe('the links `relations` may load'),
    links: z.array(z.strictObject({ name: z.string(), kind: z.enum(['belongsTo', 'hasMany', 'manyToMany']), target: z.string() })),
    tree: z.strictObject({ parent: z.string() }).nullable().describe('tree resources: the parent field'),
  })
  .meta({ id: 'ResourceMeta' });
