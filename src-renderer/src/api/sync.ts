// The console's sync endpoints (/console/v1/sync/...): snapshot instances and their counts, the
// outbox entries, push and pull with their progress, conflict resolution and discards.
import { z } from 'zod';
import {
  discardAnswerSchema,
  entryListSchema,
  pullSummarySchema,
  pushSummarySchema,
  resolveAnswerSchema,
  syncInstanceSchema,
  syncStatusSchema,
  type DiscardRequest,
  type PushRequest,
  type ResolveRequest,
} from '../../../src-shared/schemas/sync';
import type { Api } from './client';

export const SYNC = '/console/v1/sync';
const at = (instance: string) => `${SYNC}/${encodeURIComponent(instance)}`;

export const syncInstances = async (api: Api, signal?: AbortSignal) => z.array(syncInstanceSchema).parse(await api.raw<unknown>('GET', SYNC, { signal }));

export const syncStatus = async (api: Api, instance: string, signal?: AbortSignal) => syncStatusSchema.parse(await api.raw<unknown>('GET', at(instance), { signal }));

export async function syncEntries(api: Api, instance: string, query: { state?: string; resource?: string; limit?: number; offset?: number } = {}, signal?: AbortSignal) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  return entryListSchema.parse(await api.raw<unknown>('GET', `${at(instance)}/entries?${q}`, { signal }));
}

export const pendingRecords = async (api: Api, instance: string, resource: string, signal?: AbortSignal) =>
  z.object({ ids: z.array(z.string()) }).parse(await api.raw<unknown>('GET', `${at(instance)}/records?resource=${encodeURIComponent(resource)}`, { signal })).ids;

/** Starts a push (answers the status with the run in progress). */
export const startPush = async (api: Api, instance: string, body: PushRequest = {}) => syncStatusSchema.parse(await api.raw<unknown>('POST', `${at(instance)}/push`, { body }));

/** What a push would send; nothing is sent. */
export const dryRun = async (api: Api, instance: string) => pushSummarySchema.parse(await api.raw<unknown>('POST', `${at(instance)}/push`, { body: { dry_run: true } }));

export const startPull = async (api: Api, instance: string) => syncStatusSchema.parse(await api.raw<unknown>('POST', `${at(instance)}/pull`));

export const cancelRun = async (api: Api, instance: string) => syncStatusSchema.parse(await api.raw<unknown>('DELETE', `${at(instance)}/run`));

export const resolveEntries = async (api: Api, instance: string, body: ResolveRequest) =>
  resolveAnswerSchema.extend({ note: z.string().optional() }).parse(await api.raw<unknown>('POST', `${at(instance)}/resolve`, { body }));

export const discardEntries = async (api: Api, instance: string, body: DiscardRequest) => discardAnswerSchema.parse(await api.raw<unknown>('POST', `${at(instance)}/discard`, { body }));

export { pullSummarySchema, pushSummarySchema };
