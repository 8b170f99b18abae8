// The typed client of the local API, built from the contract (src-shared/contract): every call
// names an operation, its input and answer are typed by the operation's schemas (the types are
// generated from the same declarations: contract-types.ts), and its answer is checked against
// the operation's answer schema at run time (a mismatch throws, so a script never works on data
// the contract does not describe). Runs wherever `fetch` does: Node 20, browsers, Electron.
//
//   import { createClient } from 'radar-console';
//   const radar = createClient({ url: 'http://127.0.0.1:9000', apiKey: process.env.RADAR_API_KEY });
//   const { objects } = await radar.public.incidents({ status: 'in,new,assigned_customer', order: '-risklevel' });
import type { z } from 'zod';
import { findOperation, type OperationDef } from '../contract/index';
import { fillPath, isMediaAnswer } from '../contract/operation';
import type { IncidentStatus } from '../resources/fields';
import { findResource } from '../resources/index';
import { K } from '../resources/kinds';
import { routedElementSchema } from '../schemas/routing';
import type { SearchRequest } from '../schemas/search';
import type { StatusChangeAnswer } from '../schemas/incident-status';
import type { DiscardRequest, EntryStateName, ResolveRequest } from '../schemas/sync';
import { changeStatusOnPlatform, type PlatformCalls, type StatusChangeOptions, type StatusNoteInput } from './status-change';
import type { PublicQuery, ResourceName, ServiceAssetFindingDBFields } from './contract-types';
import type { AnswerOf, CallArgs, CallInputOf, GroupOptions, OperationId, ResourceApi, RoutedElement } from './types';

export type { OperationDef } from '../contract/operation';
export type * from './contract-types';
export type * from './types';
export { emptySearch } from './empty-search';
export { changeStatusOnPlatform, rowOfChange, type PlatformCalls, type StatusChangeOptions, type StatusNoteInput } from './status-change';
export type { StatusChangeAnswer } from '../schemas/incident-status';


export interface ClientOptions {
  /** The main port's base URL, e.g. `http://127.0.0.1:9000`; '' in a page served by it. */
  url: string;
  /** The API key (`PgrApiKey`); or `token`. */
  apiKey?: string;
  /** A Bearer JWT (`radar-console token`). */
  token?: string;
  /** Check each answer against the operation's answer schema (default true). */
  validate?: boolean;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** A non-2xx answer: the platform's `{error, error_code}`. */
export class RadarApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    readonly operationId?: string,
  ) {
    super(message);
    this.name = 'RadarApiError';
  }
}

/** An answer the contract does not describe (the server and this client disagree). */
export class ContractMismatchError extends Error {
  constructor(
    readonly operationId: string,
    readonly issues: readonly z.core.$ZodIssue[],
  ) {
    super(`${operationId}: the answer does not match the contract: ${issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ')}`);
    this.name = 'ContractMismatchError';
  }
}

/** The input of a call of an operation chosen at run time (`radar.dynamic.call`). */
export interface CallInput {
  params?: Record<string, string>;
  query?: string | Record<string, string | number | boolean | undefined | readonly (string | number)[]>;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** A record of a resource chosen at run time (`radar.dynamic.resource`): its fields by name (the resource's `_meta` lists them). */
export type ApiRecord = { id: string } & Record<string, unknown>;
export interface ApiPage {
  items: ApiRecord[];
  total: number;
}

/** Where calls go: the main instance, or one instance by id through the routing (answers unwrapped). */
type Target = { instance?: string };

const ROUTE = '/console/v1/route';

function queryString(q: CallInput['query']): string {
  if (q === undefined) return '';
  if (typeof q === 'string') return q.replace(/^\?/, '');
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) p.append(k, String(item));
  }
  return p.toString();
}

function successSchema(op: OperationDef, status: number): z.ZodType | undefined {
  const a = op.responses[status];
  if (!a) return undefined;
  if (!isMediaAnswer(a)) return a;
  return a.content?.['application/json'];
}

const errorText = (body: unknown, fallback: string): string =>
  body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : fallback;

export function createClient(o: ClientOptions) {
  const base = o.url.replace(/\/+$/, '');
  const doFetch = o.fetch ?? fetch;
  const auth: Record<string, string> = o.apiKey ? { PgrApiKey: o.apiKey } : o.token ? { Authorization: `Bearer ${o.token}` } : {};

  async function send(method: string, path: string, input: CallInput, target: Target): Promise<{ status: number; body: unknown; contentType: string }> {
    const qs = queryString(input.query);
    const url = `${base}${target.instance ? ROUTE : ''}${path}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { ...o.headers, ...auth, ...input.headers };
    if (target.instance) headers.PgrSelectedInstance = target.instance;
    if (input.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await doFetch(url, { method, headers, body: input.body === undefined ? undefined : JSON.stringify(input.body), signal: input.signal });
    const contentType = res.headers.get('content-type') ?? '';
    const text = await res.text();
    let body: unknown = text;
    if (contentType.includes('json') && text !== '') body = JSON.parse(text);
    else if (text === '') body = undefined;
    if (target.instance) {
      // The routing's envelope: the instance's own status and answer.
      if (!Array.isArray(body)) throw new RadarApiError(res.status, errorText(body, `HTTP ${res.status}`), body);
      const el = body[0] as RoutedElement | undefined;
      if (!el) throw new RadarApiError(502, 'empty routing answer', body);
      return { status: el.status_code, body: el.data ?? undefined, contentType: 'application/json' };
    }
    return { status: res.status, body, contentType };
  }

  /** Calls one operation of the contract (by its declaration or its operationId). */
  async function call(op: OperationDef | string, input: CallInput = {}, target: Target = {}): Promise<unknown> {
    const def = typeof op === 'string' ? findOperation(op) : op;
    if (!def) throw new Error(`unknown operation ${String(op)}`);
    const res = await send(def.method, fillPath(def.path, input.params), input, target);
    if (res.status < 200 || res.status >= 300) throw new RadarApiError(res.status, errorText(res.body, `HTTP ${res.status}`), res.body, def.operationId);
    const schema = successSchema(def, res.status);
    if (o.validate === false || !schema || !res.contentType.includes('json')) return res.body;
    const parsed = schema.safeParse(res.body);
    if (!parsed.success) throw new ContractMismatchError(def.operationId, parsed.error.issues);
    return parsed.data;
  }

  /** Any path, unchecked: the answer as the server gave it (JSON parsed). */
  async function request(method: string, path: string, input: Omit<CallInput, 'params'> = {}, target: Target = {}): Promise<unknown> {
    const res = await send(method, path, input, target);
    if (res.status < 200 || res.status >= 300) throw new RadarApiError(res.status, errorText(res.body, `HTTP ${res.status}`), res.body);
    return res.body;
  }

  /** The same call on every instance (the routing without PgrSelectedInstance): one element each. */
  async function fanOut(method: string, path: string, input: Omit<CallInput, 'params'> = {}): Promise<RoutedElement[]> {
    const qs = queryString(input.query);
    const res = await doFetch(`${base}${ROUTE}${path}${qs ? `?${qs}` : ''}`, {
      method,
      headers: { ...o.headers, ...auth, ...input.headers, ...(input.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: input.body === undefined ? undefined : JSON.stringify(input.body),
      signal: input.signal,
    });
    const body = (await res.json()) as unknown;
    if (!res.ok) throw new RadarApiError(res.status, errorText(body, `HTTP ${res.status}`), body);
    return routedElementSchema.array().parse(body);
  }

  /** Instance id → kind (main, local, remote), from the console's list; read again for an id not in it. */
  let kinds: Map<string, string> | undefined;
  async function kindOf(id: string): Promise<string | undefined> {
    if (!kinds?.has(id)) {
      const list = (await call('console.instances.list')) as { id: string; kind: string }[];
      kinds = new Map(list.map((i) => [i.id, i.kind]));
    }
    return kinds.get(id);
  }

  function on(target: Target) {
    /** An operation by its id, typed by it. */
    const c = <K extends OperationId>(id: K, ...args: NoInfer<CallArgs<K>>): Promise<AnswerOf<K>> => call(id, (args as unknown[])[0] as CallInput | undefined, target) as Promise<AnswerOf<K>>;

    /** The operations of one resource, for a name known only at run time (no types beyond the record's id). */
    function dynamicResource(name: string) {
      const r = findResource(name);
      if (!r) throw new Error(`unknown resource ${name}`);
      const op = (verb: string) => `${name}.${verb}`;
      const d = (id: string, input: CallInput = {}) => call(id, input, target);
      return {
        search: (req: SearchRequest, opts: { signal?: AbortSignal } = {}) => d(op('search'), { body: req, signal: opts.signal }) as Promise<ApiPage>,
        get: (id: string, opts: { relations?: readonly string[]; signal?: AbortSignal } = {}) =>
          d(op('get'), { params: { id }, query: opts.relations === undefined ? undefined : { relations: opts.relations.join(',') }, signal: opts.signal }) as Promise<ApiRecord>,
        create: (body: Record<string, unknown>) => d(op('create'), { body }) as Promise<ApiRecord>,
        update: (body: Record<string, unknown> & { id: string }) => d(op('update'), { body }) as Promise<ApiRecord>,
        delete: (id: string) => d(op('delete'), { params: { id } }) as Promise<{ id: string }>,
        group: (group_field: string, filters?: SearchRequest['filters'], opts: GroupOptions = {}) =>
          d(op('group'), { body: { group_field, filters, order: opts.order, limit: opts.limit, offset: opts.offset }, signal: opts.signal }) as Promise<AnswerOf<`${ResourceName}.group`>>,
        massCreate: (items: Record<string, unknown>[]) => d(op('mass_create'), { body: { items } }) as Promise<ApiPage>,
        massDelete: (ids: string[]) => d(op('mass_delete'), { body: { ids } }) as Promise<AnswerOf<`${ResourceName}.mass_delete`>>,
        massUpdate: (ids: string[], field: string, value: unknown) => d(op('mass_update'), { body: { ids, field, value } }) as Promise<AnswerOf<`${ResourceName}.mass_update`>>,
        massUpdateFields: (ids: string[], fields: Record<string, unknown>) => d(op('mass_update'), { body: { ids, fields } }) as Promise<AnswerOf<`${ResourceName}.mass_update`>>,
        deleteAll: (filters?: SearchRequest['filters']) => d(op('delete_all'), { body: filters ? { filters } : undefined }) as Promise<AnswerOf<`${ResourceName}.delete_all`>>,
        meta: () => d(op('meta')) as Promise<AnswerOf<`${ResourceName}.meta`>>,
      };
    }

    const platform: PlatformCalls = {
      search: (resource, req) => dynamicResource(resource).search(req as unknown as SearchRequest),
      massUpdate: (resource, ids, field, value) => dynamicResource(resource).massUpdate(ids, field, value) as Promise<{ results: { id: string; error_code: number }[] }>,
      massCreate: (resource, items) => dynamicResource(resource).massCreate(items),
    };

    /**
     * Sets incidents' status with its reason (a message linked to each new status-change row).
     * The main server, a local database or a snapshot: one request (`console.incidents.set_status`),
     * one transaction. A remote platform, which has no such operation: the rows it made are read
     * before and after the change (changeStatusOnPlatform), never guessed from this machine's clock.
     */
    async function setStatus(ids: string[], status: IncidentStatus, note?: StatusNoteInput, opts: StatusChangeOptions = {}): Promise<StatusChangeAnswer> {
      if (target.instance && (await kindOf(target.instance)) === 'remote') return changeStatusOnPlatform(platform, ids, status, note, opts);
      return c('console.incidents.set_status', {
        body: { ids, status, ...(note ? { note: { subject: note.subject, body: note.body ?? '' } } : {}), ...(opts.senderId !== undefined ? { sender_id: opts.senderId } : {}) },
      }) as Promise<StatusChangeAnswer>;
    }

    /** The data-management API's operations on one resource (`/cruddy/v2/<name>/...`), typed by its declaration. */
    function resource<R extends ResourceName>(name: R): ResourceApi<R> {
      return dynamicResource(name) as unknown as ResourceApi<R>;
    }

    return {
      /** Calls any operation by its operationId (`service_asset_findings.search`, `cm.agents.apply_config`, ...): input and answer typed by it. */
      call: c,
      /** Any path, unchecked: the answer as the server gave it (JSON parsed). */
      request: (method: string, path: string, input: Omit<CallInput, 'params'> = {}) => request(method, path, input, target),
      resource,
      /** Operations and resources named at run time (a console's views): checked by the contract at run time, not typed. */
      dynamic: {
        call: (op: OperationDef | string, input: CallInput = {}) => call(op, input, target),
        resource: dynamicResource,
      },
      /** Public API v1. */
      public: {
        incidents: (query?: PublicQuery<'incidents'> | string, signal?: AbortSignal) => c('public.incidents.list', { query, signal }),
        findings: (query?: PublicQuery<'findings'> | string, signal?: AbortSignal) => c('public.findings.list', { query, signal }),
        serviceAssets: (query?: PublicQuery<'serviceAssets'> | string, signal?: AbortSignal) => c(`public.${K.serviceAsset}.list` as const, { query, signal }),
        updateStatus: (id: string, status: IncidentStatus) => c('public.incidents.update_status', { body: { id, status } }),
        updateRisk: (id: string, risklevel: number) => c('public.incidents.update_critical', { body: { id, risklevel } }),
        /** Creates an incident from ServiceAssetFindingDBFields (upper camel case); answers its id. */
        createIncident: async (fields: ServiceAssetFindingDBFields): Promise<{ id: string }> => {
          const answer = await c('public.incidents.create', { body: { ServiceAssetFindingDBFields: fields } });
          return Array.isArray(answer) ? (answer[0]!.data as { id: string }) : answer;
        },
      },
      /** The master host's instance list (ids for `instance(id)`). */
      instances: () => c('tenancy.instances.list'),
      /**
       * Incidents: a status change with its reason as one operation (local and remote instances alike);
       * a change over every incident a query matches as one job and one transaction (a local instance:
       * `bulk.start` answers the running job, `bulk.get` its progress, `bulk.cancel` rolls it back).
       */
      incidents: {
        setStatus,
        bulk: {
          start: (body: CallInputOf<'console.incidents.bulk.start'>['body'], signal?: AbortSignal) => c('console.incidents.bulk.start', { body, signal }),
          get: (id: string, signal?: AbortSignal) => c('console.incidents.bulk.get', { params: { id }, signal }),
          cancel: (id: string) => c('console.incidents.bulk.cancel', { params: { id } }),
        },
      },
      /** Incident counts by status, risk band and time, for a standard query. */
      stats: (query?: CallInputOf<'console.stats.incidents'>['query'], signal?: AbortSignal) => c('console.stats.incidents', { query, signal }),
      /** The compliance workbench: PostgreSQL's text search (`simple`) on texts, queries and the database's software; rule set checks. */
      compliance: {
        tsvector: (texts: string[], signal?: AbortSignal) => c('console.compliance.tsvector', { body: { texts }, signal }),
        tsquery: (queries: string[], signal?: AbortSignal) => c('console.compliance.tsquery', { body: { queries }, signal }),
        match: (body: CallInputOf<'console.compliance.match'>['body'], signal?: AbortSignal) => c('console.compliance.match', { body, signal }),
        check: (body: CallInputOf<'console.compliance.check'>['body'], signal?: AbortSignal) => c('console.compliance.check', { body, signal }),
      },
    };
  }

  const main = on({});
  return {
    ...main,
    /** The same calls on one instance (through the routing: `/console/v1/route` with PgrSelectedInstance); answers unwrapped. */
    instance: (id: string) => on({ instance: id }),
    /** The same call on every instance at once: one envelope element per instance (`data` holds its answer or its error). */
    fanOut,
    /** The console's own API. */
    console: {
      instances: () => main.call('console.instances.list'),
      health: () => main.call('console.instances.health'),
      jobs: () => main.call('console.jobs.list'),
      job: (id: string, signal?: AbortSignal) => main.call('console.jobs.get', { params: { id }, signal }),
      cancelJob: (id: string) => main.call('console.jobs.cancel', { params: { id } }),
      /** Snapshots of a platform (by instance id or name): their outbox, push and pull, conflicts. */
      sync: {
        instances: () => main.call('console.sync.list'),
        status: (instance: string) => main.call('console.sync.status', { params: { instance } }),
        entries: (instance: string, query: { state?: EntryStateName; resource?: string; record_id?: string; limit?: number; offset?: number } = {}) =>
          main.call('console.sync.entries', { params: { instance }, query }),
        /** Pushes and answers the summary once done (`dryRun`: what would be sent, nothing sent). */
        push: (instance: string, opts: { dryRun?: boolean; entries?: number[] } = {}) =>
          main.call('console.sync.push', { params: { instance }, query: { wait: '1' }, body: { ...(opts.dryRun ? { dry_run: true } : {}), ...(opts.entries ? { entries: opts.entries } : {}) } }),
        /** Pulls and answers the summary once done. */
        pull: (instance: string) => main.call('console.sync.pull', { params: { instance }, query: { wait: '1' } }),
        cancel: (instance: string) => main.call('console.sync.cancel', { params: { instance } }),
        resolve: (instance: string, req: ResolveRequest) => main.call('console.sync.resolve', { params: { instance }, body: req }),
        discard: (instance: string, req: DiscardRequest = {}) => main.call('console.sync.discard', { params: { instance }, body: req }),
      },
    },
  };
}

export type RadarClient = ReturnType<typeof createClient>;
