// The console's sync API (main port): for each snapshot instance (a local database copied from a
// platform, which remembers its origin), its outbox of offline changes, push and pull with their
// progress, conflict resolution and discards.
import { z } from 'zod';
import {
  discardAnswerSchema,
  discardRequestSchema,
  entryListSchema,
  entryQuerySchema,
  pullSummarySchema,
  pushRequestSchema,
  pushSummarySchema,
  resolveAnswerSchema,
  resolveRequestSchema,
  syncInstanceSchema,
  syncStatusSchema,
} from '../schemas/sync';
import { errorAnswers } from './common';
import { documentAs } from './document-as';
import { API_BASES, defineOperation, once, lazily } from './operation';

const S = `${API_BASES.console}/sync`;
const tag = 'sync';
const instanceParams = z.object({ instance: z.string().min(1).describe('id or name of the snapshot instance') });
const waitQuery = z.object({ wait: z.enum(['true', 'false', '1', '0']).optional().describe('answer when the run has finished, with its summary (default: answer at once, 202)') });

/** The entries' query: `limit` and `offset` are read from text, shown as the integers they are. */
const entriesQuery = entryQuerySchema.extend({
  limit: documentAs(entryQuerySchema.shape.limit, { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'entries per page' }),
  offset: documentAs(entryQuerySchema.shape.offset, { type: 'integer', minimum: 0, default: 0, description: 'entries to skip' }),
});

/** The errors of an operation on one snapshot: not a snapshot (400), unknown instance (404). */
const ofSnapshot = (...more: number[]) => errorAnswers(...[400, 401, 404, ...more, 500].sort((a, b) => a - b));

/** A run that calls the origin: busy (409), the origin unreachable (502) or silent (504) when its key or address cannot be used at all. */
const RUN_ERRORS = [409, 502, 504];

export const syncOperations = once(() => ({
  list: defineOperation(
    lazily(
      {
        operationId: 'console.sync.list',
        method: 'GET',
        path: S,
        tag,
        summary: 'Snapshot instances and their outbox counts',
        description:
          'Every instance whose database is a snapshot of a platform (it remembers its origin), with the origin’s URL, the counts of its outbox entries by state and the push or pull in progress. The console shows the pending count in its instance switcher.',
      },
      {
        responses: () => ({ 200: z.array(syncInstanceSchema).describe('one element per snapshot instance, in the order of the instance list'), ...errorAnswers(401, 500) }),
      },
    ),
  ),
  status: defineOperation(
    lazily(
      {
        operationId: 'console.sync.status',
        method: 'GET',
        path: `${S}/{instance}`,
        tag,
        summary: 'A snapshot’s origin, counts and runs',
        description:
          'The origin (URL, remote instance id, when the snapshot, the last pull and the last push were made, whether the key store holds its key; the key itself is never answered), the outbox counts by state, the push or pull in progress and the last one this server ran. An instance that is not a snapshot is 400.',
      },
      {
        params: () => instanceParams,
        responses: () => ({ 200: syncStatusSchema, ...ofSnapshot() }),
      },
    ),
  ),
  entries: defineOperation(
    lazily(
      {
        operationId: 'console.sync.entries',
        method: 'GET',
        path: `${S}/{instance}/entries`,
        tag,
        summary: 'Outbox entries',
        description:
          'The changes made in the snapshot since it was copied, oldest first: one entry per record and field (changes to the same field collapse into one: the first `before`, the last `after`), with its state (pending, sending, conflict with the origin’s value, failed with the origin’s error). Filtered by state, resource or record; paged by `limit` and `offset`.',
      },
      {
        params: () => instanceParams,
        query: () => entriesQuery,
        responses: () => ({ 200: entryListSchema, ...ofSnapshot() }),
      },
    ),
  ),
  records: defineOperation(
    lazily(
      {
        operationId: 'console.sync.records',
        method: 'GET',
        path: `${S}/{instance}/records`,
        tag,
        summary: 'Records with outbox entries',
        description: 'The ids of the records of one resource that have outbox entries in any state: the console marks them in its lists.',
      },
      {
        params: () => instanceParams,
        query: () => z.strictObject({ resource: z.string().min(1).describe('a resource name, e.g. `service_asset_findings`') }),
        responses: () => ({ 200: z.strictObject({ ids: z.array(z.string()).describe('record ids, each once') }).meta({ id: 'SyncRecordIds' }), ...ofSnapshot() }),
      },
    ),
  ),
  push: defineOperation(
    lazily(
      {
        operationId: 'console.sync.push',
        method: 'POST',
        path: `${S}/{instance}/push`,
        tag,
        summary: 'Push the outbox to the origin',
        description:
          'Replays the outbox to the origin through its own APIs: status and risk through the public API’s update operations (so the platform records its status-change rows), other fields, messages and custom field values through v2. ' +
          'Before each change the remote record is read: a field that changed there too becomes a conflict and is not sent; a record deleted there fails with "deleted on the platform". An interrupted push run again sends nothing twice. ' +
          'Answers 202 with the status (the run in progress) at once; with `wait=1`, 200 with the summary. With `dry_run` it answers the requests that would be sent (200) and changes nothing. ' +
          'An origin that cannot be reached, refuses the key or answers with an error stops the run: the summary’s `stopped` says why and nothing is marked pushed that was not. One push or pull at a time per snapshot (409).',
        bodyRequired: false,
      },
      {
        params: () => instanceParams,
        query: () => waitQuery,
        body: () => pushRequestSchema.optional(),
        responses: () => ({
          200: pushSummarySchema.describe('wait=1 or dry_run: the summary'),
          202: syncStatusSchema.describe('the push started: the status with the run in progress'),
          ...ofSnapshot(...RUN_ERRORS),
        }),
      },
    ),
  ),
  pull: defineOperation(
    lazily(
      {
        operationId: 'console.sync.pull',
        method: 'POST',
        path: `${S}/{instance}/pull`,
        tag,
        summary: 'Pull the origin’s changes',
        description:
          'Fetches what changed on the origin since the snapshot or the last pull (by `updated_at`, paged) and applies it to records with no local change; a field changed on both sides becomes a conflict. New remote incidents, assets and finding types arrive; records deleted on the origin are reported (`deleted_ids`) and removed here unless a local change or other records need them. ' +
          'Answers 202 with the status at once; with `wait=1`, 200 with the summary. An origin that cannot be reached stops the pull: what was applied is kept and the next pull goes on from there.',
      },
      {
        params: () => instanceParams,
        query: () => waitQuery,
        responses: () => ({
          200: pullSummarySchema.describe('wait=1: the summary'),
          202: syncStatusSchema.describe('the pull started: the status with the run in progress'),
          ...ofSnapshot(...RUN_ERRORS),
        }),
      },
    ),
  ),
  cancel: defineOperation(
    lazily(
      {
        operationId: 'console.sync.cancel',
        method: 'DELETE',
        path: `${S}/{instance}/run`,
        tag,
        summary: 'Cancel the push or pull in progress',
        description: 'Stops the run and answers the status once it has stopped: what the origin confirmed stays confirmed, changes sent but not confirmed are checked on the origin before any resend. Without a run in progress, the status.',
      },
      {
        params: () => instanceParams,
        responses: () => ({ 200: syncStatusSchema, ...ofSnapshot() }),
      },
    ),
  ),
  resolve: defineOperation(
    lazily(
      {
        operationId: 'console.sync.resolve',
        method: 'POST',
        path: `${S}/{instance}/resolve`,
        tag,
        summary: 'Resolve conflicts',
        description:
          'Per field: `mine` keeps the local value (pushed over the origin’s with the next push), `theirs` takes the origin’s value here and drops the entry, `edit` sets `value` here and pushes it. Only conflicts can be resolved (400 names the entry that is not); not while a push or pull runs (409).',
      },
      {
        params: () => instanceParams,
        body: () => resolveRequestSchema,
        responses: () => ({
          200: resolveAnswerSchema.extend({ note: z.string().optional().describe('theirs: the origin could not be read again at once (its records are read again at the next pull)') }).meta({ id: 'SyncResolveResult' }),
          ...ofSnapshot(409),
        }),
      },
    ),
  ),
  discard: defineOperation(
    lazily(
      {
        operationId: 'console.sync.discard',
        method: 'POST',
        path: `${S}/{instance}/discard`,
        tag,
        summary: 'Discard outbox entries',
        description: 'Drops the entries given (all without `entries`); the records are put back as copied from the origin unless `revert` is false. Not while a push or pull runs (409).',
        bodyRequired: false,
      },
      {
        params: () => instanceParams,
        body: () => discardRequestSchema.optional(),
        responses: () => ({ 200: discardAnswerSchema, ...ofSnapshot(409) }),
      },
    ),
  ),
}));
