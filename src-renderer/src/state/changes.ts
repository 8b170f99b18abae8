// Changes to incidents (status, risk, owner, responsible group), one, a selection, or every
// incident of a selected query. A change is first held for a few seconds with a countdown: the
// rows show it at once, Undo in that window sends nothing at all (no status-change rows, no
// acknowledged or reopened dates). Then the bulk runner (state/bulk.ts) sends it in chunks through
// mass_update (which runs the status-change side effects per incident), with progress,
// per-incident failures and Cancel. What its instance did not answer for is kept in the queue of
// waiting changes (state/queue.ts) and sent once it answers; what was refused stays listed there
// with its reason. A status change may carry a reason and a comment: they become a message linked
// to each new status-change row. A change already sent can be reverted: each incident gets its
// previous value back, as a new change.
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { patchIncidentRows, cachedSource, rowKey } from '../data/listCache';
import type { InstanceTag, Row } from '../data/source';
import {
  CHANGE_FIELD,
  runBulk,
  fieldValue,
  type Batch,
  type BulkItem,
  type BulkOutcome,
  type BulkProgress,
  type BulkTarget,
  type ChangeKind,
  type ChangeNote,
  type ChangeValue,
} from './bulk';
import { answering } from './connection';
import { instancesOf, useInstances } from './instances';
import { onQueueSent, queueId, storedScope, useQueue, type QueueEntry } from './queue';
import { useTriage, type RowRef, type Scope } from './triage';

export { CHANGE_FIELD, type ChangeKind, type ChangeNote, type ChangeValue } from './bulk';

/** What a change covers: incidents one by one, or a whole selected query. */
export type ChangeTarget = { refs: RowRef[] } | { scope: Scope };

export const targetSize = (t: ChangeTarget): number => ('refs' in t ? t.refs.length : Math.max(0, t.scope.total - t.scope.except.size));

export interface PendingChange {
  id: number;
  kind: ChangeKind;
  value: ChangeValue;
  target: ChangeTarget;
  note?: ChangeNote;
  /** The new value in the user's words ("Closed", "7.5 High", "Анна Захарова"). */
  label: string;
  /** When it is sent (ms), and how long it is held. */
  deadline: number;
  holdMs: number;
  /** Rows of a selected query shown changed, with their values before (to show them back on Undo). */
  shownBefore?: Map<string, ChangeValue>;
}

export interface Running {
  kind: ChangeKind;
  revert: boolean;
  phase: BulkProgress['phase'];
  done: number;
  total: number;
  failed: number;
  cancelling: boolean;
}

export interface ChangeEntry {
  instance: InstanceTag;
  id: string;
  before: ChangeValue;
}

export interface SentChange {
  kind: ChangeKind;
  value: ChangeValue;
  label: string;
  entries: ChangeEntry[];
  at: number;
}

export interface ChangeResult {
  ok: number;
  /** `gone`: the incident no longer existed (deleted by someone else meanwhile), as the list names it. */
  failed: { id: string; reason: string; gone?: string }[];
  cancelled: number;
  /** Kept waiting for an instance that did not answer. */
  queued: number;
  /** The waiting changes they became (the notice about them goes once they are sent or undone). */
  queuedIds: string[];
}

/** Incidents per mass_update call (incidents given one by one). */
export { CHUNK } from './bulk';
/** How long a change is held before it is sent. */
export const HOLD_MS = 5_000;

interface ChangesState {
  pending: PendingChange | null;
  running: Running | null;
  /** The last change sent, for Revert. */
  last: SentChange | null;
  /** The waiting changes the last change became (Undo removes them: nothing is sent). */
  lastQueued: { ids: string[]; at: number } | null;
  /** The outcome of the last send (for the notice that reports it). */
  result: { kind: ChangeKind; revert: boolean; label: string; res: ChangeResult } | null;
  /** Bumped after every change sent, so lists, counts and details read again. */
  seq: number;
  /** Holds a change (a change already held is sent at once). */
  apply(kind: ChangeKind, value: ChangeValue, target: ChangeTarget | readonly RowRef[], opts: { label: string; note?: ChangeNote }): void;
  /** Sends the held change now. */
  sendNow(): Promise<void>;
  /** Undo: a held change or a waiting one is dropped (nothing is sent); else the last change sent is reverted. */
  undo(): Promise<'dropped' | 'reverted' | null>;
  /** Stops a change being sent after the chunk in flight. */
  cancel(): void;
}

/** What the earlier parts of a revert did (see commit). */
interface RevertCarry {
  res: ChangeResult;
  done: number;
  total: number;
}

let nextId = 0;
let holdTimer: ReturnType<typeof setTimeout> | undefined;
let abort: AbortController | null = null;
/** The change being sent and what is left of it, kept if the page goes away meanwhile. */
let inFlight: { p: PendingChange; revert: boolean } | null = null;

export const currentValue = (kind: ChangeKind, ref: RowRef): ChangeValue =>
  kind === 'status' ? ref.status : kind === 'risk' ? ref.risklevel : kind === 'owner' ? (ref.user_id ?? null) : (ref.group_id ?? null);

function refPatch(kind: ChangeKind, value: ChangeValue): Partial<RowRef> {
  switch (kind) {
    case 'status':
      return { status: String(value) };
    case 'risk':
      return { risklevel: Number(value) };
    case 'owner':
      return { user_id: value === null ? null : String(value) };
    case 'group':
      return { group_id: value === null ? null : String(value) };
  }
}

/** Shows values on the rows and the refs held, before (or instead of) the server's answer. */
function show(kind: ChangeKind, entries: { key: string; value: ChangeValue }[]): void {
  if (!entries.length) return;
  useTriage.getState().patchRefs(new Map(entries.map((e) => [e.key, refPatch(kind, e.value)])));
  patchIncidentRows(new Map(entries.map((e) => [e.key, { [CHANGE_FIELD[kind]]: e.value }])));
}

/** Shows a change on the loaded rows of a selected query's list; answers their values before. */
function showScope(kind: ChangeKind, value: ChangeValue, scope: Scope): Map<string, ChangeValue> {
  const before = new Map<string, ChangeValue>();
  const src = cachedSource(scope.view);
  const reach = src?.state().reachable ?? 0;
  for (let i = 0; src && i < reach; i++) {
    const r: Row | undefined = src.row(i);
    if (!r) continue;
    const key = rowKey(r);
    if (!scope.except.has(key)) before.set(key, fieldValue(kind, r));
  }
  show(kind, [...before.keys()].map((key) => ({ key, value })));
  return before;
}

function batchesOf(kind: ChangeKind, refs: readonly RowRef[]): Batch[] {
  const by = new Map<string, Batch>();
  for (const r of refs) {
    let b = by.get(r.instance.id);
    if (!b) by.set(r.instance.id, (b = { instance: r.instance, items: [] }));
    b.items.push({ id: r.id, display_id: r.display_id ?? null, title: r.title ?? null, before: currentValue(kind, r) });
  }
  return [...by.values()];
}

/** The waiting and refused changes an outcome leaves, for the queue. */
function queueEntries(p: Pick<PendingChange, 'kind' | 'value' | 'label' | 'note'>, out: BulkOutcome, revert: boolean): QueueEntry[] {
  const now = Date.now();
  const base = (instance: InstanceTag) => ({ instance: instance.id, instanceName: instance.name, kind: p.kind, value: p.value, label: p.label, note: revert ? undefined : p.note, madeAt: now });
  const entries: QueueEntry[] = [];
  const byInstance = new Map<string, { instance: InstanceTag; tried: BulkItem[]; untried: BulkItem[] }>();
  for (const u of out.unanswered) {
    let e = byInstance.get(u.instance.id);
    if (!e) byInstance.set(u.instance.id, (e = { instance: u.instance, tried: [], untried: [] }));
    (u.tried ? e.tried : e.untried).push(...u.items);
  }
  for (const { instance, tried, untried } of byInstance.values()) {
    const items = [...tried, ...untried];
    if (items.length) entries.push({ ...base(instance), id: queueId(), items, triedAt: tried.length ? now : null, state: 'waiting' });
  }
  for (const u of out.unread) entries.push({ ...base(u.instance), id: queueId(), items: [], scope: storedScope(u.scope), triedAt: null, state: 'waiting' });
  const failed = new Map<string, { instance: InstanceTag; items: QueueEntry['items'] }>();
  for (const f of out.failed) {
    let e = failed.get(f.instance.id);
    if (!e) failed.set(f.instance.id, (e = { instance: f.instance, items: [] }));
    e.items.push({ ...f.item, reason: f.reason });
  }
  for (const f of failed.values()) entries.push({ ...base(f.instance), id: queueId(), items: f.items, triedAt: now, state: 'failed' });
  return entries;
}

/** The mass operations' code of an incident that does not exist (deleted meanwhile). */
const MASS_NOT_FOUND = 11003;

const canTry = (instance: string) => answering(instance) !== false;

export const useChanges = create<ChangesState>((set, get) => {
  /**
   * Sends one change and reports it. `carry`: the earlier parts of the same revert (one part per
   * previous value), whose counts the progress and the notice go on from.
   */
  async function commit(p: PendingChange, revert: boolean, target: BulkTarget, shownBefore?: Map<string, ChangeValue>, carry?: RevertCarry): Promise<ChangeResult> {
    const size = 'batches' in target ? target.batches.reduce((n, b) => n + b.items.length, 0) : targetSize({ scope: target.scope });
    abort = new AbortController();
    inFlight = { p, revert };
    const base = { done: carry?.done ?? 0, failed: carry?.res.failed.length ?? 0 };
    set({ running: { kind: p.kind, revert, phase: 'batches' in target ? 'sending' : 'reading', done: base.done, total: carry?.total ?? size, failed: base.failed, cancelling: false }, result: null });
    let out: BulkOutcome;
    try {
      out = await runBulk({ kind: p.kind, value: p.value, note: revert ? undefined : p.note }, target, {
        signal: abort.signal,
        answering: canTry,
        onProgress: (pr) => set({ running: { ...get().running!, phase: pr.phase, done: base.done + pr.done, total: carry?.total ?? pr.total, failed: base.failed + pr.failed } }),
      });
    } catch (e) {
      // Reading a selected query was refused: nothing was sent; the rows show their values again.
      out = { ok: [], failed: [], unanswered: [], unread: [], notSent: [] };
      if ('scope' in target) {
        const reason = e instanceof Error ? e.message : String(e);
        set({ result: { kind: p.kind, revert, label: p.label, res: { ok: 0, failed: [{ id: '', reason }], cancelled: 0, queued: 0, queuedIds: [] } } });
      }
    } finally {
      abort = null;
      inFlight = null;
    }
    // Waiting ones keep showing the new value (marked waiting); refused and cancelled ones show
    // their value again, on the rows and in the selection too.
    const keyOf = (instance: InstanceTag, id: string) => `${instance.id}:${id}`;
    const back: { key: string; value: ChangeValue }[] = [];
    for (const f of out.failed) back.push({ key: keyOf(f.instance, f.item.id), value: f.item.before });
    for (const n of out.notSent) for (const it of n.items) back.push({ key: keyOf(n.instance, it.id), value: it.before });
    if (shownBefore) {
      const reached = new Set(out.ok.map((o) => keyOf(o.instance, o.item.id)));
      for (const u of out.unanswered) for (const it of u.items) reached.add(keyOf(u.instance, it.id));
      for (const [key, value] of shownBefore) if (!reached.has(key)) back.push({ key, value });
    }
    show(p.kind, back);
    // An instance behind the routing port that did not answer is tested at once (its banner says so).
    for (const id of new Set([...out.unanswered, ...out.unread].map((u) => u.instance.id))) if (id !== 'main') void useInstances.getState().check(id);
    const queued = queueEntries(p, out, revert);
    useQueue.getState().add(queued);
    const waiting = queued.filter((q) => q.state === 'waiting');
    const queuedCount = waiting.reduce((n, q) => n + (q.scope ? Math.max(0, q.scope.total - q.scope.except.length) : q.items.length), 0);
    if (waiting.length) set({ lastQueued: { ids: waiting.map((q) => q.id), at: Date.now() } });
    if (revert) {
      // A revert cut short can be taken up again for the incidents it did not reach.
      const prev = get().last;
      const done = new Set(out.ok.map((o) => keyOf(o.instance, o.item.id)));
      const left = prev ? prev.entries.filter((e) => !done.has(keyOf(e.instance, e.id))) : [];
      set({ last: prev && left.length ? { ...prev, entries: left } : null });
    } else if (out.ok.length) {
      set({ last: { kind: p.kind, value: p.value, label: p.label, at: Date.now(), entries: out.ok.map((o) => ({ instance: o.instance, id: o.item.id, before: o.item.before })) } });
    }
    const prevResult = get().result;
    const res: ChangeResult = {
      ok: (carry?.res.ok ?? 0) + out.ok.length,
      failed: [...(carry?.res.failed ?? []), ...(prevResult?.res.failed.filter((f) => f.id === '') ?? []), ...out.failed.map((f) => ({ id: f.item.id, reason: f.reason, ...(f.code === MASS_NOT_FOUND ? { gone: f.item.display_id !== null ? `#${f.item.display_id}` : (f.item.title ?? f.item.id) } : {}) }))],
      cancelled: (carry?.res.cancelled ?? 0) + out.notSent.reduce((n, x) => n + x.items.length, 0),
      queued: (carry?.res.queued ?? 0) + queuedCount,
      queuedIds: [...(carry?.res.queuedIds ?? []), ...waiting.map((q) => q.id)],
    };
    // Every incident of a selected query was changed: nothing is left to select.
    if ('scope' in target && !out.failed.length && !out.notSent.length && !out.unanswered.length && !out.unread.length) useTriage.getState().clearSelection(target.scope.view);
    set({ result: { kind: p.kind, revert, label: p.label, res }, seq: get().seq + 1, running: null });
    return res;
  }

  return {
    pending: null,
    running: null,
    last: null,
    lastQueued: null,
    result: null,
    seq: 0,
    apply(kind, value, t, opts) {
      if (get().pending) void get().sendNow();
      const target: ChangeTarget = Array.isArray(t) ? { refs: [...(t as readonly RowRef[])] } : (t as ChangeTarget);
      const p: PendingChange = { id: ++nextId, kind, value, target, note: opts.note, label: opts.label, deadline: Date.now() + HOLD_MS, holdMs: HOLD_MS };
      if ('refs' in target) show(kind, target.refs.map((ref) => ({ key: ref.key, value })));
      else p.shownBefore = showScope(kind, value, target.scope);
      set({ pending: p });
      clearTimeout(holdTimer);
      holdTimer = setTimeout(() => void get().sendNow(), HOLD_MS);
    },
    async sendNow() {
      const p = get().pending;
      if (!p) return;
      clearTimeout(holdTimer);
      set({ pending: null });
      // The refs hold the values before the change (they were patched for display only).
      const target: BulkTarget = 'refs' in p.target ? { batches: batchesOf(p.kind, p.target.refs) } : { scope: p.target.scope };
      await commit(p, false, target, p.shownBefore);
    },
    async undo() {
      const p = get().pending;
      if (p) {
        clearTimeout(holdTimer);
        set({ pending: null });
        if ('refs' in p.target) show(p.kind, p.target.refs.map((ref) => ({ key: ref.key, value: currentValue(p.kind, ref) })));
        else if (p.shownBefore) show(p.kind, [...p.shownBefore].map(([key, value]) => ({ key, value })));
        return 'dropped';
      }
      const q = get().lastQueued;
      const last = get().last;
      const waiting = q ? useQueue.getState().entries.filter((e) => q.ids.includes(e.id) && e.state === 'waiting' && useQueue.getState().sending !== e.id) : [];
      if (q && waiting.length && (!last || q.at >= last.at)) {
        for (const e of waiting) useQueue.getState().remove(e.id);
        set({ lastQueued: null });
        return 'dropped';
      }
      if (!last || get().running) return null;
      const groups = new Map<string, Batch[]>();
      for (const e of last.entries) {
        const k = JSON.stringify(e.before);
        if (!groups.has(k)) groups.set(k, []);
        const list = groups.get(k)!;
        let b = list.find((x) => x.instance.id === e.instance.id);
        if (!b) list.push((b = { instance: e.instance, items: [] }));
        b.items.push({ id: e.id, display_id: null, title: null, before: last.value });
      }
      show(last.kind, last.entries.map((e) => ({ key: `${e.instance.id}:${e.id}`, value: e.before })));
      const p0: PendingChange = { id: ++nextId, kind: last.kind, value: null, target: { refs: [] }, label: last.label, deadline: Date.now(), holdMs: 0 };
      // One revert, sent in one part per previous value: one progress and one notice for all of it;
      // cancelled, the parts not yet sent are not sent either (their rows show the value again).
      let carry: RevertCarry = { res: { ok: 0, failed: [], cancelled: 0, queued: 0, queuedIds: [] }, done: 0, total: last.entries.length };
      for (const [k, batches] of groups) {
        const n = batches.reduce((m, b) => m + b.items.length, 0);
        if (carry.res.cancelled > 0) {
          show(last.kind, batches.flatMap((b) => b.items.map((it) => ({ key: `${b.instance.id}:${it.id}`, value: last.value }))));
          carry = { ...carry, res: { ...carry.res, cancelled: carry.res.cancelled + n } };
          const r = get().result;
          if (r) set({ result: { ...r, res: carry.res } });
          continue;
        }
        const res = await commit({ ...p0, value: JSON.parse(k) as ChangeValue }, true, { batches }, undefined, carry);
        carry = { res, done: carry.done + n, total: carry.total };
      }
      return 'reverted';
    },
    cancel() {
      if (!abort) return;
      abort.abort();
      const r = get().running;
      if (r) set({ running: { ...r, cancelling: true } });
    },
  };
});

// Waiting changes sent: lists, counts and details read again, as after any change.
onQueueSent(() => useChanges.setState((s) => ({ seq: s.seq + 1 })));

/** Whether Undo applies: a held change, a waiting one made last, or a change sent. */
export function canUndo(s: Pick<ChangesState, 'pending' | 'last' | 'running' | 'lastQueued'>): boolean {
  if (s.pending) return true;
  if (s.lastQueued && useQueue.getState().entries.some((e) => s.lastQueued!.ids.includes(e.id) && e.state === 'waiting')) return true;
  return s.last !== null && s.running === null;
}

/**
 * The page going away keeps what was not sent: a held change, and a change being sent (its
 * incidents are checked before they are sent again), go to the queue of waiting changes.
 */
export function guardUnload(): () => void {
  const on = () => {
    const st = useChanges.getState();
    const keep: QueueEntry[] = [];
    const now = Date.now();
    const entriesOf = (p: PendingChange, tried: boolean) => {
      if ('refs' in p.target) {
        for (const b of batchesOf(p.kind, p.target.refs)) {
          keep.push({ id: queueId(), instance: b.instance.id, instanceName: b.instance.name, kind: p.kind, value: p.value, label: p.label, note: p.note, items: b.items, madeAt: now, triedAt: tried ? now : null, state: 'waiting' });
        }
      } else {
        const sc = p.target.scope;
        for (const tag of instancesOf(sc.view, useInstances.getState()).filter((x) => !sc.only || x.id === sc.only)) {
          keep.push({ id: queueId(), instance: tag.id, instanceName: tag.name, kind: p.kind, value: p.value, label: p.label, note: p.note, items: [], scope: storedScope(sc), madeAt: now, triedAt: tried ? now : null, state: 'waiting' });
        }
      }
    };
    if (st.pending) entriesOf(st.pending, false);
    if (inFlight && !inFlight.revert) entriesOf(inFlight.p, true);
    if (keep.length) {
      clearTimeout(holdTimer);
      useChanges.setState({ pending: null });
      useQueue.getState().add(keep);
    }
  };
  window.addEventListener('pagehide', on);
  return () => window.removeEventListener('pagehide', on);
}

/** Reads the rows of `source` again whenever data was written (a change, an undo, an import). */
export function useRefreshOnChanges(source: { refresh(): void } | null | undefined): void {
  const seq = useChanges((s) => s.seq);
  const seen = useRef(seq);
  useEffect(() => {
    if (seen.current !== seq) {
      seen.current = seq;
      source?.refresh();
    }
  }, [seq, source]);
}

/** A change's failure notice belongs to the page it was raised on, like the other error notices. */
export function dropFailedResult(): void {
  const r = useChanges.getState().result;
  if (r && (r.res.failed.length > 0 || r.res.cancelled > 0)) useChanges.setState({ result: null });
}
