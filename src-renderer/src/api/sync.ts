// The console's sync endpoints (/console/v1/sync/...), operations of the contract through the
// typed client: snapshot instances and their counts, the outbox entries, push and pull with their
// progress, conflict resolution and discards.
import type { z } from 'zod';
import type {
  discardAnswerSchema,
  entryListSchema,
  pushSummarySchema,
  resolveAnswerSchema,
  syncInstanceSchema,
  syncStatusSchema,
  DiscardRequest,
  PushRequest,
  ResolveRequest,
} from '../../../src-shared/schemas/sync';
import { MAIN, type Api } from './client';

type SyncInstance = z.infer<typeof syncInstanceSchema>;
type SyncStatus = z.infer<typeof syncStatusSchema>;

const op = <T>(api: Api, operationId: string, instance: string | undefined, input: Parameters<Api['op']>[2] = {}) =>
  api.op<T>(MAIN, operationId, instance === undefined ? input : { ...input, params: { instance } });

export const syncInstances = (api: Api, signal?: AbortSignal) => op<SyncInstance[]>(api, 'console.sync.list', undefined, { signal });

export const syncStatus = (api: Api, instance: string, signal?: AbortSignal) => op<SyncStatus>(api, 'console.sync.status', instance, { signal });

export function syncEntries(api: Api, instance: string, query: { state?: string; resource?: string; record_id?: string; limit?: number; offset?: number } = {}, signal?: AbortSignal) {
  return op<z.infer<typeof entryListSchema>>(api, 'console.sync.entries', instance, { query, signal });
}

export const pendingRecords = async (api: Api, instance: string, resource: string, signal?: AbortSignal) =>
  (await op<{ ids: string[] }>(api, 'console.sync.records', instance, { query: { resource }, signal })).ids;

/** Starts a push (answers the status with the run in progress). */
export const startPush = (api: Api, instance: string, body: PushRequest = {}) => op<SyncStatus>(api, 'console.sync.push', instance, { body });

/** What a push would send; nothing is sent. */
export const dryRun = (api: Api, instance: string) => op<z.infer<typeof pushSummarySchema>>(api, 'console.sync.push', instance, { body: { dry_run: true } });

export const startPull = (api: Api, instance: string) => op<SyncStatus>(api, 'console.sync.pull', instance);

export const cancelRun = (api: Api, instance: string) => op<SyncStatus>(api, 'console.sync.cancel', instance);

export const resolveEntries = (api: Api, instance: string, body: ResolveRequest) => op<z.infer<typeof resolveAnswerSchema> & { note?: string }>(api, 'console.sync.resolve', instance, { body });

export const discardEntries = (api: Api, instance: string, body: DiscardRequest) => op<z.infer<typeof discardAnswerSchema>>(api, 'console.sync.discard', instance, { body });
