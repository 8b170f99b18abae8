// What a record kind with behaviour of its own holds, in one module (store/kinds/<kind>): the
// rows its writes derive, its named operations, how it is pushed to and pulled from an origin,
// and its kept counts. Generic code (the write path, the named routes, push, pull, the query
// runner) reads these through the registry (kinds/index.ts), never from tables keyed by name.
import type { ResourceDef } from '../../../src-shared/resources/index';
import type { SearchRequest } from '../../../src-shared/schemas/search';
import type { OriginList } from '../../../src-shared/sync/lists';
import type { WriteBody } from '../../../src-shared/schemas/resource';
import type { Rec, WriteContext, WriteOptions } from '../api';
import type { Db } from '../db';
import type { Statements } from '../statements';

/** Rows a write of the kind derives (sources client and seed only: see runsEffects). */
export interface KindEffects {
  afterCreate?(w: Statements, id: string, values: Rec, ctx: WriteContext, at: string): void;
  afterUpdate?(w: Statements, before: Rec, values: Rec, ctx: WriteContext, at: string): void;
}

/** The store's write path as a named operation sees it (Store implements it). */
export interface StoreApi extends Statements {
  find(r: ResourceDef, id: string): Rec | undefined;
  exists(r: ResourceDef, id: string): boolean;
  get(r: ResourceDef, id: string, relations?: readonly string[]): Rec;
  create(r: ResourceDef, body: WriteBody, opts?: WriteOptions): Rec;
  update(r: ResourceDef, body: WriteBody & { id: string }, opts?: WriteOptions): Rec;
  updateSet(r: ResourceDef, ids: readonly string[], values: Rec, opts?: WriteOptions): number;
}

/** The query runner as a named operation sees it. */
export interface RunnerApi {
  search(r: ResourceDef, req: SearchRequest): { items: Rec[]; total: number };
}

/** One request of a named operation, its body and parameters checked by the contract's schemas. */
export interface NamedRequest {
  store: StoreApi;
  runner: RunnerApi;
  /** The body as the operation's schema checked it. */
  body: any;
  params: Record<string, string | undefined>;
  headers: Record<string, string | string[] | undefined>;
  userId?: string;
}

/** A named operation of the contract (by its key in namedOperations()/publicOperations()). */
export interface NamedOperation {
  /** The answer's status (default 200). */
  status?: number;
  /** Checks made before the body's (the spec's order of error texts); throws an ApiError. */
  preValidation?(headers: NamedRequest['headers']): void;
  /** The answer's body; undefined: an empty answer. */
  handle(req: NamedRequest): unknown;
}

/** A field whose change the platform takes through an operation of its own, not the v2 update. */
export interface FieldOperation {
  method: 'PUT';
  /** Path under the platform's address. */
  path: string;
  body(id: string, value: unknown): Rec;
}

/** Rows the platform makes itself when a field of another kind changes (status-change rows). */
export interface PlatformMadeFacts {
  /** The record whose change makes one, the field of it that changes, the row's reference to it. */
  parent: ResourceDef;
  parentField: string;
  parentFk: string;
  /** The row's copy of the new value and of the one before. */
  valueField: string;
  previousField: string;
  /** Deletes the rows made here (not copied from the origin) for a parent. */
  dropLocal(db: Db, parentId: string): void;
}

/** The kind's list the snapshot copies from the origin and a pull keeps up to date (its `order`: reference order). */
export type OriginListFacts = Omit<OriginList, 'resource'>;

export interface KindSync {
  /** The kind is copied from the origin by a snapshot and kept up to date by a pull. */
  list?: OriginListFacts;
  /** Fields the platform's update operation requires in every body, sent as the origin has them. */
  updateRequires?: readonly string[];
  /** Create and update take an audit trace id. */
  traceId?: boolean;
  /** Fields pushed through an operation of their own. */
  fieldOperations?: Readonly<Record<string, FieldOperation>>;
  /** Rows of this kind are made by the platform, never created through its API. */
  platformMade?: PlatformMadeFacts;
}

export interface KindModule {
  /** The declaration. */
  resource: ResourceDef;
  effects?: KindEffects;
  /** Named operations (v2, agents' API) and public ones, by their key in the contract. */
  operations?: Readonly<Record<string, NamedOperation>>;
  sync?: KindSync;
  kept?: KindKept;
}

/**
 * Counts the database keeps of the kind's rows by triggers, as a bulk write keeps them up to
 * date once per batch: each insert trigger it drops for its transaction, with the statement
 * that adds the counts of the rows above the one parameter (the table's largest _rid before
 * the batch) before the trigger is put back.
 */
export interface KindKept {
  /** addAllSql: the same statement for a batch that filled an empty table (every row new), free to read an index instead. */
  insertCounts(): readonly { trigger: string; addSql: string; addAllSql?: string }[];
}
