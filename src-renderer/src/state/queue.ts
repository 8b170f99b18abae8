// Changes waiting to be sent: a change made while its instance does not answer (or whose request
// got no answer) is kept here, per instance, in localStorage, so a reload keeps it; the rows show
// it as waiting and the list of waiting changes shows them all. When the instance answers, each is
// sent once: the incidents' values are read first, as a sync push does, so a request whose answer
// was lost is not applied twice (an incident that already has the new value counts as sent, and a
// status change's note is written once), and an incident changed meanwhile by someone else is a
// conflict listed with what it holds now. A change refused for a reason stays listed with it and
// can be sent again; a waiting change can be undone until it is sent (nothing is sent then).
import { create } from 'zustand';
import { ApiFailure, isAbort } from '../api/client';
import { i18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { failureText, type Row } from '../data/source';
import type { IncidentQuery } from '../views/incidents/query';
import {
  CHANGE_FIELD,
  CHUNK,
  emptyOutcome,
  ensureNotes,
  readCurrent,
  readScope,
  sameValue,
  sendItems,
  fieldValue,
  type BulkItem,
  type ChangeKind,
  type ChangeNote,
  type ChangeValue,
} from './bulk';
import { answering, useConnection } from './connection';
import { displayName } from '../lib/instanceName';
import { useInstances } from './instances';
import { checkAuth, useSession } from './session';
import type { Scope } from './triage';
import { useUi } from './ui';

const PREFIX = 'radar-console.queue.';

export interface QueuedItem extends BulkItem {
  /** Why it was not applied (refused), in the words of the moment. */
  reason?: string;
  /** Changed meanwhile by someone else: the value it holds now. */
  found?: ChangeValue;
  conflict?: boolean;
}

/** A selected query kept as it was selected (its incidents are read when it is sent). */
export interface StoredScope {
  view: string;
  query: IncidentQuery;
  extra: Scope['extra'];
  only?: string;
  asOf: number;
  until: string | null;
  total: number;
  except: string[];
}

export interface QueueEntry {
  id: string;
  /** The instance ('main' or an instance id) and its name when the change was made. */
  instance: string;
  instanceName: string;
  kind: ChangeKind;
  value: ChangeValue;
  /** The new value in the user's words. */
  label: string;
  note?: ChangeNote;
  items: QueuedItem[];
  /** A whole selected query whose incidents could not be read yet. */
  scope?: StoredScope;
  madeAt: number;
  /** When a request carrying it first went out (its answer may have been lost). */
  triedAt: number | null;
  state: 'waiting' | 'failed';
  /** Sent again as chosen after a conflict (the values found are overwritten). */
  force?: boolean;
  /** Kept for this tab only: the browser refused to store it (too large). */
  unsaved?: boolean;
}

interface QueueState {
  entries: QueueEntry[];
  /** The entry being sent now. */
  sending: string | null;
  /** The list of waiting changes is open. */
  open: boolean;
  setOpen(open: boolean): void;
  add(entries: QueueEntry[]): void;
  /** Undo (a waiting change: nothing is sent) or discard (a refused one). */
  remove(id: string): void;
  /** Sends a refused change again (a conflict overwrites the values found). */
  retry(id: string): void;
  /** Sends the waiting changes of an instance (every instance when omitted) that answers. */
  flush(instance?: string): Promise<void>;
}

const newId = (): string => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);
export { newId as queueId };

function readStored(): QueueEntry[] {
  const out: QueueEntry[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (!k?.startsWith(PREFIX)) continue;
    try {
      const list = JSON.parse(localStorage.getItem(k) ?? '[]') as QueueEntry[];
      if (Array.isArray(list)) out.push(...list);
    } catch {
      // A damaged entry list is left as it is for the user to see in the storage; not read.
    }
  }
  return out.sort((a, b) => a.madeAt - b.madeAt);
}

/** Writes one instance's entries; the ones the browser cannot store are marked (kept in memory). */
function persist(entries: QueueEntry[], instance: string): QueueEntry[] {
  const mine = entries.filter((e) => e.instance === instance);
  const key = PREFIX + instance;
  try {
    if (mine.length) localStorage.setItem(key, JSON.stringify(mine.map(({ unsaved: _u, ...e }) => e)));
    else localStorage.removeItem(key);
    return entries.map((e) => (e.instance === instance && e.unsaved ? { ...e, unsaved: false } : e));
  } catch {
    return entries.map((e) => (e.instance === instance ? { ...e, unsaved: true } : e));
  }
}

function persistAll(entries: QueueEntry[], instances: Iterable<string>): QueueEntry[] {
  let out = entries;
  for (const i of new Set(instances)) out = persist(out, i);
  return out;
}

/** The incident field a waiting change shows on its rows, by row key. */
export function queuedOverlay(entries: readonly QueueEntry[]): Map<string, Partial<Row>> {
  const m = new Map<string, Partial<Row>>();
  for (const e of entries) {
    if (e.state !== 'waiting') continue;
    for (const it of e.items) {
      const key = `${e.instance}:${it.id}`;
      m.set(key, { ...m.get(key), [CHANGE_FIELD[e.kind]]: e.value });
    }
  }
  return m;
}

let marksOf: { entries: readonly QueueEntry[]; marks: Map<string, 'waiting' | 'failed'>; kinds: Map<string, string> } | null = null;

/** 'waiting' or 'failed' per row key (a waiting change wins); kept while the list is the same. */
export function queuedMarks(entries: readonly QueueEntry[]): Map<string, 'waiting' | 'failed'> {
  if (marksOf?.entries === entries) return marksOf.marks;
  const m = new Map<string, 'waiting' | 'failed'>();
  const kinds = new Map<string, string>();
  for (const e of entries) {
    for (const it of e.items) {
      const key = `${e.instance}:${it.id}`;
      if (e.state === 'waiting' || !m.has(key)) m.set(key, e.state);
      if (e.state === 'waiting') kinds.set(key, `${kinds.get(key) ?? ''} q-${e.kind}`);
    }
  }
  marksOf = { entries, marks: m, kinds };
  return m;
}

/** The row classes naming the fields a waiting change covers (` q-status q-risk`), by row key. */
export function queuedKinds(entries: readonly QueueEntry[]): Map<string, string> {
  queuedMarks(entries);
  return marksOf!.kinds;
}

export const queuedCount = (e: QueueEntry): number => (e.scope ? Math.max(0, e.scope.total - e.scope.except.length) : e.items.length);

export function storedScope(s: Scope): StoredScope {
  return { view: s.view, query: s.query, extra: s.extra, only: s.only, asOf: s.asOf, until: s.until, total: s.total, except: [...s.except] };
}

function scopeOfStored(s: StoredScope): Scope {
  return { view: s.view, query: s.query, key: '', extra: s.extra, only: s.only, asOf: s.asOf, until: s.until, total: s.total, except: new Set(s.except) };
}

/** Runs `fn` while holding the instance's queue (one tab sends it at a time); skips when another tab does. */
async function exclusive(instance: string, fn: () => Promise<void>): Promise<void> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return fn();
  await locks.request(`${PREFIX}${instance}`, { ifAvailable: true }, async (lock) => {
    if (lock) await fn();
  });
}

type Sent = { sent: number; failed: number; stopped: boolean };

let sentListener: () => void = () => {};
/** Hears when waiting changes were sent (the lists, counts and details read again). */
export function onQueueSent(l: () => void): void {
  sentListener = l;
}

/**
 * After a try that got no answer, a waiting change is tried again by itself only this much later:
 * an instance that answers reads but not writes (a proxy refusing them, a write lock) would
 * otherwise be asked twice a second, each try reading the incidents again.
 */
export const RETRY_AFTER_MS = 3_000;
let dueOf: (e: QueueEntry) => boolean = () => true;

export const useQueue = create<QueueState>((set, get) => {
  /** Replaces one entry by the ones it became (none when it was sent), and stores the instance's list. */
  function settle(id: string, instance: string, next: QueueEntry[]): void {
    const entries = get().entries.flatMap((e) => (e.id === id ? next : [e]));
    set({ entries: persist(entries, instance) });
  }

  /** When each waiting change was last tried without an answer (this page's tries). */
  const lastTry = new Map<string, number>();
  /** Whether a waiting change may be tried again by itself (a try the user asks for always may). */
  const due = (e: QueueEntry): boolean => Date.now() - Math.max(lastTry.get(e.id) ?? 0, e.triedAt ?? 0) >= RETRY_AFTER_MS;
  dueOf = due;

  async function sendEntry(entry: QueueEntry): Promise<Sent> {
    const tag = { id: entry.instance, name: entry.instanceName };
    const change = { kind: entry.kind, value: entry.value, note: entry.note };
    let items: QueuedItem[] = entry.items;
    if (entry.scope) {
      items = await readScope(scopeOfStored(entry.scope), tag, entry.kind, undefined, () => {});
      // The query's incidents are known now: kept as items (a lost answer is then checked like any other).
      settle(entry.id, entry.instance, [{ ...entry, scope: undefined, items }]);
      entry = { ...entry, scope: undefined, items };
    }
    const current = await readCurrent(entry.instance, items.map((i) => i.id), entry.kind);
    const failed: QueuedItem[] = [];
    const applied: QueuedItem[] = [];
    const toSend: QueuedItem[] = [];
    for (const it of items) {
      const rec = current.get(it.id.toLowerCase());
      if (!rec) {
        failed.push({ ...it, reason: i18n.t('queue.reasons.notFound'), conflict: false });
        continue;
      }
      const now = fieldValue(entry.kind, rec);
      if (sameValue(now, entry.value)) applied.push(it);
      else if (entry.force || sameValue(now, it.before)) toSend.push({ ...it, before: entry.force ? now : it.before });
      else failed.push({ ...it, reason: undefined, found: now, conflict: true });
    }
    if (entry.note && entry.kind === 'status' && applied.length) await ensureNotes(entry.instance, applied, String(entry.value), entry.note);
    const out = emptyOutcome();
    await sendItems(change, tag, toSend, { signal: new AbortController().signal, chunk: CHUNK, onChunk: () => {} }, out);
    for (const f of out.failed) failed.push({ ...f.item, reason: f.reason });
    const waiting = out.unanswered.flatMap((u) => u.items);
    const tried = out.unanswered.some((u) => u.tried);
    const next: QueueEntry[] = [];
    if (failed.length) next.push({ ...entry, id: newId(), items: failed, state: 'failed', force: false });
    if (waiting.length) next.push({ ...entry, items: waiting, triedAt: entry.triedAt ?? (tried ? Date.now() : null) });
    settle(entry.id, entry.instance, next);
    return { sent: out.ok.length + applied.length, failed: failed.length, stopped: waiting.length > 0 };
  }

  return {
    entries: readStored(),
    sending: null,
    open: false,
    setOpen(open) {
      set({ open });
    },
    add(entries) {
      if (!entries.length) return;
      const all = [...get().entries, ...entries].sort((a, b) => a.madeAt - b.madeAt);
      set({ entries: persistAll(all, entries.map((e) => e.instance)) });
    },
    remove(id) {
      const e = get().entries.find((x) => x.id === id);
      if (!e || get().sending === id) return;
      set({ entries: persist(get().entries.filter((x) => x.id !== id), e.instance) });
    },
    retry(id) {
      const e = get().entries.find((x) => x.id === id);
      if (!e || e.state !== 'failed') return;
      const conflict = e.items.some((i) => i.conflict);
      const items = e.items.map(({ reason: _r, found: _f, conflict: _c, ...it }) => it);
      const entries = get().entries.map((x) => (x.id === id ? { ...x, state: 'waiting' as const, items, force: conflict, madeAt: x.madeAt } : x));
      set({ entries: persist(entries, e.instance) });
      void get().flush(e.instance);
    },
    async flush(instance) {
      // Asked for one instance (Send now, Retry): every waiting change of it; by itself (the
      // instance answers again, the timer): the ones not tried in the last RETRY_AFTER_MS.
      const auto = instance === undefined;
      const instances = instance ? [instance] : [...new Set(get().entries.filter((e) => e.state === 'waiting').map((e) => e.instance))];
      for (const inst of instances) {
        if (!useSession.getState().api || !answering(inst)) continue;
        await exclusive(inst, async () => {
          // Another tab may have sent (or added) changes meanwhile: the stored list is the truth.
          const others = get().entries.filter((e) => e.instance !== inst);
          const stored = readStored().filter((e) => e.instance === inst);
          const memOnly = get().entries.filter((e) => e.instance === inst && e.unsaved && !stored.some((s) => s.id === e.id));
          set({ entries: [...others, ...stored, ...memOnly].sort((a, b) => a.madeAt - b.madeAt) });
          let sent = 0;
          let failed = 0;
          let changes = 0;
          for (;;) {
            const entry = get().entries.find((e) => e.instance === inst && e.state === 'waiting' && (!auto || due(e)));
            if (!entry || !answering(inst)) break;
            set({ sending: entry.id });
            try {
              const r = await sendEntry(entry);
              sent += r.sent;
              failed += r.failed;
              changes++;
              if (r.stopped) {
                lastTry.set(entry.id, Date.now());
                break;
              }
            } catch (e) {
              // Not answered: it stays waiting for the next try. Refused: listed with the reason.
              if (isAbort(e) || (e instanceof ApiFailure && e.unreachable)) {
                lastTry.set(entry.id, Date.now());
                break;
              }
              checkAuth(e);
              if (e instanceof ApiFailure && e.status === 401) break;
              const reason = failureText(e);
              settle(entry.id, inst, [{ ...entry, id: newId(), state: 'failed', items: entry.items.map((it) => ({ ...it, reason })) }]);
              failed += queuedCount(entry);
            } finally {
              set({ sending: null });
            }
          }
          if (changes) {
            sentListener();
            const found = useInstances.getState().list.find((i) => (inst === 'main' ? i.kind === 'main' : i.id === inst));
            const name = found ? displayName(found, i18n.t.bind(i18n)) : inst;
            if (sent) useUi.getState().notify('success', i18n.t('queue.sent', { count: sent, n: formatNumber(i18n.language === 'ru' ? 'ru' : 'en', sent), instance: name }));
            if (failed) useUi.getState().notify('error', i18n.t('queue.sentFailed', { count: failed, n: formatNumber(i18n.language === 'ru' ? 'ru' : 'en', failed) }), { id: 'queue.open', label: i18n.t('queue.show') });
          }
        });
      }
    },
  };
});

/** The waiting changes of every instance are sent as soon as it answers (and tried every few seconds). */
export function startQueue(): () => void {
  const kick = () => {
    if (useQueue.getState().entries.some((e) => e.state === 'waiting' && answering(e.instance) && dueOf(e)) && !useQueue.getState().sending) void useQueue.getState().flush();
  };
  const offs = [useConnection.subscribe(kick), useInstances.subscribe((s, prev) => s.health !== prev.health && kick())];
  const timer = setInterval(kick, 4_000);
  // Another tab added, sent or undid changes: its list is read here too.
  const onStorage = (e: StorageEvent) => {
    if (e.key?.startsWith(PREFIX) || e.key === null) {
      const mem = useQueue.getState().entries.filter((x) => x.unsaved);
      useQueue.setState({ entries: [...readStored(), ...mem].sort((a, b) => a.madeAt - b.madeAt) });
    }
  };
  window.addEventListener('storage', onStorage);
  kick();
  return () => {
    for (const off of offs) off();
    clearInterval(timer);
    window.removeEventListener('storage', onStorage);
  };
}
