// The bulk runner: one change (status, risk, owner or group, with a status change's note) over
// incidents given one by one or over a whole selected query, on any instance. A selected query's
// incidents are read first (pages of the search, nothing created after the selection was made:
// their count is the N the confirmation named, their values the undo's). Then:
// - on a local instance (the main database, another local one, a snapshot) the change is ONE
//   server-side job over the query (POST /console/v1/incidents/bulk): one transaction, its
//   progress read from the job, cancel rolls all of it back; the job refuses (409) when the
//   query no longer matches the N incidents read, so the confirmation stays true;
// - on a remote platform, which has no such job, the incidents are written in chunks (a status
//   with its reason through the typed client's incidents.setStatus, other fields through
//   mass_update), with progress and cancel between chunks.
// A chunk or job no instance answered for is handed back as not answered (the caller keeps it in
// the queue of changes waiting, state/queue.ts); a refusal keeps its reason.
import { emptySearch } from '../../../src-shared/schemas/search';
import { microsToTs } from '../../../src-shared/time';
import { ApiFailure, isAbort } from '../api/client';
import { bulkJob, cancelBulkJob, massCreate, massUpdate, search, setIncidentStatus, startBulkJob, type BulkJobView, type BulkRequestInput, type Rec } from '../api/radar';
import type { SearchFilter } from '../../../src-shared/schemas/search';
import { failureText, type InstanceTag } from '../data/source';
import { i18n } from '../i18n';
import { searchText, toSearchFilters, type Resolve } from '../views/incidents/query';
import { instancesOf, targetOf, useInstances } from './instances';
import { myGroups } from './people';
import { useSession } from './session';
import type { Scope } from './triage';

export type ChangeKind = 'status' | 'risk' | 'owner' | 'group';
export type ChangeValue = string | number | null;

/** The incident field each kind of change writes. */
export const CHANGE_FIELD: Record<ChangeKind, 'status' | 'risklevel' | 'user_id' | 'group_id'> = {
  status: 'status',
  risk: 'risklevel',
  owner: 'user_id',
  group: 'group_id',
};

/** Why a status was set: a reason from the short list and free text, kept as a message. */
export interface ChangeNote {
  /** The message's subject (the reason in the user's words, or the change itself). */
  subject: string;
  body: string;
}

/** An incident a change covers, with its value before the change. */
export interface BulkItem {
  id: string;
  display_id: number | null;
  title: string | null;
  before: ChangeValue;
}

export interface Batch {
  instance: InstanceTag;
  items: BulkItem[];
}

export interface BulkChange {
  kind: ChangeKind;
  value: ChangeValue;
  note?: ChangeNote;
}

export type BulkTarget = { batches: Batch[] } | { scope: Scope };

export interface BulkProgress {
  phase: 'reading' | 'sending';
  done: number;
  total: number;
  failed: number;
}

export interface BulkFailure {
  instance: InstanceTag;
  item: BulkItem;
  code: number;
  reason: string;
}

export interface BulkOutcome {
  /** Changed on the instance. */
  ok: { instance: InstanceTag; item: BulkItem }[];
  /** Refused, with the reason. */
  failed: BulkFailure[];
  /** Not answered: whether a request carrying them went out (its answer may have been lost). */
  unanswered: { instance: InstanceTag; items: BulkItem[]; tried: boolean }[];
  /** A selected query whose incidents could not be read (its instance did not answer). */
  unread: { instance: InstanceTag; scope: Scope }[];
  /** Not sent because the change was cancelled. */
  notSent: { instance: InstanceTag; items: BulkItem[] }[];
}

/** Incidents per mass_update call, for incidents given one by one and for a whole query. */
export const CHUNK = 100;
export const SCOPE_CHUNK = 500;
/** Incidents read per search while reading a selected query (the search's limit). */
export const READ_PAGE = 10_000;

const INCIDENTS = 'service_asset_findings';

const unanswered = (e: unknown): boolean => e instanceof ApiFailure && e.unreachable;

export function reasonOf(code: number, e?: unknown): string {
  if (e !== undefined) return failureText(e);
  if (code === 11003) return i18n.t('queue.reasons.notFound');
  if (code === 12012) return i18n.t('queue.reasons.notUuid');
  if (code === 11001) return i18n.t('queue.reasons.related');
  if (code === 11002) return i18n.t('queue.reasons.storage');
  return i18n.t('queue.reasons.code', { code });
}

/** A value of the change's field as read from a record. */
export function fieldValue(kind: ChangeKind, rec: Record<string, unknown>): ChangeValue {
  const v = rec[CHANGE_FIELD[kind]];
  if (kind === 'risk') return typeof v === 'number' ? v : Number(v ?? 0);
  return v === undefined || v === null ? null : String(v);
}

export const sameValue = (a: ChangeValue, b: ChangeValue): boolean => (typeof a === 'number' || typeof b === 'number' ? Number(a) === Number(b) && a !== null && b !== null : a === b);

/** What a selected query is resolved against on one instance: as it was when it was selected. */
export function scopeResolve(scope: Scope, instance: string): Resolve {
  const cap = microsToTs(scope.asOf * 1000);
  return {
    asOf: scope.asOf,
    who: { me: useSession.getState().me?.id ?? null, myGroups: myGroups(instance) },
    until: scope.until && scope.until < cap ? scope.until : cap,
  };
}

/** The incidents a selected query covers on one instance, with their values now. */
export async function readScope(
  scope: Scope,
  instance: InstanceTag,
  kind: ChangeKind,
  signal: AbortSignal | undefined,
  onPage: (read: number, total: number) => void,
): Promise<BulkItem[]> {
  const api = useSession.getState().api!;
  const filters = [...toSearchFilters(scope.query, scopeResolve(scope, instance.id)), ...scope.extra];
  const items: BulkItem[] = [];
  // Paged by what each answer holds: an instance that answers fewer than asked per page is read
  // on to its total, not taken for the end.
  for (let offset = 0; ; ) {
    const page = await search(
      api,
      targetOf(instance.id),
      INCIDENTS,
      {
        ...emptySearch(READ_PAGE, offset),
        include_fields: ['id', 'display_id', 'title', CHANGE_FIELD[kind]],
        filters,
        ordering: [{ field: 'created_at', direction: 'desc' }],
        virtual_search: { value: searchText(scope.query), strict: false },
      },
      signal,
    );
    for (const r of page.items) {
      if (scope.except.has(`${instance.id}:${r.id}`)) continue;
      items.push({ id: r.id, display_id: (r.display_id as number | null) ?? null, title: (r.title as string | null) ?? null, before: fieldValue(kind, r) });
    }
    offset += page.items.length;
    onPage(offset, page.total);
    if (page.items.length === 0 || offset >= page.total) return items;
  }
}

/** Incidents by id on one instance, with their values now (pages of the search). */
export async function readCurrent(instance: string, ids: readonly string[], kind: ChangeKind, signal?: AbortSignal): Promise<Map<string, Rec>> {
  const api = useSession.getState().api!;
  const out = new Map<string, Rec>();
  for (let i = 0; i < ids.length; i += 1000) {
    const part = ids.slice(i, i + 1000);
    const page = await search(
      api,
      targetOf(instance),
      INCIDENTS,
      { ...emptySearch(part.length), include_fields: ['id', 'display_id', 'title', CHANGE_FIELD[kind]], filters: [{ field: 'id', filter_type: 'intersection', value: part }] },
      signal,
    );
    for (const r of page.items) out.set(r.id.toLowerCase(), r);
  }
  return out;
}

/**
 * The note of a status change whose value the instance already has (a request whose answer was
 * lost): written once, linked to the incident's newest change to that status, unless a message
 * with the same subject and text is linked to it already.
 */
export async function ensureNotes(instance: string, items: BulkItem[], status: string, note: ChangeNote): Promise<void> {
  if (!items.length) return;
  const api = useSession.getState().api!;
  const target = targetOf(instance);
  const changes = await search(api, target, 'service_asset_finding_status_changes', {
    ...emptySearch(Math.min(10_000, items.length * 8)),
    include_fields: ['id', 'service_asset_finding_id', 'created_at'],
    filters: [
      { field: 'service_asset_finding_id', filter_type: 'intersection', value: items.map((r) => r.id) },
      { field: 'status', filter_type: 'equal', value: status },
    ],
    ordering: [{ field: 'created_at', direction: 'desc' }],
  });
  const newest = new Map<string, string>();
  for (const c of changes.items) {
    const inc = String(c.service_asset_finding_id);
    if (!newest.has(inc)) newest.set(inc, c.id);
  }
  const rows = [...newest.values()];
  const linked = rows.length
    ? await search(api, target, 'messages', {
        ...emptySearch(Math.min(10_000, rows.length * 4)),
        include_fields: ['id', 'subject', 'body', 'service_asset_finding_status_change_id'],
        filters: [{ field: 'service_asset_finding_status_change_id', filter_type: 'intersection', value: rows }],
      })
    : { items: [] };
  const done = new Set(linked.items.filter((m) => m.subject === note.subject && (m.body ?? '') === note.body).map((m) => String(m.service_asset_finding_status_change_id)));
  const sender = useSession.getState().me?.id ?? null;
  const missing = items.filter((r) => !done.has(newest.get(r.id) ?? '\u0000'));
  if (!missing.length) return;
  await massCreate(
    api,
    target,
    'messages',
    missing.map((r) => ({
      subject: note.subject,
      body: note.body,
      service_asset_finding_id: r.id,
      service_asset_finding_status_change_id: newest.get(r.id) ?? null,
      automated: false,
      sender_id: sender,
    })),
  );
}

interface SendOptions {
  signal: AbortSignal;
  chunk: number;
  /** Called after each chunk with the incidents it settled. */
  onChunk(settled: number, failed: number): void;
}

/** One instance's incidents, in chunks: changed, refused (with the reason), not answered, not sent. */
export async function sendItems(change: BulkChange, instance: InstanceTag, items: BulkItem[], opts: SendOptions, out: BulkOutcome): Promise<void> {
  const api = useSession.getState().api!;
  for (let i = 0; i < items.length; i += opts.chunk) {
    const chunk = items.slice(i, i + opts.chunk);
    if (opts.signal.aborted) {
      out.notSent.push({ instance, items: items.slice(i) });
      return;
    }
    let failedHere = 0;
    try {
      // A status goes with its reason and comment in one operation; the other fields by mass_update.
      const res =
        change.kind === 'status'
          ? await setIncidentStatus(api, targetOf(instance.id), chunk.map((r) => r.id), String(change.value), change.note, {
              before: new Map(chunk.filter((r) => r.before !== null).map((r) => [r.id.toLowerCase(), String(r.before)])),
              senderId: useSession.getState().me?.id ?? null,
            })
          : await massUpdate(api, targetOf(instance.id), INCIDENTS, chunk.map((r) => r.id), CHANGE_FIELD[change.kind], change.value);
      const codes = new Map(res.map((x) => [x.id.toLowerCase(), x.error_code]));
      const ok: BulkItem[] = [];
      for (const r of chunk) {
        const code = codes.get(r.id.toLowerCase()) ?? -1;
        if (code === 0) ok.push(r);
        else {
          out.failed.push({ instance, item: r, code, reason: reasonOf(code) });
          failedHere++;
        }
      }
      for (const r of ok) out.ok.push({ instance, item: r });
    } catch (e) {
      if (unanswered(e) || isAbort(e)) {
        // Nothing more goes to an instance that does not answer: this chunk (its answer may have
        // been lost) and the rest wait for it.
        out.unanswered.push({ instance, items: chunk, tried: true });
        if (i + opts.chunk < items.length) out.unanswered.push({ instance, items: items.slice(i + opts.chunk), tried: false });
        opts.onChunk(items.length - i, 0);
        return;
      }
      for (const r of chunk) out.failed.push({ instance, item: r, code: -1, reason: reasonOf(-1, e) });
      failedHere = chunk.length;
    }
    opts.onChunk(chunk.length, failedHere);
  }
}

/** How often a running job's progress is read. */
export const JOB_POLL_MS = 250;

/** Whether an instance is served by this server (its job runs here), not a remote platform. */
export function isLocalInstance(id: string): boolean {
  if (id === 'main') return true;
  const s = useInstances.getState();
  if (id === s.mainId) return true;
  const found = s.list.find((i) => i.id === id);
  return !!found && found.kind !== 'remote';
}

/** The change as the job takes it. */
function jobChange(change: BulkChange): BulkRequestInput['change'] {
  switch (change.kind) {
    case 'status':
      return {
        status: String(change.value) as Extract<BulkRequestInput['change'], { status: unknown }>['status'],
        ...(change.note ? { note: { subject: change.note.subject, body: change.note.body } } : {}),
        sender_id: useSession.getState().me?.id ?? null,
      };
    case 'risk':
      return { risklevel: Number(change.value) };
    case 'owner':
      return { user_id: change.value === null ? null : String(change.value) };
    case 'group':
      return { group_id: change.value === null ? null : String(change.value) };
  }
}

/** The selected query on one instance as the job takes it: the list's filters and text, the rows unselected left out. */
export function jobQuery(scope: Scope, instance: string): BulkRequestInput['query'] {
  const filters: SearchFilter[] = [...toSearchFilters(scope.query, scopeResolve(scope, instance)), ...scope.extra];
  const prefix = `${instance}:`;
  const except = [...scope.except].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  if (except.length) filters.push({ field: 'id', filter_type: 'intersection', value: except, negation: true });
  const text = searchText(scope.query);
  return { filters, ...(text ? { virtual_search: { value: text, strict: false } } : {}) };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A selected query's incidents on a local instance, as one job: all of them changed (committed),
 * or none (cancelled, refused, failed: rolled back). `items` are the incidents read, their number
 * the one the job must find.
 */
export async function sendJob(change: BulkChange, scope: Scope, b: Batch, opts: SendOptions, out: BulkOutcome): Promise<void> {
  const api = useSession.getState().api!;
  const target = targetOf(b.instance.id);
  const { instance, items } = b;
  if (opts.signal.aborted) {
    out.notSent.push({ instance, items });
    return;
  }
  const failAll = (reason: string) => {
    for (const r of items) out.failed.push({ instance, item: r, code: -1, reason });
    opts.onChunk(items.length, items.length);
  };
  let job: BulkJobView;
  try {
    job = await startBulkJob(api, target, { query: jobQuery(scope, instance.id), change: jobChange(change), expected_total: items.length });
  } catch (e) {
    if (unanswered(e) || isAbort(e)) {
      // The job may have started before the answer was lost: the queue checks before it sends again.
      out.unanswered.push({ instance, items, tried: true });
      opts.onChunk(items.length, 0);
      return;
    }
    failAll(reasonOf(-1, e));
    return;
  }
  let cancel: Promise<BulkJobView | null> | null = null;
  const onAbort = () => {
    cancel ??= cancelBulkJob(api, target, job.id).catch(() => null);
  };
  opts.signal.addEventListener('abort', onAbort);
  if (opts.signal.aborted) onAbort();
  let reported = 0;
  const report = (done: number) => {
    if (done > reported) opts.onChunk(done - reported, 0);
    reported = Math.max(reported, done);
  };
  try {
    while (job.state === 'running') {
      await pause(JOB_POLL_MS);
      try {
        job = (cancel && (await cancel)) || (await bulkJob(api, target, job.id));
      } catch (e) {
        if (!unanswered(e)) throw e;
        // The server went away: its transaction went with it (nothing written); the change waits.
        out.unanswered.push({ instance, items, tried: true });
        report(items.length);
        return;
      }
      if (job.state === 'running') report(Math.min(job.done, items.length - 1));
    }
  } catch (e) {
    failAll(reasonOf(-1, e));
    return;
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
  }
  if (job.state === 'done') {
    for (const r of items) out.ok.push({ instance, item: r });
    report(items.length);
  } else if (job.state === 'cancelled') {
    out.notSent.push({ instance, items });
  } else {
    const reason = job.error ? failureText(new ApiFailure(job.error.error_code, job.error.error)) : reasonOf(-1);
    for (const r of items) out.failed.push({ instance, item: r, code: -1, reason });
    opts.onChunk(items.length - reported, items.length);
  }
}

export const emptyOutcome = (): BulkOutcome => ({ ok: [], failed: [], unanswered: [], unread: [], notSent: [] });

/**
 * Runs one change over its target. `answering(instance)` says whether an instance is known to
 * answer: the incidents of one that does not are handed back at once (nothing is tried).
 */
export async function runBulk(
  change: BulkChange,
  target: BulkTarget,
  opts: { signal: AbortSignal; onProgress(p: BulkProgress): void; answering(instance: string): boolean },
): Promise<BulkOutcome> {
  const out = emptyOutcome();
  if ('batches' in target) {
    const total = target.batches.reduce((n, b) => n + b.items.length, 0);
    let done = 0;
    let failed = 0;
    for (const b of target.batches) {
      if (!opts.answering(b.instance.id)) {
        out.unanswered.push({ instance: b.instance, items: b.items, tried: false });
        done += b.items.length;
        opts.onProgress({ phase: 'sending', done, total, failed });
        continue;
      }
      await sendItems(change, b.instance, b.items, {
        signal: opts.signal,
        chunk: CHUNK,
        onChunk: (n, f) => {
          done += n;
          failed += f;
          opts.onProgress({ phase: 'sending', done, total, failed });
        },
      }, out);
    }
    return out;
  }
  return sendScope(change, target.scope, opts, out);
}

/** A whole selected query, instance by instance: its incidents read, then written (a job, or chunks). */
async function sendScope(
  change: BulkChange,
  scope: Scope,
  opts: { signal: AbortSignal; onProgress(p: BulkProgress): void; answering(instance: string): boolean },
  out: BulkOutcome,
): Promise<BulkOutcome> {
  const tags = instancesOf(scope.view, useInstances.getState()).filter((t) => !scope.only || t.id === scope.only);
  const read: Batch[] = [];
  let estimate = Math.max(scope.total - scope.except.size, 0);
  let readSoFar = 0;
  opts.onProgress({ phase: 'reading', done: 0, total: estimate, failed: 0 });
  for (const tag of tags) {
    if (opts.signal.aborted) break;
    if (!opts.answering(tag.id)) {
      out.unread.push({ instance: tag, scope });
      continue;
    }
    try {
      const base = readSoFar;
      const items = await readScope(scope, tag, change.kind, opts.signal, (n, total) => {
        estimate = Math.max(estimate, base + total);
        opts.onProgress({ phase: 'reading', done: base + n, total: estimate, failed: 0 });
      });
      readSoFar += items.length;
      read.push({ instance: tag, items });
    } catch (e) {
      if (isAbort(e)) break;
      if (unanswered(e)) out.unread.push({ instance: tag, scope });
      else throw e;
    }
  }
  if (opts.signal.aborted) {
    for (const b of read) out.notSent.push({ instance: b.instance, items: b.items });
    return out;
  }
  const total = read.reduce((n, b) => n + b.items.length, 0);
  let done = 0;
  let failed = 0;
  opts.onProgress({ phase: 'sending', done, total, failed });
  // Chunks small enough for the progress to move (about twenty steps), large enough for speed.
  const chunk = Math.min(SCOPE_CHUNK, Math.max(CHUNK, Math.ceil(total / 20)));
  for (const b of read) {
    const send: SendOptions = {
      signal: opts.signal,
      chunk,
      onChunk: (n, f) => {
        done += n;
        failed += f;
        opts.onProgress({ phase: 'sending', done, total, failed });
      },
    };
    // A local instance: one job over the query (one transaction); a remote one: chunks.
    if (b.items.length && isLocalInstance(b.instance.id)) await sendJob(change, scope, b, send, out);
    else await sendItems(change, b.instance, b.items, send, out);
  }
  return out;
}
