// The platform's APIs as the console calls them: each call is an operation of the contract
// (src-shared/contract) through the typed client, its answer checked against that operation's
// schema, so the console keeps no copies of the server's schemas.
import { statsAnswerSchema, type IncidentStats } from '../../../src-shared/schemas/stats';
import type { InstanceInput, InstancePatch, InstanceView, InstanceTest } from '../../../src-shared/schemas/instances';
import type { Person, PersonInput } from '../../../src-shared/schemas/people';
import type { SearchRequest } from '../../../src-shared/schemas/search';
import { publicOperations } from '../../../src-shared/contract/index';
import type { IncidentStatus } from '../../../src-shared/resources/fields';
import type { z } from 'zod';
import type { BulkJobView, bulkRequestSchema } from '../../../src-shared/schemas/incident-bulk';
import { MAIN as MAIN_T, type Api, type Element, type Target } from './client';
import { checkedPage } from './pageCheck';

export type Rec = Record<string, unknown> & { id: string };
export type BulkRequestInput = z.input<typeof bulkRequestSchema>;
export type { BulkJobView };
export type Page = { items: Rec[]; total: number };

export const V2 = '/cruddy/v2';
export const PUBLIC = '/data/public/api/v1';
export const STATS = '/console/v1/stats/incidents';

/** A page of a resource's search, checked against the operation's answer schema by the check compiled from it. */
export async function search(api: Api, target: Target, resource: string, req: SearchRequest, signal?: AbortSignal): Promise<Page> {
  return api.run(signal, undefined, async (s) => checkedPage<Page>(resource, await api.unchecked(target).dynamic.resource(resource).search(req, { signal: s })));
}

export async function getRecord(api: Api, target: Target, resource: string, id: string, relations?: readonly string[], signal?: AbortSignal): Promise<Rec> {
  return api.run(signal, undefined, (s) => api.on(target).dynamic.resource(resource).get(id, { relations, signal: s })) as Promise<Rec>;
}

export async function massUpdate(api: Api, target: Target, resource: string, ids: string[], field: string, value: unknown, signal?: AbortSignal): Promise<{ id: string; error_code: number }[]> {
  const answer = await api.run(signal, undefined, () => api.on(target).dynamic.resource(resource).massUpdate(ids, field, value));
  return (answer as { results: { id: string; error_code: number }[] }).results;
}

/**
 * Incidents' status with its reason, as one operation (the typed client's incidents.setStatus:
 * one request and one transaction on a local instance; on a remote platform, the status-change
 * rows it made are read before and after). `before`: each incident's status before, when known.
 */
export async function setIncidentStatus(
  api: Api,
  target: Target,
  ids: string[],
  status: string,
  note: { subject: string; body: string } | undefined,
  opts: { before?: ReadonlyMap<string, string>; senderId?: string | null },
): Promise<{ id: string; error_code: number }[]> {
  const answer = await api.run(undefined, undefined, () => api.on(target).incidents.setStatus(ids, status as IncidentStatus, note, opts));
  return answer.results;
}

/** A change over every incident a query matches, as one job of a local instance (one transaction). */
export async function startBulkJob(api: Api, target: Target, body: BulkRequestInput): Promise<BulkJobView> {
  return api.run(undefined, undefined, (s) => api.on(target).incidents.bulk.start(body, s)) as Promise<BulkJobView>;
}

/** The job's progress. */
export async function bulkJob(api: Api, target: Target, id: string): Promise<BulkJobView> {
  return api.run(undefined, 30_000, (s) => api.on(target).incidents.bulk.get(id, s)) as Promise<BulkJobView>;
}

/** Cancels the job (its transaction rolls back); answers it once it has stopped. */
export async function cancelBulkJob(api: Api, target: Target, id: string): Promise<BulkJobView> {
  return api.run(undefined, undefined, () => api.on(target).incidents.bulk.cancel(id)) as Promise<BulkJobView>;
}

export async function createRecord(api: Api, target: Target, resource: string, body: Record<string, unknown>): Promise<Rec> {
  return api.run(undefined, undefined, () => api.on(target).dynamic.resource(resource).create(body)) as Promise<Rec>;
}

export async function massCreate(api: Api, target: Target, resource: string, items: Record<string, unknown>[]): Promise<Rec[]> {
  return (await api.run(undefined, undefined, () => api.on(target).dynamic.resource(resource).massCreate(items))).items as Rec[];
}

export async function updateRecord(api: Api, target: Target, resource: string, body: Record<string, unknown> & { id: string }): Promise<Rec> {
  return api.run(undefined, undefined, () => api.on(target).dynamic.resource(resource).update(body)) as Promise<Rec>;
}

export type GroupItem = { value: unknown; count: number };

export async function groupBy(api: Api, target: Target, resource: string, field: string, filters: SearchRequest['filters'], signal?: AbortSignal): Promise<GroupItem[]> {
  const answer = await api.run(signal, undefined, (s) => api.on(target).dynamic.resource(resource).group(field, filters, { signal: s }));
  return (answer as { items: GroupItem[] }).items;
}

/** A page of groups: `groups` and `total` (all groups, all records) when the instance pages them; absent when it answered every group. */
export type GroupPageAnswer = { items: GroupItem[]; groups?: number; total?: number };

/** A page of groups in value order (the order a field's index serves), from `offset`, at most `limit`. */
export async function groupPage(api: Api, target: Target, resource: string, field: string, filters: SearchRequest['filters'], page: { offset: number; limit: number }, signal?: AbortSignal): Promise<GroupPageAnswer> {
  return (await api.run(signal, undefined, (s) => api.on(target).dynamic.resource(resource).group(field, filters, { signal: s, order: 'value', ...page }))) as GroupPageAnswer;
}

export type Stats = IncidentStats;

export async function stats(api: Api, target: Target, qs: string, signal?: AbortSignal): Promise<Stats> {
  return api.run(signal, undefined, (s) => api.on(target).stats(qs, s));
}

/** The aggregates of every instance; failed instances come back as elements with an error. */
export async function statsAll(api: Api, qs: string, signal?: AbortSignal): Promise<{ merged: Stats; elements: Element[] }> {
  const elements = await api.fanOut('GET', `${STATS}${qs ? `?${qs}` : ''}`, { signal });
  const parts = elements.filter((e) => e.error === 0).map((e) => statsAnswerSchema.safeParse(e.data)).filter((p) => p.success).map((p) => p.data as Stats);
  return { merged: mergeStats(parts), elements };
}

/** Sums aggregates of several instances (buckets of different units are not mixed: the coarsest wins). */
export function mergeStats(parts: Stats[]): Stats {
  const order = ['day', 'week', 'month'] as const;
  const unit = parts.reduce<Stats['bucket']>((u, p) => (order.indexOf(p.bucket) > order.indexOf(u) ? p.bucket : u), 'day');
  const sum = <K extends string>(rows: { key: K; count: number }[]) => {
    const m = new Map<K, number>();
    for (const r of rows) m.set(r.key, (m.get(r.key) ?? 0) + r.count);
    return m;
  };
  const roll = (day: string): string => {
    if (unit === 'month') return `${day.slice(0, 7)}-01`;
    if (unit === 'week') {
      const d = new Date(`${day}T00:00:00Z`);
      return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    }
    return day;
  };
  const cube = sum(parts.flatMap((p) => p.over_time.map((o) => ({ key: `${roll(o.bucket)}|${o.status}|${o.risk}`, count: o.count }))));
  const byStatus = sum(parts.flatMap((p) => p.by_status.map((x) => ({ key: x.status, count: x.count }))));
  const byRisk = sum(parts.flatMap((p) => p.by_risk.map((x) => ({ key: x.risk, count: x.count }))));
  return {
    total: parts.reduce((s, p) => s + p.total, 0),
    bucket: unit,
    by_status: [...byStatus].map(([status, count]) => ({ status, count })),
    by_risk: [...byRisk].map(([risk, count]) => ({ risk, count })),
    over_time: [...cube]
      .map(([k, count]) => {
        const [bucket = '', status = '', risk = ''] = k.split('|');
        return { bucket, status, risk, count };
      })
      .sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0)),
  };
}

export async function me(api: Api): Promise<Person> {
  return api.op<Person>(MAIN_T, 'console.me.get');
}

export async function renameMe(api: Api, name: string): Promise<Person> {
  return api.op<Person>(MAIN_T, 'console.me.update', { body: { name } });
}

export async function people(api: Api, target: Target): Promise<Person[]> {
  return (await api.op<{ items: Person[] }>(target, 'console.people.list')).items;
}

export async function addPerson(api: Api, target: Target, input: PersonInput): Promise<Person> {
  return api.op<Person>(target, 'console.people.add', { body: input });
}

export async function instances(api: Api, timeout?: number): Promise<InstanceView[]> {
  return api.op<InstanceView[]>(MAIN_T, 'console.instances.list', {}, { timeout });
}

export async function addInstance(api: Api, input: InstanceInput): Promise<InstanceView> {
  return api.op<InstanceView>(MAIN_T, 'console.instances.add', { body: input });
}

export async function updateInstance(api: Api, id: string, patch: InstancePatch): Promise<InstanceView> {
  return api.op<InstanceView>(MAIN_T, 'console.instances.update', { params: { id }, body: patch });
}

export async function removeInstance(api: Api, id: string): Promise<void> {
  await api.op(MAIN_T, 'console.instances.remove', { params: { id } });
}

export async function testInstance(api: Api, id: string): Promise<InstanceTest> {
  return api.op<InstanceTest>(MAIN_T, 'console.instances.test', { params: { id } });
}

export type Health = InstanceTest & { id: string };

export async function health(api: Api): Promise<Health[]> {
  return api.op<Health[]>(MAIN_T, 'console.instances.health');
}

/** A list of the public API (`incidents`, `findings`, `serviceAssets`) with a standard query. */
export async function publicList(api: Api, target: Target, path: string, qs: string, signal?: AbortSignal): Promise<Page> {
  const op = Object.values(publicOperations()).find((o) => o.method === 'GET' && o.path === `${PUBLIC}/${path}`);
  if (!op) throw new Error(`no public list ${path}`);
  const raw = await api.op<{ objects: Rec[]; total: number }>(target, op.operationId, { query: qs, signal });
  return { items: raw.objects, total: raw.total };
}
