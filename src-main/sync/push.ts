// Push: the outbox replayed to the origin through the platform's own APIs.
//
// - An incident's status and risk level go through the public API's update operations
//   (PUT /data/public/api/v1/incidents/update/status and .../update/critical), so the origin
//   records its own status-change rows; every other field, link list, create and delete goes
//   through the v2 API (PUT <resource>/update, POST <resource>/create with the id given here,
//   DELETE <resource>/{id}).
// - Entries go in batches. Before a batch is sent the origin's records are read (one search per
//   resource, only the fields concerned): a field whose origin value moved since the copy
//   (updated_at changed, value neither the copy's nor ours) is a conflict and is not sent; a
//   value the origin already has is confirmed without sending anything; a record the origin no
//   longer has fails with "deleted on the platform".
// - Exactly once: each entry is marked `sending` (with the value sent) in a committed
//   transaction before its request leaves. After an interruption (network, Ctrl+C, kill -9) a
//   `sending` entry is checked against the origin first: a value already there, or a record
//   created here already present there (creates carry the id made here), is confirmed, not sent
//   again.
// - What names a row the platform makes itself (a message naming the status-change row of a
//   change made here) is sent after the updates, naming the platform's row for that change
//   (made-rows.ts); where there is none, it is sent unlinked with its text, and the push says so.
// - No answer, the key refused, or a 5xx stops the push cleanly: what was confirmed stays
//   confirmed, what was sent without an answer stays `sending`, the rest stays pending.
import crypto from 'node:crypto';
import { getResource, type ResourceDef } from '../../src-shared/resources/index';
import type { PushSummary } from '../../src-shared/schemas/sync';
import { errorText, type JsonAnswer } from '../instances/remote-json';
import { REL_PREFIX, type OutboxRow } from '../store/outbox';
import { inTransaction } from '../store/connection';
import { counts, Ledger, PushQueue, type ConfirmNote } from '../store/outbox-log';
import { SyncError } from './errors';
import { MadeRows } from './made-rows';
import { kindOf } from '../store/kinds/index';
import { V2 } from '../../src-shared/sync/lists';
import { OriginApi, type Rec } from './origin-api';
import { markPushed, RemoteVersions, remoteTs } from '../store/origin';
import { acquireLock, originClient } from './origin';
import type { SyncTarget } from './target';
import { remoteValue, valueKey } from './values';

/** Fields the platform's named update operations require in every body (spec), sent as the origin has them. */
const updateRequires = (r: ResourceDef): readonly string[] => kindOf(r)?.sync?.updateRequires ?? [];
/** Operations that take an audit trace id (spec: service_assets/update, rules/create|update). */
const takesTraceId = (r: ResourceDef): boolean => kindOf(r)?.sync?.traceId === true;

export const DELETED_ON_ORIGIN = 'deleted on the platform';

/** Answers recorded per transaction while a batch is sent. */
const RECORD_EVERY = 32;

export interface PushProgress {
  phase: 'reading' | 'sending';
  done: number;
  total: number;
}

export interface PushOptions {
  dryRun?: boolean;
  /** Only these entries (failed ones included when listed); default every pending one. */
  entries?: readonly number[];
  signal?: AbortSignal;
  onProgress?: (p: PushProgress) => void;
  /** Entries read and sent per batch. */
  batchSize?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  timeoutMs?: number;
}

type Outcome =
  | { kind: 'confirm'; sent: string | null; note: ConfirmNote; remote?: Rec }
  | { kind: 'conflict'; theirs: string; at: string | null }
  | { kind: 'failed'; error: string };

interface Task {
  resource: string;
  id: string;
  order: 0 | 1 | 2 | 3; // creates, then updates, then deletes, then what names rows the updates made
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: Rec;
  entries: OutboxRow[];
  /** The value each entry sends (JSON), recorded before sending. */
  sent: Map<number, string | null>;
}

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);
const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** The fields to read from the origin for a resource's entries. */
function fieldsToRead(r: ResourceDef, entries: readonly OutboxRow[]): { fields: string[]; relations: string[] } {
  const fields = new Set<string>(updateRequires(r));
  const relations = new Set<string>();
  for (const e of entries) {
    if (e.field.startsWith(REL_PREFIX)) relations.add(e.field.slice(REL_PREFIX.length));
    else if (e.field) fields.add(e.field);
  }
  // A delete is checked against the whole record (any change there is a conflict).
  return { fields: entries.some((e) => e.op === 'delete') ? [] : [...fields], relations: [...relations] };
}

/** Decides what to do with one entry, given the origin's record (absent: not there). */
function decide(r: ResourceDef, e: OutboxRow, remote: Rec | undefined, base: string | undefined): Outcome | 'send' {
  if (e.op === 'create') return remote ? { kind: 'confirm', sent: e.after, note: 'already on the origin' } : 'send';
  if (e.op === 'delete') {
    if (!remote) return { kind: 'confirm', sent: null, note: 'already deleted on the origin' };
    const moved = base === undefined || remoteTs(remote.updated_at) !== base;
    if (moved && e.resolution !== 'mine') return { kind: 'conflict', theirs: json(remote), at: remoteTs(remote.updated_at) };
    return 'send';
  }
  if (!remote) return { kind: 'failed', error: DELETED_ON_ORIGIN };
  const theirs = valueKey(r, e.field, remoteValue(remote, e.field));
  const key = (s: string | null) => valueKey(r, e.field, parse(s));
  const at = remoteTs(remote.updated_at);
  if (theirs === key(e.after)) return { kind: 'confirm', sent: e.after, note: 'already on the origin' };
  // A value sent before an interruption that landed, then changed here again: confirmed as sent.
  if (e.state === 'sending' && e.sent !== null && theirs === key(e.sent)) return { kind: 'confirm', sent: e.sent, note: 'pushed' };
  if (e.resolution === 'mine') {
    // Kept over the origin's value the user saw; a newer change there is a new conflict.
    return theirs === key(e.theirs) || theirs === key(e.before) ? 'send' : { kind: 'conflict', theirs, at };
  }
  const moved = base === undefined || at !== base;
  if (moved && theirs !== key(e.before)) return { kind: 'conflict', theirs, at };
  return 'send';
}

/** The body of a create: the record as stored here, without what the origin assigns itself. */
function createBody(r: ResourceDef, e: OutboxRow): Rec {
  const rec = { ...(parse(e.after) as Rec) };
  delete rec.created_at;
  delete rec.updated_at;
  for (const [name, def] of Object.entries(r.fields)) {
    if (def.readOnly || def.sequence) delete rec[name];
  }
  if (takesTraceId(r) && rec.trace_id === undefined) rec.trace_id = crypto.randomUUID();
  return rec;
}

/** Requests for one record's entries (in `sending` order: create, updates, delete). */
function tasksFor(r: ResourceDef, id: string, send: OutboxRow[], remote: Rec | undefined): Task[] {
  const tasks: Task[] = [];
  const one = (order: Task['order'], method: Task['method'], path: string, entries: OutboxRow[], body?: Rec, sentOf = (e: OutboxRow) => e.after) =>
    tasks.push({ resource: r.name, id, order, method, path, body, entries, sent: new Map(entries.map((e) => [e.seq, sentOf(e)])) });
  const fields: OutboxRow[] = [];
  // Fields the platform takes through operations of their own (an incident's status and risk level).
  const ops = kindOf(r)?.sync?.fieldOperations;
  for (const e of send) {
    if (e.op === 'create') one(0, 'POST', `${V2}/${r.name}/create`, [e], createBody(r, e));
    else if (e.op === 'delete') one(2, 'DELETE', `${V2}/${r.name}/${id}`, [e], undefined, () => null);
    else if (ops?.[e.field]) one(1, ops[e.field]!.method, ops[e.field]!.path, [e], ops[e.field]!.body(id, parse(e.after)));
    else fields.push(e);
  }
  if (fields.length) {
    const body: Rec = { id };
    for (const name of updateRequires(r)) if (remote && remote[name] !== undefined) body[name] = remote[name];
    if (takesTraceId(r)) body.trace_id = crypto.randomUUID();
    for (const e of fields) {
      if (e.field.startsWith(REL_PREFIX)) ((body._relations ??= {}) as Rec)[e.field.slice(REL_PREFIX.length)] = parse(e.after);
      else body[e.field] = parse(e.after);
    }
    one(1, 'PUT', `${V2}/${r.name}/update`, fields, body);
  }
  return tasks;
}

/** What an answer means for the entries of a task; 'stop' when the push cannot go on. */
async function outcomeOf(api: OriginApi, t: Task, res: JsonAnswer): Promise<Outcome | { kind: 'stop'; error: string }> {
  if (res.status >= 200 && res.status < 300) return { kind: 'confirm', sent: null, note: 'pushed', remote: res.body as Rec };
  if (res.status === 404) return t.method === 'DELETE' ? { kind: 'confirm', sent: null, note: 'already deleted on the origin' } : { kind: 'failed', error: DELETED_ON_ORIGIN };
  if (res.status === 409 && t.method === 'POST') {
    // A create sent before an interruption: the id made here is already there.
    const there = await api.byIds(t.resource, [t.id], ['id']);
    if (there.has(t.id)) return { kind: 'confirm', sent: null, note: 'already on the origin' };
  }
  if (res.status >= 500) return { kind: 'stop', error: `the origin ${api.url} answered ${t.method} ${t.path} with ${errorText(res)}` };
  return { kind: 'failed', error: errorText(res) };
}

/** Runs fn over items with at most n in flight; stops starting new ones once stop() holds. */
async function pool<T>(items: readonly T[], n: number, fn: (x: T) => Promise<void>, stop: () => boolean): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

export async function push(t: SyncTarget, opts: PushOptions = {}): Promise<PushSummary> {
  const started = performance.now();
  const db = t.db;
  const origin = t.origin();
  const release = opts.dryRun ? () => {} : acquireLock(db, 'push');
  const client = originClient(origin, t.cipher, opts.timeoutMs);
  const api = new OriginApi(client, origin.url);
  const ledger = new Ledger(db);
  const versions = new RemoteVersions(db);
  const made = new MadeRows(db, api);
  const summary: PushSummary = {
    dry_run: !!opts.dryRun,
    considered: 0,
    pushed: 0,
    already: 0,
    requests: 0,
    conflicts: 0,
    failed: 0,
    unlinked: 0,
    notes: [],
    would_send: [],
    stopped: null,
    left: counts(db),
    ms: 0,
  };
  const batchSize = opts.batchSize ?? 500;
  const concurrency = opts.concurrency ?? 8;
  try {
    const queue = new PushQueue(db, opts.entries);
    const total = queue.total;
    let after = 0;
    let done = 0;
    const progress = (phase: PushProgress['phase']) => opts.onProgress?.({ phase, done, total });
    progress('reading');
    for (;;) {
      if (opts.signal?.aborted) {
        summary.stopped = 'cancelled';
        break;
      }
      const batch = queue.batch(after, batchSize);
      if (!batch.length) break;
      after = batch[batch.length - 1]!.seq;
      summary.considered += batch.length;
      // The origin's records of this batch, one search per resource.
      const byResource = new Map<string, OutboxRow[]>();
      for (const e of batch) byResource.set(e.resource, [...(byResource.get(e.resource) ?? []), e]);
      const remote = new Map<string, Map<string, Rec>>();
      for (const [name, entries] of byResource) {
        const r = getResource(name);
        const { fields, relations } = fieldsToRead(r, entries);
        remote.set(name, await api.byIds(name, [...new Set(entries.map((e) => e.record_id))], fields, relations));
      }
      // Decide; group what goes into requests per record.
      const decided: [OutboxRow, Outcome][] = [];
      const sendByRecord = new Map<string, OutboxRow[]>();
      for (const e of batch) {
        const r = getResource(e.resource);
        const rec = remote.get(e.resource)!.get(e.record_id);
        const d = decide(r, e, rec, versions.of(e.resource, e.record_id));
        if (d === 'send') {
          const k = `${e.resource}\u0000${e.record_id}`;
          sendByRecord.set(k, [...(sendByRecord.get(k) ?? []), e]);
        } else {
          decided.push([e, d]);
        }
      }
      let tasks: Task[] = [];
      for (const entries of sendByRecord.values()) {
        const e0 = entries[0]!;
        tasks.push(...tasksFor(getResource(e0.resource), e0.record_id, entries, remote.get(e0.resource)!.get(e0.record_id)));
      }
      if (opts.dryRun) {
        for (const task of tasks) summary.would_send.push({ method: task.method, path: task.path, ...(task.body ? { body: task.body } : {}), entries: task.entries.map((e) => e.seq) });
        for (const [, d] of decided) tally(summary, d);
        done += batch.length;
        progress('reading');
        continue;
      }
      // Rows the platform made for changes pushed before (an interrupted push), then this batch's plan.
      await made.settle();
      const unlinked = new Map<Task, string[]>();
      const plan = await made.plan(tasks, new Map(decided.map(([e, d]) => [e.seq, d.kind])), unlinked);
      for (const task of plan.later) task.order = 3;
      const waiting = new Set(plan.waits.map(([task]) => task));
      tasks = tasks.filter((task) => !waiting.has(task));
      // Durably: what the origin has, conflicts, failures; and the attempts about to be made.
      inTransaction(db, () => {
        for (const [e, d] of decided) apply(ledger, e, d, summary);
        for (const task of tasks) for (const e of task.entries) ledger.markSending(e, task.sent.get(e.seq) ?? null);
        made.writeProbes(plan.probes);
        for (const [task, why] of plan.waits) {
          for (const e of task.entries) ledger.waits(e.seq, why);
          summary.notes.push(`${task.resource} ${task.id}: ${why}`);
        }
      });
      done += decided.length;
      progress('sending');
      let stop: string | null = null;
      const started_ = new Set<Task>();
      let results: [Task, Outcome][] = [];
      const uncertain: [Task, string][] = [];
      // Answers are recorded as they come, a few at a time (an interruption loses little).
      const record = () => {
        const now = results;
        results = [];
        inTransaction(db, () => {
          for (const [task, o] of now) {
            const notes = o.kind === 'confirm' && o.note === 'pushed' ? unlinked.get(task) : undefined;
            if (notes) {
              summary.unlinked += task.entries.length;
              summary.notes.push(...notes);
            }
            for (const e of task.entries) apply(ledger, e, o.kind === 'confirm' ? { ...o, sent: task.sent.get(e.seq) ?? null, ...(notes ? { note: 'pushed unlinked' as const } : {}) } : o, summary);
            if (o.kind === 'confirm' && task.method === 'POST') versions.seen(task.resource, (o.remote ?? {}) as Rec);
            if (o.kind === 'confirm' && task.method === 'DELETE') versions.forget(task.resource, task.id);
          }
        });
      };
      const run = async (task: Task) => {
        if (stop || opts.signal?.aborted) return;
        started_.add(task);
        let res: JsonAnswer;
        try {
          res = await api.call(task.method, task.path, task.body);
        } catch (e) {
          if (!(e instanceof SyncError)) throw e;
          stop ??= e.message;
          if (e.uncertain) uncertain.push([task, e.message]);
          else started_.delete(task); // refused unseen (the key): not applied
          return;
        }
        const o = await outcomeOf(api, task, res);
        if (o.kind === 'stop') {
          stop ??= o.error;
          uncertain.push([task, o.error]);
          return;
        }
        summary.requests += o.kind === 'confirm' && o.note === 'pushed' ? 1 : 0;
        results.push([task, o]);
        if (results.length >= RECORD_EVERY) record();
        done += task.entries.length;
        progress('sending');
      };
      const isStopped = () => stop !== null || !!opts.signal?.aborted;
      for (const order of [0, 1, 2, 3] as const) {
        let group = tasks.filter((x) => x.order === order);
        if (order === 3 && group.length && !isStopped()) {
          // The updates' answers recorded, the platform's rows for them are read, then named.
          record();
          await made.settle();
          for (const task of group) made.fill(task, unlinked);
          const held = group.filter((task) => made.stillLocal(task));
          group = group.filter((task) => !held.includes(task));
          inTransaction(db, () => {
            for (const task of held) {
              for (const e of task.entries) {
                ledger.unsent(e.seq);
                ledger.waits(e.seq, 'waits for the change it names to be pushed');
              }
              started_.add(task); // not "unsent" again below
            }
          });
        }
        // Creates and deletes one after another, in the order they were made; updates in parallel.
        await pool(group, order === 1 ? concurrency : 1, run, isStopped);
      }
      record();
      inTransaction(db, () => {
        for (const [task, why] of uncertain) for (const e of task.entries) ledger.uncertain(e.seq, why);
        for (const task of tasks) if (!started_.has(task)) for (const e of task.entries) ledger.unsent(e.seq);
      });
      if (stop || opts.signal?.aborted) {
        summary.stopped = stop ?? 'cancelled';
        break;
      }
    }
    if (!opts.dryRun && !summary.stopped) markPushed(db);
  } catch (e) {
    // The origin could not be read (no answer, the key refused): nothing was sent in this batch.
    if (!(e instanceof SyncError)) throw e;
    summary.stopped = e.message;
  } finally {
    release();
    await client.close();
  }
  summary.left = counts(db);
  summary.ms = Math.round(performance.now() - started);
  return summary;
}

function tally(s: PushSummary, o: Outcome): void {
  if (o.kind === 'confirm') {
    s.pushed++;
    if (o.note !== 'pushed' && o.note !== 'pushed unlinked') s.already++;
  } else if (o.kind === 'conflict') s.conflicts++;
  else s.failed++;
}

function apply(ledger: Ledger, e: OutboxRow, o: Outcome, s: PushSummary): void {
  tally(s, o);
  if (o.kind === 'confirm') ledger.confirm(e.seq, o.sent, o.note);
  else if (o.kind === 'conflict') ledger.conflict(e.seq, o.theirs, o.at);
  else ledger.fail(e.seq, o.error);
}
