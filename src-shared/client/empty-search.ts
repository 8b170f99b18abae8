// The empty search request, in a module of its own (no dependency): the typed client exports it,
// and the request schema's module gives it the schema's type.
import type { EmptySearch } from './types';

/** A search request with every part empty (all records, the first page of `limit`); spread it and set the parts you need. */
export function emptySearch(limit = 50, offset = 0): EmptySearch {
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
