// The typed client's types, over the ones generated from the contract (contract-types.ts): each
// operation's input and answer by its operationId, and for each resource of the data-management
// API its records, the fields its searches take (a filter type per field kind, values of the
// field's type), its links and sort keys. A misspelt resource, field, filter type, public filter
// key or operator does not compile.
import type { GroupAnswer, MassResults, Operations, PublicFilterKeys, PublicQuery, ResourceMeta, ResourceName, Resources, RoutedAnswer, StandardFilter } from './contract-types';

export type { PublicFilterKeys, PublicQuery, ResourceName, Resources, StandardFilter };

/** Every operation's id (`<resource or area>.<operation>`, as in /openapi.json). */
export type OperationId = keyof Operations;

/** The success answer of an operation. */
export type AnswerOf<K extends OperationId> = Operations[K]['answer'];

// Not distributive ([O] extends [...]): an operationId not yet known while a call is checked
// stands for one input, not for a union of every operation's.
type ParamsPart<O> = [O] extends [{ params: infer P }] ? { params: P } : { params?: undefined };
type QueryPart<O> = [O] extends [{ query: infer Q }]
  ? {} extends Q
    ? { query?: Q | string }
    : { query: Q | string }
  : { query?: string | Record<string, string | number | boolean | undefined | readonly (string | number)[]> };
type BodyPart<O> = [O] extends [{ body: infer B; bodyRequired: true }] ? { body: B } : [O] extends [{ body: infer B }] ? { body?: B } : { body?: undefined };

/** What a call of one operation sends: its path parameters, query, body, extra headers. */
export type CallInputOf<K extends OperationId> = ParamsPart<Operations[K]> &
  QueryPart<Operations[K]> &
  BodyPart<Operations[K]> & {
    headers?: Record<string, string>;
    signal?: AbortSignal;
  };

/** The arguments after the operationId: the input, optional where nothing in it is required. */
export type CallArgs<K extends OperationId> = [{} extends CallInputOf<K> ? true : false] extends [true] ? [input?: CallInputOf<K>] : [input: CallInputOf<K>];

/** A field of a resource's records. */
export type FieldOf<R extends ResourceName> = keyof Resources[R]['fields'] & string;
/** The type of a field's values. */
export type ValueOf<R extends ResourceName, F extends FieldOf<R>> = Resources[R]['fields'][F] extends { value: infer V } ? V : never;
/** The filter types a field takes (by its kind). */
export type FilterTypeOf<R extends ResourceName, F extends FieldOf<R>> = Resources[R]['fields'][F] extends { filters: infer T extends string } ? T : never;
/** A link of a resource (`relations` loads it; a `related` filter names it). */
export type RelationOf<R extends ResourceName> = keyof Resources[R]['relations'] & string;
/** The id field of a belongs-to link (a `related` filter may name it instead of the link). */
type LinkFieldOf<R extends ResourceName> = { [L in RelationOf<R>]: Resources[R]['relations'][L] extends { fk: infer K extends string } ? K : never }[RelationOf<R>];
/** Keys `ordering` takes: the fields, and the resource's sort-only keys. */
export type OrderKeyOf<R extends ResourceName> = FieldOf<R> | Resources[R]['sortKeys'];

/** widen a filter's ids to their descendants / ancestors (tree resources) */
export interface FilterExtensionParams {
  chidlrens_all?: boolean;
  children_all?: boolean;
  parents_all?: boolean;
}

type FilterValue<T, V> = T extends 'equal'
  ? { value: V }
  : T extends 'substr'
    ? { value: string }
    : T extends 'intersection'
      ? { value: readonly V[] }
      : T extends 'range'
        ? { value: readonly [V | null, V | null] }
        : { value?: unknown };

type FieldFilter<R extends ResourceName, F extends FieldOf<R>> = {
  [T in FilterTypeOf<R, F>]: { field: F; filter_type: T; negation?: boolean; extension_params?: FilterExtensionParams } & FilterValue<T, ValueOf<R, F>>;
}[FilterTypeOf<R, F>];

/** A search filter of a resource: a field with a filter type its kind takes and a value of its type, or a `related` filter on a link. */
export type FilterOf<R extends ResourceName> =
  | { [F in FieldOf<R>]: FieldFilter<R, F> }[FieldOf<R>]
  | ([RelationOf<R>] extends [never]
      ? never
      : { field: RelationOf<R> | LinkFieldOf<R>; filter_type: 'related'; value: string | readonly string[] | null; negation?: boolean; extension_params?: FilterExtensionParams });

/** The search request of a resource (`POST /cruddy/v2/<resource>/search`). */
/** The group operation's paging (absent: every group, the most frequent first). */
export interface GroupOptions {
  signal?: AbortSignal;
  /** `count` (default): the most frequent first; `value`: by value, the order a field's index serves. */
  order?: 'count' | 'value';
  /** At most this many groups; the answer then also carries `groups` and `total`. */
  limit?: number;
  /** Groups skipped before the page. */
  offset?: number;
}

export interface SearchRequestOf<R extends ResourceName> {
  /** fields to return ([] = all) */
  include_fields: readonly FieldOf<R>[];
  exclude_fields: readonly FieldOf<R>[];
  filters: readonly FilterOf<R>[];
  ordering: readonly { field: OrderKeyOf<R>; direction: 'asc' | 'desc' }[];
  virtual_search: { value: string; strict: boolean };
  /** one of the two spellings of chidlrens_all is required */
  extension_params: { chidlrens_all?: boolean; children_all?: boolean; parents_all: boolean } & ({ chidlrens_all: boolean } | { children_all: boolean });
  /** links to load */
  relations: readonly RelationOf<R>[];
  limit: number;
  offset: number;
  /** links whose ids each result lists under `_relations` */
  _relations?: readonly Resources[R]['listRelations'][];
}

/** A record of a resource as `get`, `create` and `update` answer it. */
export type RecordOf<R extends ResourceName> = Operations[`${R}.get`]['answer'];
/** A field a write may set. */
export type WritableOf<R extends ResourceName> = Resources[R]['writable'] & keyof RecordOf<R>;
/** A new record (`create`). */
export type CreateOf<R extends ResourceName> = Operations[`${R}.create`]['body'];
/** A partial update (`update`: `id` and the fields to change). */
export type UpdateOf<R extends ResourceName> = Operations[`${R}.update`]['body'];

type Listed<I> = [I] extends [never] ? never : I;
/** The records a search answers: the fields of `include_fields` (all when empty), less `exclude_fields`. */
export type SearchItemOf<R extends ResourceName, Q> = Q extends { include_fields: readonly (infer I)[]; exclude_fields: readonly (infer E)[] }
  ? [Listed<I>] extends [never]
    ? Omit<RecordOf<R>, E & string>
    : Pick<RecordOf<R>, Exclude<I, E> & keyof RecordOf<R>>
  : Partial<RecordOf<R>>;

export interface SearchPage<R extends ResourceName, Q = SearchRequestOf<R>> {
  items: SearchItemOf<R, Q>[];
  /** the number of all matches, not the page */
  total: number;
}

/** A search request with every part empty: all records, first page; spread it and set the parts you need. */
export interface EmptySearch {
  include_fields: [];
  exclude_fields: [];
  filters: [];
  ordering: [];
  virtual_search: { value: ''; strict: false };
  extension_params: { chidlrens_all: false; parents_all: false };
  relations: [];
  limit: number;
  offset: number;
}

/** One instance's answer in the routing's envelope (its answer, or its error body, under `data`). */
export type RoutedElement<T = unknown> = Omit<RoutedAnswer, 'data'> & { data: T };

/** The data-management API's operations on one resource, typed by its declaration. */
export interface ResourceApi<R extends ResourceName> {
  /** `POST .../search`: a page of records and the number of all matches. */
  search<const Q extends SearchRequestOf<R>>(req: Q, opts?: { signal?: AbortSignal }): Promise<SearchPage<R, Q>>;
  /** `GET .../{id}`: one record, with the links asked for (all when absent, none when `[]`). */
  get(id: string, opts?: { relations?: readonly RelationOf<R>[]; signal?: AbortSignal }): Promise<RecordOf<R>>;
  create(body: CreateOf<R>): Promise<RecordOf<R>>;
  update(body: UpdateOf<R>): Promise<Operations[`${R}.update`]['answer']>;
  delete(id: string): Promise<{ id: string }>;
  /**
   * Record counts per value of a field, among the records the filters match: every group, or one
   * page of them (`limit`/`offset`, answered with the number of groups and of records).
   */
  group(group_field: FieldOf<R>, filters?: readonly FilterOf<R>[], opts?: GroupOptions): Promise<GroupAnswer>;
  massCreate(items: readonly CreateOf<R>[]): Promise<{ items: RecordOf<R>[]; total: number }>;
  massDelete(ids: readonly string[]): Promise<MassResults>;
  /** One field set on each record, a result code per record. */
  massUpdate<F extends WritableOf<R>>(ids: readonly string[], field: F, value: RecordOf<R>[F]): Promise<MassResults>;
  /** Several fields set on every record, all or nothing. */
  massUpdateFields(ids: readonly string[], fields: Partial<Pick<RecordOf<R>, WritableOf<R>>>): Promise<MassResults>;
  /** Deletes the records the filters match (every record without filters). */
  deleteAll(filters?: readonly FilterOf<R>[]): Promise<{ deleted: number }>;
  meta(): Promise<ResourceMeta>;
}
