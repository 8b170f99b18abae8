// The search request shared by every `<resource>/search` (spec: Search request), and the bodies
// of the other generic operations.
import { z } from 'zod';
import { FILTER_TYPES } from '../resources/types';

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

export const orderingSchema = z.object({ field: z.string(), direction: z.enum(['asc', 'desc']) }).meta({ id: 'SearchOrdering' });
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
  return {
    include_fields: [],
    exclude_fields: [],
    filters: [],
    ordering: [],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit,
    offset,
  };
}

export const groupRequestSchema = z.object({
  group_field: z.string().optional(),
  filters: z.array(filterSchema).optional(),
});

export const idsSchema = z.array(z.string()).min(1, 'ids should not be empty');

export const massDeleteSchema = z.object({ ids: idsSchema });

export const massUpdateSchema = z.object({
  ids: idsSchema,
  field: z.string().optional().describe('style 1: one field set on each object, per-object results'),
  value: z.unknown().optional(),
  fields: z.record(z.string(), z.unknown()).optional().describe('style 2: several fields, all-or-nothing'),
});

export const deleteAllSchema = z.object({ filters: z.array(filterSchema).optional() }).nullish();

export const massResultsSchema = z.object({
  results: z.array(z.object({ id: z.string(), error_code: z.number().int() })),
});

export const listSchema = (item: z.ZodType) => z.object({ items: z.array(item), total: z.number().int() });

export const metaSchema = z
  .looseObject({
    name: z.string(),
    fields: z.array(
      z.looseObject({ name: z.string(), type: z.string(), filters: z.array(z.string()), required: z.boolean(), unique: z.boolean(), read_only: z.boolean() }),
    ),
    actions: z.array(z.string()),
    instance_actions: z.array(z.object({ action: z.string(), params: z.array(z.string()) })),
    relations: z.array(z.string()),
    links: z.array(z.object({ name: z.string(), kind: z.string(), target: z.string() })),
  })
  .meta({ id: 'ResourceMeta' });
