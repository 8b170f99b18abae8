// Typed calls of the platform's APIs the console uses, validated with zod where the console
// relies on the shape.
import { z } from 'zod';
import { instanceTestSchema, instanceViewSchema, type InstanceInput, type InstancePatch, type InstanceView } from '../../../src-shared/schemas/instances';
import { peopleAnswerSchema, personSchema, type Person, type PersonInput } from '../../../src-shared/schemas/people';
import type { SearchRequest } from '../../../src-shared/schemas/search';
import type { Api, Element, Target } from './client';

export type Rec = Record<string, unknown> & { id: string };

export const pageSchema = z.object({ items: z.array(z.looseObject({ id: z.string() })), total: z.number() });
export type Page = { items: Rec[]; total: number };

export const V2 = '/cruddy/v2';
export const PUBLIC = '/data/public/api/v1';
export const STATS = '/console/v1/stats/incidents';

export async function search(api: Api, target: Target, resource: string, req: SearchRequest, signal?: AbortSignal): Promise<Page> {
  const raw = await api.at<unknown>(target, 'POST', `${V2}/${resource}/search`, { body: req, signal });
  return pageSchema.parse(raw) as Page;
}

export async function getRecord(api: Api, target: Target, resource: string, id: string, relations?: readonly string[], signal?: AbortSignal): Promise<Rec> {
  const q = relations === undefined ? '' : `?relations=${encodeURIComponent(relations.join(','))}`;
  const raw = await api.at<unknown>(target, 'GET', `${V2}/${resource}/${encodeURIComponent(id)}${q}`, { signal });
  return z.looseObject({ id: z.string() }).parse(raw) as Rec;
}

export const massResultsSchema = z.object({ results: z.array(z.object({ id: z.string(), error_code: z.number() })) });

export async function massUpdate(api: Api, target: Target, resource: string, ids: string[], field: string, value: unknown, signal?: AbortSignal): Promise<{ id: string; error_code: number }[]> {
  const raw = await api.at<unknown>(target, 'POST', `${V2}/${resource}/mass_update`, { body: { ids, field, value }, signal });
  return massResultsSchema.parse(raw).results;
}

export async function createRecord(api: Api, target: Target, resource: string, body: Record<string, unknown>): Promise<Rec> {
  return z.looseObject({ id: z.string() }).parse(await api.at<unknown>(target, 'POST', `${V2}/${resource}/create`, { body })) as Rec;
}

export async function massCreate(api: Api, target: Target, resource: string, items: Record<string, unknown>[]): Promise<Rec[]> {
  const raw = await api.at<unknown>(target, 'POST', `${V2}/${resource}/mass_create`, { body: { items } });
  return pageSchema.parse(raw).items as Rec[];
}

export async function updateRecord(api: Api, target: Target, resource: string, body: Record<string, unknown> & { id: string }): Promise<Rec> {
  return z.looseObject({ id: z.string() }).parse(await api.at<unknown>(target, 'PUT', `${V2}/${resource}/update`, { body })) as Rec;
}

export const groupSchema = z.object({ items: z.array(z.object({ value: z.unknown(), count: z.number() })) });
export type GroupItem = z.infer<typeof groupSchema>['items'][number];

export async function groupBy(api: Api, target: Target, resource: string, field: string, filters: SearchRequest['filters'], signal?: AbortSignal): Promise<GroupItem[]> {
  return groupSchema.parse(await api.at<unknown>(target, 'POST', `${V2}/${resource}/group`, { body: { group_field: field, filters }, signal })).items;
}

export const statsSchema = z.object({
  total: z.number(),
  bucket: z.enum(['day', 'week', 'month']),
  by_status: z.array(z.object({ status: z.string(), count: z.number() })),
  by_risk: z.array(z.object({ risk: z.string(), count: z.number() })),
  over_time: z.array(z.object({ bucket: z.string(), status: z.string(), risk: z.string(), count: z.number() })),
});
export type Stats = z.infer<typeof statsSchema>;

export async function stats(api: Api, target: Target, qs: string, signal?: AbortSignal): Promise<Stats> {
  return statsSchema.parse(await api.at<unknown>(target, 'GET', `${STATS}${qs ? `?${qs}` : ''}`, { signal }));
}

/** The aggregates of every instance; failed instances come back as elements with an error. */
export async function statsAll(api: Api, qs: string, signal?: AbortSignal): Promise<{ merged: Stats; elements: Element[] }> {
  const elements = await api.fanOut('GET', `${STATS}${qs ? `?${qs}` : ''}`, { signal });
  const parts = elements.filter((e) => e.error === 0).map((e) => statsSchema.safeParse(e.data)).filter((p) => p.success).map((p) => p.data);
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
  return personSchema.parse(await api.raw<unknown>('GET', '/console/v1/me'));
}

export async function renameMe(api: Api, name: string): Promise<Person> {
  return personSchema.parse(await api.raw<unknown>('PUT', '/console/v1/me', { body: { name } }));
}

export async function people(api: Api, target: Target): Promise<Person[]> {
  return peopleAnswerSchema.parse(await api.at<unknown>(target, 'GET', '/console/v1/people')).items;
}

export async function addPerson(api: Api, target: Target, input: PersonInput): Promise<Person> {
  return personSchema.parse(await api.at<unknown>(target, 'POST', '/console/v1/people', { body: input }));
}

export async function instances(api: Api, timeout?: number): Promise<InstanceView[]> {
  return z.array(instanceViewSchema).parse(await api.raw<unknown>('GET', '/console/v1/instances', { timeout }));
}

export async function addInstance(api: Api, input: InstanceInput): Promise<InstanceView> {
  return instanceViewSchema.parse(await api.raw<unknown>('POST', '/console/v1/instances', { body: input }));
}

export async function updateInstance(api: Api, id: string, patch: InstancePatch): Promise<InstanceView> {
  return instanceViewSchema.parse(await api.raw<unknown>('PUT', `/console/v1/instances/${encodeURIComponent(id)}`, { body: patch }));
}

export async function removeInstance(api: Api, id: string): Promise<void> {
  await api.raw<unknown>('DELETE', `/console/v1/instances/${encodeURIComponent(id)}`);
}

export async function testInstance(api: Api, id: string): Promise<z.infer<typeof instanceTestSchema>> {
  return instanceTestSchema.parse(await api.raw<unknown>('POST', `/console/v1/instances/${encodeURIComponent(id)}/test`));
}

export const healthSchema = z.array(instanceTestSchema.extend({ id: z.string() }));
export type Health = z.infer<typeof healthSchema>[number];

export async function health(api: Api): Promise<Health[]> {
  return healthSchema.parse(await api.raw<unknown>('GET', '/console/v1/instances/health'));
}

export const publicListSchema = z.object({ objects: z.array(z.looseObject({ id: z.string() })), total: z.number() });

export async function publicList(api: Api, target: Target, path: string, qs: string, signal?: AbortSignal): Promise<Page> {
  const raw = publicListSchema.parse(await api.at<unknown>(target, 'GET', `${PUBLIC}/${path}${qs ? `?${qs}` : ''}`, { signal }));
  return { items: raw.objects as Rec[], total: raw.total };
}
