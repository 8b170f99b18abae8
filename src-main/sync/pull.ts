// Pull: what changed on the origin since the snapshot or the last pull, applied to the copy.
//
// - Each list (originLists(): the kinds' `sync.list`) is read by updated_at, oldest first, from its cursor: pages are
//   keyed on the last updated_at seen (records of that instant already applied are skipped), so
//   a record changed during the pull is met again later, never missed; many records of one
//   instant are walked by id. Each page is applied in one transaction with the list's cursor,
//   so an interrupted pull resumes where it stopped.
// - Records with no local change are written as the origin has them (the store's bulk write
//   with source origin: upserted, no outbox entry, no kind effects, the origin's versions noted
//   by the path; the origin's own status-change rows come in their list
//   and replace the ones made here). A field with a pending local change keeps its local value:
//   when the origin changed it too (neither the copy's value nor ours) the entry becomes a
//   conflict, when the origin has our value the entry is confirmed.
// - Records marked stale (a conflict resolved with the origin's value, a discarded change) are
//   read again by id, incidents with their status changes, messages and custom field values.
// - Deletions: the ids of each list are compared with the records the copy got from the origin
//   (a merge walk over both, in id order); a record missing there is checked once more by id,
//   then deleted here when nothing here depends on it, or kept and reported.
import { getResource } from '../../src-shared/resources/index';
import type { PullSummary } from '../../src-shared/schemas/sync';
import { ApiError } from '../../src-shared/errors';
import type { OutboxRow } from '../store/outbox';
import { at, RecordImport } from '../transfer/records';
import { planOf } from '../transfer/validate';
import { counts, entriesOfRecord, entriesOfRecords, hasFieldEntry, Ledger, recordsWithEntries } from '../store/outbox-log';
import { SyncError } from './errors';
import { repointMadeRows } from '../store/origin';
import { originListOf, originLists, platformMadeOf } from '../store/kinds/index';
import { BEFORE_ANY, searchPath, type OriginList } from '../../src-shared/sync/lists';
import { justAfter, OriginApi, type Rec } from './origin-api';
import { copiedIdsMissing, markPulled, RemoteVersions, remoteTs, staleRecords } from '../store/origin';
import { acquireLock, originClient } from './origin';
import { DELETED_ON_ORIGIN } from './push';
import type { SyncTarget } from './target';
import { remoteValue, valueKey } from './values';

export interface PullProgress {
  phase: string;
  done: number;
  total: number | null;
}

export interface PullOptions {
  signal?: AbortSignal;
  onProgress?: (p: PullProgress) => void;
  pageSize?: number;
  timeoutMs?: number;
  /** Look for records deleted on the origin (default true). */
  deletions?: boolean;
}

const IDS_PAGE = 10_000;
const MAX_REPORTED = 100;

type ListCounts = PullSummary['lists'][string];
const emptyCounts = (): ListCounts => ({ received: 0, inserted: 0, updated: 0, unchanged: 0, conflicts: 0, deleted: 0, kept: 0 });

const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

class Applier {
  readonly session: RecordImport;
  readonly summary: PullSummary;

  constructor(
    private readonly t: SyncTarget,
    summary: PullSummary,
  ) {
    this.session = new RecordImport(t.file, { source: 'origin', ignoreUnknown: true });
    this.summary = summary;
  }

  private countsOf(list: string): ListCounts {
    return (this.summary.lists[list] ??= emptyCounts());
  }

  /** Applies origin records of one list in one transaction, with the list's new cursor. */
  async apply(list: OriginList, records: Rec[], cursor: string | null, signal?: AbortSignal): Promise<void> {
    const s = this.session;
    const r = getResource(list.resource);
    const plan = planOf(r);
    const c = this.countsOf(list.key);
    s.begin();
    const ledger = new Ledger(s.db);
    const versions = new RemoteVersions(s.db);
    const ids = records.map((x) => (typeof x.id === 'string' ? x.id.toLowerCase() : '')).filter(Boolean);
    const pending = new Map<string, OutboxRow[]>();
    for (const e of entriesOfRecords(s.db, list.resource, ids)) {
      pending.set(e.record_id, [...(pending.get(e.record_id) ?? []), e]);
    }
    const nestedPending = new Set<string>(
      list.load?.length
        ? recordsWithEntries(
            s.db,
            list.load.map((n) => r.relations![n]!.target),
          )
        : [],
    );
    // Rows the platform makes itself (status changes): the parents whose rows came in this list.
    const made = platformMadeOf(list.resource);
    const parentsWithRows = new Set<string>();
    records.forEach((raw, i) => {
      const rec: Rec = { ...raw };
      const id = typeof rec.id === 'string' ? rec.id.toLowerCase() : null;
      if (!id) return;
      c.received++;
      this.summary.received++;
      const ts = remoteTs(rec.updated_at);
      const es = pending.get(id) ?? [];
      const base = versions.of(list.resource, id);
      const create = es.find((e) => e.op === 'create');
      const del = es.find((e) => e.op === 'delete');
      if (create) {
        // Created here and sent before an interruption: the origin has it now.
        if (create.state === 'sending') ledger.confirm(create.seq, create.after, 'already on the origin');
        else return;
      }
      if (del) {
        if (del.resolution !== 'mine' && ts !== base && del.state !== 'conflict') {
          ledger.conflict(del.seq, JSON.stringify(raw), ts);
          c.conflicts++;
          this.summary.conflicts++;
        }
        return; // deleted here: the origin's record is not written back
      }
      for (const e of es) {
        if (e.op !== 'update' || e.field.startsWith('_relations.')) {
          if (e.field.startsWith('_relations.')) delete rec[e.field.slice('_relations.'.length)];
          continue;
        }
        const theirs = valueKey(r, e.field, remoteValue(rec, e.field));
        const key = (v: string | null) => valueKey(r, e.field, parse(v));
        if (theirs === key(e.after)) {
          ledger.confirm(e.seq, e.after, 'already on the origin');
          this.summary.confirmed++;
          continue; // the origin's value is ours: written as it is
        }
        if (e.state === 'sending' && e.sent !== null && theirs === key(e.sent)) {
          ledger.confirm(e.seq, e.sent, 'pushed');
          this.summary.confirmed++;
        } else if (theirs !== key(e.before) && !(e.resolution === 'mine' && theirs === key(e.theirs)) && !(e.state === 'conflict' && theirs === key(e.theirs))) {
          ledger.conflict(e.seq, theirs, ts);
          c.conflicts++;
          this.summary.conflicts++;
        }
        delete rec[e.field]; // a field changed here keeps its local value
      }
      delete rec.service_asset; // assets come in their own list, local changes kept
      // Nested records changed here keep their local values.
      for (const name of list.load ?? []) {
        const nested = rec[name];
        const target = r.relations![name]!.target;
        if (Array.isArray(nested)) rec[name] = nested.filter((o) => !(o && typeof o === 'object' && nestedPending.has(`${target}:${String((o as Rec).id).toLowerCase()}`)));
      }
      // Written as from the origin: the path notes the origin's versions (the record's, its occurrences').
      s.add(plan, rec, at({ file: `${this.t.origin().url}${searchPath(list.resource)}`, record: `items[${i}]` }));
      const parent = made ? rec[made.parentFk] : undefined;
      if (typeof parent === 'string') parentsWithRows.add(parent.toLowerCase());
    });
    // The origin's rows replace those made here, once no change of the parent's field is pending.
    for (const parent of parentsWithRows) {
      if (hasFieldEntry(s.db, made!.parent, parent, made!.parentField)) continue;
      // What names a row made here names the platform's row for the same change (found by push).
      repointMadeRows(s.db, list.resource, parent);
      made!.dropLocal(s.db, parent);
    }
    if (cursor) versions.setCursor(list.key, cursor);
    await s.commit({ signal });
    const got = s.counts[list.resource];
    if (got) {
      c.inserted += got.inserted;
      c.updated += got.updated;
      c.unchanged += got.unchanged + got.repeated;
    }
    s.counts = {};
  }

  close(): void {
    this.session.close();
  }
}

/** Pages one list by updated_at from its cursor; answers the number of records received. */
async function pullList(api: OriginApi, applier: Applier, list: OriginList, pageSize: number, opts: PullOptions): Promise<void> {
  const versions = new RemoteVersions(applier.session.db);
  let lower = versions.cursor(list.key) ?? BEFORE_ANY;
  let skip = new Set<string>();
  let done = 0;
  let total: number | null = null;
  const load = list.load ?? [];
  const idOf = (x: Rec) => (typeof x.id === 'string' ? x.id.toLowerCase() : '');
  for (;;) {
    if (opts.signal?.aborted) return;
    const page = await api.changedSince(list.resource, lower, pageSize, load);
    total ??= page.total;
    const items = page.items;
    if (items.length === pageSize && items.every((x) => remoteTs(x.updated_at) === lower)) {
      // More records of one instant than a page holds: walked by id, then past that instant.
      for (let offset = 0; ; offset += pageSize) {
        const same = await api.changedAt(list.resource, lower, offset, pageSize, load);
        await applier.apply(
          list,
          same.filter((x) => !skip.has(idOf(x))),
          null,
          opts.signal,
        );
        done += same.length;
        opts.onProgress?.({ phase: list.key, done, total });
        if (same.length < pageSize) break;
      }
      lower = justAfter(lower);
      skip = new Set();
      await applier.apply(list, [], lower, opts.signal);
      continue;
    }
    const fresh = items.filter((x) => !(remoteTs(x.updated_at) === lower && skip.has(idOf(x))));
    const last = items.length ? (remoteTs(items[items.length - 1]!.updated_at) ?? lower) : lower;
    if (last !== lower) skip = new Set();
    for (const x of items) if (remoteTs(x.updated_at) === last) skip.add(idOf(x));
    lower = last;
    await applier.apply(list, fresh, lower, opts.signal);
    done += fresh.length;
    opts.onProgress?.({ phase: list.key, done, total });
    if (items.length < pageSize) return;
  }
}

/** Related lists of incidents, read again with a stale incident. */
const RELATED = originLists().filter((l) => l.relatedBy);

/** Records marked stale, read again by id (incidents with their related records). */
async function refreshStale(t: SyncTarget, api: OriginApi, applier: Applier, opts: PullOptions = {}): Promise<string[]> {
  const deleted: string[] = [];
  const stale = staleRecords(t.db);
  for (const list of originLists()) {
    const ids = stale.filter((x) => x.resource === list.resource).map((x) => x.id);
    for (let i = 0; i < ids.length; i += 500) {
      if (opts.signal?.aborted) return deleted;
      const chunk = ids.slice(i, i + 500);
      const got = await api.byIds(list.resource, chunk, [], []);
      const records = [...got.values()];
      if (list.load?.length) {
        // byIds answers no nested records: the incident's occurrences come as a related list.
        for (const rec of records) for (const name of list.load) delete rec[name];
      }
      await applier.apply(list, records, null, opts.signal);
      for (const id of chunk) if (!got.has(id)) deleted.push(`${list.resource}:${id}`);
      const related = RELATED.filter((rl) => getResource(rl.resource).fields[rl.relatedBy!]?.ref === list.resource);
      if (related.length) {
        const found = chunk.filter((id) => got.has(id));
        for (const rl of related) {
          const rel = found.length ? await api.byRelated(rl.resource, rl.relatedBy!, found) : [];
          if (rel?.length) await applier.apply(rl, rel, null, opts.signal);
        }
      }
    }
  }
  return deleted;
}

/** Records the copy got from the origin that the origin no longer has (checked twice). */
async function goneOnOrigin(api: OriginApi, t: SyncTarget, resource: string, signal?: AbortSignal): Promise<string[] | null> {
  const missing: string[] = [];
  const local = copiedIdsMissing(t.db, resource);
  let prev = '';
  for (let offset = 0; ; offset += IDS_PAGE) {
    if (signal?.aborted) return missing;
    const ids = await api.ids(resource, offset, IDS_PAGE);
    if (ids === null) return null;
    const lastPage = ids.length < IDS_PAGE;
    const upTo = lastPage ? null : ids[ids.length - 1]!;
    missing.push(...local(prev, upTo, ids));
    if (lastPage) break;
    prev = upTo!;
  }
  if (!missing.length) return missing;
  // Checked once more by id: a record the walk missed while the origin changed is not gone.
  const gone: string[] = [];
  for (let i = 0; i < missing.length; i += 500) {
    const chunk = missing.slice(i, i + 500);
    const still = await api.byIds(resource, chunk, ['id']);
    gone.push(...chunk.filter((id) => !still.has(id)));
  }
  return gone;
}

/** A record deleted on the origin: deleted here too unless a local change or a record here needs it. */
function applyDeletion(t: SyncTarget, list: OriginList, id: string, summary: PullSummary): void {
  const c = (summary.lists[list.key] ??= emptyCounts());
  const r = getResource(list.resource);
  const ledger = new Ledger(t.db);
  const versions = new RemoteVersions(t.db);
  t.store.tx(() => {
    const es = entriesOfRecord(t.db, list.resource, id);
    if (es.length) {
      for (const e of es) {
        if (e.op === 'delete') ledger.confirm(e.seq, null, 'already deleted on the origin');
        else ledger.fail(e.seq, DELETED_ON_ORIGIN);
      }
      if (es.some((e) => e.op !== 'delete')) {
        c.kept++;
        return;
      }
    }
    try {
      t.store.delete(r, id, { source: 'origin' });
      c.deleted++;
      const list_ = (summary.deleted_ids[list.resource] ??= []);
      if (list_.length < MAX_REPORTED) list_.push(id);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (e.status !== 404) {
        c.kept++;
        return; // records here still point at it (restrict)
      }
    }
    versions.forget(list.resource, id);
  });
}

export async function pull(t: SyncTarget, opts: PullOptions = {}): Promise<PullSummary> {
  const started = performance.now();
  const origin = t.origin();
  const release = acquireLock(t.db, 'pull');
  const client = originClient(origin, t.cipher, opts.timeoutMs);
  const api = new OriginApi(client, origin.url);
  const summary: PullSummary = { lists: {}, received: 0, conflicts: 0, confirmed: 0, deleted_ids: {}, notes: [], stopped: null, left: counts(t.db), ms: 0 };
  const pageSize = opts.pageSize ?? 500;
  let applier: Applier | undefined;
  try {
    applier = new Applier(t, summary);
    for (const list of originLists()) {
      summary.lists[list.key] ??= emptyCounts();
      try {
        await pullList(api, applier, list, pageSize, opts);
      } catch (e) {
        // An origin without a way to read this list: the others are still pulled.
        if (e instanceof Error && /has no way to pull/.test(e.message)) summary.notes.push(e.message);
        else throw e;
      }
    }
    if (!opts.signal?.aborted) {
      opts.onProgress?.({ phase: 'refresh', done: 0, total: null });
      const gone = await refreshStale(t, api, applier, opts);
      for (const key of gone) {
        const [resource, id] = key.split(':') as [string, string];
        applyDeletion(t, originListOf(resource)!, id, summary);
      }
    }
    if (opts.deletions !== false) {
      for (const list of originLists()) {
        if (opts.signal?.aborted) break;
        opts.onProgress?.({ phase: `deletions: ${list.key}`, done: 0, total: null });
        const gone = await goneOnOrigin(api, t, list.resource, opts.signal);
        if (gone === null) {
          summary.notes.push(`deletions of ${list.resource} not checked: the origin has no v2 search for it`);
          continue;
        }
        for (const id of gone) applyDeletion(t, list, id, summary);
      }
    }
    if (opts.signal?.aborted) summary.stopped = 'cancelled: the pages applied so far are kept; pull again to go on';
    else markPulled(t.db);
  } catch (e) {
    applier?.session.rollback();
    // The origin could not be read: the pages applied so far are kept, the cursor where they end.
    if (!(e instanceof SyncError)) throw e;
    summary.stopped = e.message;
  } finally {
    applier?.close();
    release();
    await client.close();
  }
  summary.left = counts(t.db);
  summary.ms = Math.round(performance.now() - started);
  return summary;
}

/** Reads the stale records again at once (after "take theirs"); answers whether it could. */
export async function refreshNow(t: SyncTarget, timeoutMs?: number): Promise<void> {
  const origin = t.origin();
  const client = originClient(origin, t.cipher, timeoutMs);
  const summary: PullSummary = { lists: {}, received: 0, conflicts: 0, confirmed: 0, deleted_ids: {}, notes: [], stopped: null, left: counts(t.db), ms: 0 };
  const applier = new Applier(t, summary);
  try {
    const gone = await refreshStale(t, new OriginApi(client, origin.url), applier);
    for (const key of gone) {
      const [resource, id] = key.split(':') as [string, string];
      applyDeletion(t, originListOf(resource)!, id, summary);
    }
  } catch (e) {
    applier.session.rollback();
    throw e;
  } finally {
    applier.close();
    await client.close();
  }
}
