// Changes to incidents (status, risk, owner, responsible group), one or many. A change is first
// held for a few seconds with a countdown: the rows show it at once, Undo in that window sends
// nothing at all (no status-change rows, no acknowledged or reopened dates). Then it is sent in
// chunks through mass_update (which runs the status-change side effects per incident), with
// progress, per-incident failures and Cancel. A status change may carry a reason and a comment:
// they become a message linked to each new status-change row, in the same operation (the typed
// client's incidents.setStatus: one request on a local instance; on a remote platform, the rows
// it made are read before and after, never guessed from this machine's clock). A change already sent can be
// reverted: each incident gets its previous value back, as a new change.
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { ApiFailure } from '../api/client';
import { massUpdate } from '../api/radar';
import type { IncidentStatus } from '../../../src-shared/resources/fields';
import { patchIncidentRows } from '../data/listCache';
import { targetOf } from './instances';
import { useSession } from './session';
import { useTriage, type RowRef } from './triage';

export type ChangeKind = 'status' | 'risk' | 'owner' | 'group';

/** The incident field each kind of change writes. */
export const CHANGE_FIELD: Record<ChangeKind, 'status' | 'risklevel' | 'user_id' | 'group_id'> = {
  status: 'status',
  risk: 'risklevel',
  owner: 'user_id',
  group: 'group_id',
};

export type ChangeValue = string | number | null;

/** Why a status was set: a reason from the short list and free text, kept as a message. */
export interface ChangeNote {
  /** The message's subject (the reason in the user's words, or the change itself). */
  subject: string;
  body: string;
}

export interface PendingChange {
  id: number;
  kind: ChangeKind;
  value: ChangeValue;
  refs: RowRef[];
  note?: ChangeNote;
  /** The new value in the user's words ("Closed", "7.5 High", "Анна Захарова"). */
  label: string;
  /** When it is sent (ms). */
  deadline: number;
}

export interface Running {
  kind: ChangeKind;
  revert: boolean;
  done: number;
  total: number;
  failed: number;
  cancelling: boolean;
}

export interface ChangeEntry {
  ref: RowRef;
  before: ChangeValue;
}

export interface SentChange {
  kind: ChangeKind;
  value: ChangeValue;
  label: string;
  entries: ChangeEntry[];
}

export interface ChangeResult {
  ok: number;
  failed: { ref: RowRef; code: number; reason: string }[];
  cancelled: number;
  /** The incidents not sent because the change was cancelled (they keep their value). */
  notSent: RowRef[];
}

/** Incidents per mass_update call. */
export const CHUNK = 100;
/** How long a change is held before it is sent. */
export const HOLD_MS = 5_000;

interface ChangesState {
  pending: PendingChange | null;
  running: Running | null;
  /** The last change sent, for Revert. */
  last: SentChange | null;
  /** The outcome of the last send (for the notice that reports it). */
  result: { kind: ChangeKind; revert: boolean; label: string; res: ChangeResult } | null;
  /** Bumped after every change sent, so lists, counts and details read again. */
  seq: number;
  /** Holds a change (a change already held is sent at once). */
  apply(kind: ChangeKind, value: ChangeValue, refs: readonly RowRef[], opts: { label: string; note?: ChangeNote }): void;
  /** Sends the held change now. */
  sendNow(): Promise<void>;
  /** Undo: a held change is dropped (nothing is sent); else the last change sent is reverted. */
  undo(): Promise<'dropped' | 'reverted' | null>;
  /** Stops a change being sent after the chunk in flight. */
  cancel(): void;
}

let nextId = 0;
let holdTimer: ReturnType<typeof setTimeout> | undefined;
let abort: AbortController | null = null;

const currentValue = (kind: ChangeKind, ref: RowRef): ChangeValue =>
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
function show(kind: ChangeKind, entries: { ref: RowRef; value: ChangeValue }[]): void {
  const refs = new Map(entries.map((e) => [e.ref.key, refPatch(kind, e.value)]));
  useTriage.getState().patchRefs(refs);
  patchIncidentRows(new Map(entries.map((e) => [e.ref.key, { [CHANGE_FIELD[kind]]: e.value }])));
}

const reasonOf = (code: number, e?: unknown): string =>
  e instanceof ApiFailure ? `${e.status}${e.message ? ` ${e.message}` : ''}` : code === 11003 ? 'not found' : code === 12012 ? 'not a uuid' : `code ${code}`;

async function send(
  kind: ChangeKind,
  groups: { value: ChangeValue; refs: RowRef[] }[],
  note: ChangeNote | undefined,
  signal: AbortSignal,
  onProgress: (done: number, failed: number) => void,
): Promise<ChangeResult> {
  const api = useSession.getState().api;
  if (!api) throw new Error('not signed in');
  const result: ChangeResult = { ok: 0, failed: [], cancelled: 0, notSent: [] };
  let done = 0;
  for (const g of groups) {
    const byInstance = new Map<string, RowRef[]>();
    for (const r of g.refs) byInstance.set(r.instance.id, [...(byInstance.get(r.instance.id) ?? []), r]);
    for (const [instance, refs] of byInstance) {
      for (let i = 0; i < refs.length; i += CHUNK) {
        const chunk = refs.slice(i, i + CHUNK);
        if (signal.aborted) {
          result.cancelled += chunk.length;
          result.notSent.push(...chunk);
          continue;
        }
        try {
          // A status goes with its reason in one operation (the typed client's setStatus).
          const res =
            kind === 'status'
              ? await setStatus(api, instance, chunk, String(g.value), note)
              : await massUpdate(api, targetOf(instance), 'service_asset_findings', chunk.map((r) => r.id), CHANGE_FIELD[kind], g.value);
          const codes = new Map(res.map((x) => [x.id.toLowerCase(), x.error_code]));
          const ok: RowRef[] = [];
          for (const r of chunk) {
            const code = codes.get(r.id.toLowerCase()) ?? -1;
            if (code === 0) ok.push(r);
            else result.failed.push({ ref: r, code, reason: reasonOf(code) });
          }
          result.ok += ok.length;
        } catch (e) {
          for (const r of chunk) result.failed.push({ ref: r, code: -1, reason: reasonOf(-1, e) });
        }
        done += chunk.length;
        onProgress(done, result.failed.length);
      }
    }
  }
  return result;
}

/** A status with its reason (a message linked to each new status-change row), one chunk of one instance. */
async function setStatus(api: NonNullable<ReturnType<typeof useSession.getState>['api']>, instance: string, refs: RowRef[], status: string, note: ChangeNote | undefined) {
  const before = new Map(refs.map((r) => [r.id.toLowerCase(), r.status]));
  const senderId = useSession.getState().me?.id ?? null;
  const answer = await api.run(undefined, undefined, () => api.on(targetOf(instance)).incidents.setStatus(refs.map((r) => r.id), status as IncidentStatus, note, { before, senderId }));
  return answer.results;
}

export const useChanges = create<ChangesState>((set, get) => {
  async function commit(p: PendingChange, revert: boolean, groups: { value: ChangeValue; refs: RowRef[] }[]): Promise<ChangeResult> {
    const total = groups.reduce((n, g) => n + g.refs.length, 0);
    abort = new AbortController();
    set({ running: { kind: p.kind, revert, done: 0, total, failed: 0, cancelling: false }, result: null });
    try {
      const res = await send(p.kind, groups, revert ? undefined : p.note, abort.signal, (done, failed) =>
        set({ running: { ...get().running!, done, failed } }),
      );
      // Only the incidents the server changed count as changed: the ones that failed or were
      // not sent (cancelled) keep their value, on the rows and in the selection too.
      const okKeys = new Set(p.refs.map((r) => r.key));
      const kept = [...res.failed.map((f) => f.ref), ...res.notSent];
      for (const r of kept) okKeys.delete(r.key);
      if (kept.length) show(p.kind, kept.map((ref) => ({ ref, value: currentValue(p.kind, ref) })));
      const entries = groups.flatMap((g) => g.refs.filter((r) => okKeys.has(r.key)).map((ref) => ({ ref, value: g.value })));
      if (revert) {
        // A revert cut short can be taken up again for the incidents it did not reach.
        const prev = get().last;
        const left = prev ? prev.entries.filter((e) => !okKeys.has(e.ref.key)) : [];
        set({ last: prev && left.length ? { ...prev, entries: left } : null });
      } else if (entries.length) set({ last: { kind: p.kind, value: p.value, label: p.label, entries: p.refs.filter((r) => okKeys.has(r.key)).map((ref) => ({ ref, before: currentValue(p.kind, ref) })) } });
      set({ result: { kind: p.kind, revert, label: p.label, res }, seq: get().seq + 1 });
      return res;
    } finally {
      abort = null;
      set({ running: null });
    }
  }

  return {
    pending: null,
    running: null,
    last: null,
    result: null,
    seq: 0,
    apply(kind, value, refs, opts) {
      if (get().pending) void get().sendNow();
      const p: PendingChange = { id: ++nextId, kind, value, refs: [...refs], note: opts.note, label: opts.label, deadline: Date.now() + HOLD_MS };
      set({ pending: p });
      show(kind, p.refs.map((ref) => ({ ref, value })));
      clearTimeout(holdTimer);
      holdTimer = setTimeout(() => void get().sendNow(), HOLD_MS);
    },
    async sendNow() {
      const p = get().pending;
      if (!p) return;
      clearTimeout(holdTimer);
      set({ pending: null });
      // The refs hold the values before the change (they were patched for display only).
      await commit(p, false, [{ value: p.value, refs: p.refs }]);
    },
    async undo() {
      const p = get().pending;
      if (p) {
        clearTimeout(holdTimer);
        set({ pending: null });
        show(p.kind, p.refs.map((ref) => ({ ref, value: currentValue(p.kind, ref) })));
        return 'dropped';
      }
      const last = get().last;
      if (!last || get().running) return null;
      const groups = new Map<string, { value: ChangeValue; refs: RowRef[] }>();
      for (const e of last.entries) {
        const k = JSON.stringify(e.before);
        if (!groups.has(k)) groups.set(k, { value: e.before, refs: [] });
        groups.get(k)!.refs.push({ ...e.ref, ...refPatch(last.kind, last.value) });
      }
      show(last.kind, last.entries.map((e) => ({ ref: e.ref, value: e.before })));
      await commit({ id: ++nextId, kind: last.kind, value: null, refs: last.entries.map((e) => e.ref), label: last.label, deadline: Date.now() }, true, [...groups.values()]);
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

/** A held change is sent before the page goes away (the browser asks the user to wait). */
export function guardUnload(): () => void {
  const on = (e: BeforeUnloadEvent) => {
    if (!useChanges.getState().pending && !useChanges.getState().running) return;
    void useChanges.getState().sendNow();
    e.preventDefault();
  };
  window.addEventListener('beforeunload', on);
  return () => window.removeEventListener('beforeunload', on);
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
