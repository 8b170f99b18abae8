// Sync of a snapshot with its origin: the outbox entries, the status, push and pull summaries
// and the requests of the console API (/console/v1/sync/...), shared by the server, the CLI's
// --json output and the console.
import { z } from 'zod';

import { ENTRY_STATES, RESOLUTIONS } from '../choices';

export { ENTRY_STATES, RESOLUTIONS, type EntryStateName } from '../choices';

export const ENTRY_OPS = ['create', 'update', 'delete'] as const;

/** A value as JSON (a field's value, a record for creates and deletes, a list of ids for links). */
const jsonValue = z.unknown().describe('any JSON value');

export const outboxEntrySchema = z
  .object({
    seq: z.number().int().describe('the entry number, in the order of the first change'),
    resource: z.string().describe('the resource of the record, e.g. `service_asset_findings`'),
    record_id: z.string().describe("the record's id (the same here and on the origin)"),
    label: z.string().nullable().describe("the record's label (an incident's title, ...) when it still exists here"),
    op: z.enum(ENTRY_OPS).describe('update: a field changed; create: a record made here (a message); delete: a record deleted here'),
    field: z.string().describe("the field changed; '' for a record created or deleted here; `_relations.<name>` for a link list"),
    before: jsonValue.describe('the value as copied from the origin (null for a create)'),
    after: jsonValue.describe('the value here now (the whole record for a create, null for a delete)'),
    state: z.enum(ENTRY_STATES).describe('pending; sending (sent, not yet confirmed: checked on the origin before any resend); conflict; failed'),
    theirs: jsonValue.describe("conflict: the origin's value"),
    theirs_at: z.string().nullable().describe("conflict: the origin record's updated_at"),
    resolution: z.enum(['mine']).nullable().describe('mine: push this value over the conflicting one'),
    error: z.string().nullable().describe("failed: the origin's error"),
    attempts: z.number().int().describe('pushes that tried to send it'),
    changed_at: z.string().describe('when it was last changed here'),
    user_id: z.string().nullable().describe('who changed it last (the user of the request), when known'),
  })
  .meta({ id: 'SyncEntry' });
export type OutboxEntry = z.infer<typeof outboxEntrySchema>;

export const syncCountsSchema = z
  .object({
    pending: z.number().int().describe('waiting for the next push'),
    sending: z.number().int().describe('sent by a push that stopped before the origin confirmed them'),
    conflict: z.number().int().describe('changed on the origin too: to resolve'),
    failed: z.number().int().describe("refused by the origin (its error kept), or deleted there"),
    total: z.number().int().describe('every entry'),
    records: z.number().int().describe('distinct records with entries'),
  })
  .meta({ id: 'SyncCounts' });
export type SyncCounts = z.infer<typeof syncCountsSchema>;

export const syncOriginViewSchema = z
  .object({
    url: z.string(),
    remote_instance_id: z.string().nullable(),
    snapshot_at: z.string(),
    pulled_at: z.string().nullable(),
    pushed_at: z.string().nullable(),
    has_key: z.boolean().describe('whether the key store holds the key (the key itself is never answered)'),
  })
  .meta({ id: 'SyncOrigin' });

export const pushSummarySchema = z
  .object({
    dry_run: z.boolean(),
    considered: z.number().int().describe('entries looked at'),
    pushed: z.number().int().describe('entries the origin accepted (or already had)'),
    already: z.number().int().describe('of those, entries the origin already had (nothing sent)'),
    requests: z.number().int().describe('requests that changed the origin'),
    conflicts: z.number().int(),
    failed: z.number().int(),
    unlinked: z.number().int().describe('of the entries pushed, those sent without naming a row the platform makes itself (a message without its status change), because the platform made none for that change; `notes` says which'),
    notes: z.array(z.string()).describe('what the push did not do as asked, record by record: sent unlinked, or waiting for another change to be pushed first'),
    would_send: z
      .array(z.object({ method: z.string(), path: z.string(), body: jsonValue.optional(), entries: z.array(z.number().int()) }))
      .describe('dry run: the requests that would be sent'),
    stopped: z.string().nullable().describe('why the push stopped early (origin unreachable, key refused, cancelled)'),
    left: syncCountsSchema.describe('the outbox after the push'),
    ms: z.number(),
  })
  .meta({ id: 'SyncPushSummary' });
export type PushSummary = z.infer<typeof pushSummarySchema>;

export const pullListSchema = z.object({
  received: z.number().int().describe('records received'),
  inserted: z.number().int().describe('new here'),
  updated: z.number().int(),
  unchanged: z.number().int(),
  conflicts: z.number().int().describe('entries that became conflicts'),
  deleted: z.number().int().describe('deleted on the origin and here'),
  kept: z.number().int().describe('deleted on the origin, kept here (a local change or records that need them)'),
});

export const pullSummarySchema = z
  .object({
    lists: z.record(z.string(), pullListSchema),
    received: z.number().int(),
    conflicts: z.number().int(),
    confirmed: z.number().int().describe('entries the origin turned out to have already (pushed earlier): removed'),
    deleted_ids: z.record(z.string(), z.array(z.string())).describe('records deleted on the origin, per resource (at most 100 ids each)'),
    notes: z.array(z.string()),
    stopped: z.string().nullable().describe('why the pull stopped early (origin unreachable, key refused, cancelled); what was applied is kept'),
    left: syncCountsSchema,
    ms: z.number(),
  })
  .meta({ id: 'SyncPullSummary' });
export type PullSummary = z.infer<typeof pullSummarySchema>;

export const SYNC_RUN_KINDS = ['push', 'pull'] as const;

export const syncProgressSchema = z
  .object({
    kind: z.enum(SYNC_RUN_KINDS),
    phase: z.string().describe('push: reading, sending; pull: the list being read, deletions'),
    done: z.number().int(),
    total: z.number().int().nullable(),
    started_at: z.string(),
  })
  .meta({ id: 'SyncProgress' });
export type SyncProgress = z.infer<typeof syncProgressSchema>;

export const syncStatusSchema = z
  .object({
    instance: z.object({ id: z.string(), name: z.string() }),
    origin: syncOriginViewSchema,
    counts: syncCountsSchema,
    running: syncProgressSchema.nullable(),
    last: z
      .object({
        kind: z.enum(SYNC_RUN_KINDS),
        finished_at: z.string(),
        push: pushSummarySchema.optional(),
        pull: pullSummarySchema.optional(),
        error: z.string().nullable(),
      })
      .nullable()
      .describe('the last push or pull run by this server'),
  })
  .meta({ id: 'SyncStatus' });
export type SyncStatus = z.infer<typeof syncStatusSchema>;

export const syncInstanceSchema = z
  .object({ id: z.string(), name: z.string(), origin_url: z.string(), counts: syncCountsSchema, running: syncProgressSchema.nullable() })
  .meta({ id: 'SyncInstance' });

export const entryQuerySchema = z.strictObject({
  state: z.enum(ENTRY_STATES).optional(),
  resource: z.string().min(1).optional(),
  record_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('default 200'),
  offset: z.coerce.number().int().min(0).optional(),
});

export const entryListSchema = z.object({ items: z.array(outboxEntrySchema), total: z.number().int() }).meta({ id: 'SyncEntryList' });

export const pushRequestSchema = z
  .strictObject({
    dry_run: z.boolean().optional().describe('answer what would be sent; nothing is sent or changed'),
    entries: z.array(z.number().int()).min(1).optional().describe('only these entries (default: all)'),
  })
  .meta({ id: 'SyncPushRequest' });
export type PushRequest = z.infer<typeof pushRequestSchema>;

export const resolveRequestSchema = z
  .strictObject({
    entries: z.array(z.number().int()).min(1, 'entries should not be empty'),
    take: z.enum(RESOLUTIONS).describe("mine: pushed with the next push; theirs: the origin's value applied here, the entry dropped; edit: `value` here and pushed"),
    value: jsonValue.optional().describe('edit: the value to keep (one entry)'),
  })
  .refine((v) => v.take !== 'edit' || (v.entries.length === 1 && v.value !== undefined), {
    message: 'edit takes one entry and a value',
    path: ['value'],
  })
  .meta({ id: 'SyncResolveRequest' });
export type ResolveRequest = z.infer<typeof resolveRequestSchema>;

export const resolveAnswerSchema = z.object({ resolved: z.number().int(), left: syncCountsSchema }).meta({ id: 'SyncResolveAnswer' });

export const discardRequestSchema = z
  .strictObject({
    entries: z.array(z.number().int()).min(1).optional().describe('these entries (default: every entry)'),
    revert: z.boolean().optional().describe("also put the records back as copied from the origin (default true)"),
  })
  .meta({ id: 'SyncDiscardRequest' });
export type DiscardRequest = z.infer<typeof discardRequestSchema>;

export const discardAnswerSchema = z.object({ discarded: z.number().int(), reverted: z.number().int(), left: syncCountsSchema }).meta({ id: 'SyncDiscardAnswer' });
