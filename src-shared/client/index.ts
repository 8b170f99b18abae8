// The typed client of the local API, built from the contract (src-shared/contract): every call
// names an operation, its input is typed by the operation's schemas and its answer is checked
// against the operation's answer schema (a mismatch throws, so a script never works on data the
// contract does not describe). Runs wherever `fetch` does: Node 20, browsers, Electron.
//
//   import { createClient } from 'radar-console/client';
//   const radar = createClient({ url: 'http://127.0.0.1:9000', apiKey: process.env.RADAR_API_KEY });
//   const { objects } = await radar.public.incidents({ status: 'in,new,assigned_customer', order: '-risklevel' });
import type { z } from 'zod';
import { consoleOperations, findOperation, namedOperations, publicOperations, resourceOperations, syncOperations, type OperationDef } from '../contract/index';
import { fillPath, isMediaAnswer } from '../contract/operation';
import type { IncidentStatus } from '../resources/fields';
import { findResource } from '../resources/index';
import { routedElementSchema, type RoutedElement } from '../schemas/routing';
import type { SearchRequest } from '../schemas/search';
import type { DiscardRequest, EntryStateName, ResolveRequest } from '../schemas/sync';

export type { OperationDef } from '../contract/operation';
export type { RoutedElement } from '../schemas/routing';
export type { SearchRequest } from '../schemas/search';
export { emptySearch } from '../schemas/search';

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

type Out<S> = S extends z.ZodType ? z.output<S> : unknown;
type InOf<S> = S extends z.ZodType ? z.input<S> : never;

/** The success answer of an operation (its first 2xx JSON answer). */
export type AnswerOf<O extends OperationDef> = Out<
  O['responses'] extends infer R ? (200 extends keyof R ? R[200] : 201 extends keyof R ? R[201] : 202 extends keyof R ? R[202] : unknown) : unknown
>;

export interface CallInput<O extends OperationDef = OperationDef> {
  params?: Record<string, string>;
  query?: string | Record<string, string | number | boolean | undefined | readonly (string | number)[]>;
  headers?: Record<string, string>;
  body?: O['body'] extends z.ZodType ? InOf<O['body']> : unknown;
  signal?: AbortSignal;
}

/** A record of the data-management API: its fields by name (the resource's `_meta` lists them). */
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
  async function call<O extends OperationDef>(op: O | string, input: CallInput<O> = {}, target: Target = {}): Promise<AnswerOf<O>> {
    const def = (typeof op === 'string' ? findOperation(op) : op) as OperationDef | undefined;
    if (!def) throw new Error(`unknown operation ${String(op)}`);
    const res = await send(def.method, fillPath(def.path, input.params), input as CallInput, target);
    if (res.status < 200 || res.status >= 300) throw new RadarApiError(res.status, errorText(res.body, `HTTP ${res.status}`), res.body, def.operationId);
    const schema = successSchema(def, res.status);
    if (o.validate === false || !schema || !res.contentType.includes('json')) return res.body as AnswerOf<O>;
    const parsed = schema.safeParse(res.body);
    if (!parsed.success) throw new ContractMismatchError(def.operationId, parsed.error.issues);
    return parsed.data as AnswerOf<O>;
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

  function on(target: Target) {
    const c = <O extends OperationDef>(op: O, input: CallInput<O> = {}) => call(op, input, target);

    /** The data-management API's operations on one resource (`/cruddy/v2/<name>/...`). */
    function resource(name: string) {
      const r = findResource(name);
      if (!r) throw new Error(`unknown resource ${name}`);
      const ops = resourceOperations(r);
      const named = namedOperations();
      const pick = (key: string, fallback: OperationDef): OperationDef => {
        const op = (named as Record<string, OperationDef | undefined>)[key];
        return op?.tag === name ? op : fallback;
      };
      const search = name === 'engine_go_rules' ? named.engine_go_rules_search : ops.search;
      return {
        search: (req: SearchRequest, opts: { signal?: AbortSignal } = {}) => c(search as typeof ops.search, { body: req, signal: opts.signal }) as Promise<ApiPage>,
        get: (id: string, opts: { relations?: readonly string[]; signal?: AbortSignal } = {}) =>
          c(ops.get, { params: { id }, query: opts.relations === undefined ? undefined : { relations: opts.relations.join(',') }, signal: opts.signal }) as Promise<ApiRecord>,
        create: (body: Record<string, unknown>) => c(pick(`${name}_create`, ops.create) as typeof ops.create, { body }) as Promise<ApiRecord>,
        update: (body: Record<string, unknown> & { id: string }) => c(pick(`${name}_update`, ops.update) as typeof ops.update, { body }) as Promise<ApiRecord>,
        delete: (id: string) => c(ops.delete, { params: { id } }),
        group: (group_field: string, filters?: SearchRequest['filters'], opts: { signal?: AbortSignal } = {}) => c(ops.group, { body: { group_field, filters }, signal: opts.signal }),
        massCreate: (items: Record<string, unknown>[]) => c(ops.mass_create, { body: { items } }) as Promise<ApiPage>,
        massDelete: (ids: string[]) => c(ops.mass_delete, { body: { ids } }),
        massUpdate: (ids: string[], field: string, value: unknown) => c(ops.mass_update, { body: { ids, field, value } }),
        massUpdateFields: (ids: string[], fields: Record<string, unknown>) => c(ops.mass_update, { body: { ids, fields } }),
        deleteAll: (filters?: SearchRequest['filters']) => c(ops.delete_all, { body: filters ? { filters } : undefined }),
        meta: () => c(ops.meta),
      };
    }

    const pub = publicOperations();
    const con = consoleOperations();
    type Query = CallInput['query'];
    return {
      call: <O extends OperationDef>(op: O | string, input: CallInput<O> = {}) => call(op, input, target),
      request: (method: string, path: string, input: Omit<CallInput, 'params'> = {}) => request(method, path, input, target),
      resource,
      /** Public API v1. */
      public: {
        incidents: (query?: Query, signal?: AbortSignal) => c(pub.incidents_list, { query, signal }),
        findings: (query?: Query, signal?: AbortSignal) => c(pub.findings_list, { query, signal }),
        serviceAssets: (query?: Query, signal?: AbortSignal) => c(pub.service_assets_list, { query, signal }),
        updateStatus: (id: string, status: IncidentStatus) => c(pub.update_status, { body: { id, status } }),
        updateRisk: (id: string, risklevel: number) => c(pub.update_critical, { body: { id, risklevel } }),
        /** Creates an incident from ServiceAssetFindingDBFields (upper camel case); answers its id. */
        createIncident: async (fields: Record<string, unknown>): Promise<{ id: string }> => {
          const answer = (await c(pub.create_incident, { body: { ServiceAssetFindingDBFields: fields } })) as { id: string } | RoutedElement[];
          return Array.isArray(answer) ? (answer[0]!.data as { id: string }) : answer;
        },
      },
      /** The master host's instance list (ids for `instance(id)`). */
      instances: () => c(pub.instance_list),
      /** Incident counts by status, risk band and time, for a standard query. */
      stats: (query?: Query, signal?: AbortSignal) => c(con.stats, { query, signal }),
    };
  }

  const main = on({});
  const con = consoleOperations();
  const so = syncOperations();
  return {
    ...main,
    /** The same calls on one instance (through the routing: `/console/v1/route` with PgrSelectedInstance). */
    instance: (id: string) => on({ instance: id }),
    fanOut,
    /** The console's own API. */
    console: {
      instances: () => call(con.instances_list),
      health: () => call(con.instances_health),
      jobs: () => call(con.jobs_list),
      job: (id: string, signal?: AbortSignal) => call(con.jobs_get, { params: { id }, signal }),
      cancelJob: (id: string) => call(con.jobs_cancel, { params: { id } }),
      /** Snapshots of a platform (by instance id or name): their outbox, push and pull, conflicts. */
      sync: {
        instances: () => call(so.list),
        status: (instance: string) => call(so.status, { params: { instance } }),
        entries: (instance: string, query: { state?: EntryStateName; resource?: string; record_id?: string; limit?: number; offset?: number } = {}) =>
          call(so.entries, { params: { instance }, query }),
        /** Pushes and answers the summary once done (`dryRun`: what would be sent, nothing sent). */
        push: (instance: string, opts: { dryRun?: boolean; entries?: number[] } = {}) =>
          call(so.push, { params: { instance }, query: { wait: '1' }, body: { ...(opts.dryRun ? { dry_run: true } : {}), ...(opts.entries ? { entries: opts.entries } : {}) } }),
        /** Pulls and answers the summary once done. */
        pull: (instance: string) => call(so.pull, { params: { instance }, query: { wait: '1' } }),
        cancel: (instance: string) => call(so.cancel, { params: { instance } }),
        resolve: (instance: string, req: ResolveRequest) => call(so.resolve, { params: { instance }, body: req }),
        discard: (instance: string, req: DiscardRequest = {}) => call(so.discard, { params: { instance }, body: req }),
      },
    },
  };
}

export type RadarClient = ReturnType<typeof createClient>;
