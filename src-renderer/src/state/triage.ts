// Incident triage state. The query lives in the address (views/incidents/url.ts); the rest here,
// per view (an instance id, 'main' or 'all'): the selection, the focused row, the incident open
// in the detail panel, when the view was last resolved (`asOf`: relative ranges are computed
// once per user action) and read (`seq`: one refresh reads rows, totals, chips and charts
// again), and the live list (interval, pause, new incidents announced and held back).
import { create } from 'zustand';
import type { InstanceTag } from '../data/source';
import { currentRoute, navigate, useRoute } from '../router';
import { emptyQuery, type IncidentQuery } from '../views/incidents/query';
import { queryFromParams, queryString } from '../views/incidents/url';

/** What an action needs to know about an incident row. */
export interface RowRef {
  key: string;
  id: string;
  instance: InstanceTag;
  status: string;
  risklevel: number;
  title?: string | null;
  display_id?: number | null;
  user_id?: string | null;
  group_id?: string | null;
}

export const LIVE_INTERVALS = [0, 10_000, 30_000, 60_000, 300_000] as const;
const LIVE_KEY = 'radar-console.live';

function storedLive(): { everyMs: number; paused: boolean } {
  try {
    const v = JSON.parse(localStorage.getItem(LIVE_KEY) ?? 'null') as { everyMs?: number; paused?: boolean } | null;
    const everyMs = (LIVE_INTERVALS as readonly number[]).includes(v?.everyMs ?? -1) ? v!.everyMs! : 30_000;
    return { everyMs, paused: v?.paused === true };
  } catch {
    return { everyMs: 30_000, paused: false };
  }
}

interface TriageState {
  selection: Record<string, ReadonlyMap<string, RowRef>>;
  focus: Record<string, number>;
  detail: RowRef | null;
  /** The instant the current query was resolved at (ms). */
  asOf: number;
  /** Bumped by every refresh. */
  seq: number;
  /** When the list was last read (ms), for "updated at". */
  readAt: number;
  live: { everyMs: number; paused: boolean };
  /** Per view: incidents matching it that arrived since it was read (announced, not shown). */
  fresh: Record<string, number>;
  /** Per view: the newest created_at shown; later incidents are held back while announced. */
  hold: Record<string, string | null>;
  /** Per view and instance: the newest created_at matching when the list was read. */
  marks: Record<string, Record<string, string | null>>;

  setQuery(update: (q: IncidentQuery) => IncidentQuery): void;
  refresh(): void;
  /** A refresh by the live list: the same, but the view's held state is kept. */
  liveRefresh(): void;
  announce(view: string, count: number, hold: string | null): void;
  setMarks(view: string, marks: Record<string, string | null>): void;
  setLive(live: Partial<TriageState['live']>): void;
  toggle(view: string, ref: RowRef): void;
  select(view: string, refs: readonly RowRef[], mode: 'add' | 'replace'): void;
  clearSelection(view: string): void;
  setFocus(view: string, index: number): void;
  openDetail(ref: RowRef | null): void;
  /** Updates the refs held (selection, detail) after a change. */
  patchRefs(patch: ReadonlyMap<string, Partial<RowRef>>): void;
}

let lastParams: string | undefined;
let lastQuery: IncidentQuery = emptyQuery();

/** The incident list's query, from the address. */
export function currentQuery(): IncidentQuery {
  const r = currentRoute();
  const params = r.view === 'incidents' ? (r.params ?? '') : '';
  if (params !== lastParams) {
    lastParams = params;
    lastQuery = queryFromParams(new URLSearchParams(params));
  }
  return lastQuery;
}

export const useTriage = create<TriageState>((set, get) => ({
  selection: {},
  focus: {},
  detail: null,
  asOf: Date.now(),
  seq: 0,
  readAt: Date.now(),
  live: storedLive(),
  fresh: {},
  hold: {},
  marks: {},

  setQuery(update) {
    const r = currentRoute();
    const next = update(currentQuery());
    const params = queryString(next);
    const base = r.view === 'incidents' ? r : { view: 'incidents' as const };
    navigate({ ...base, params: params || undefined }, r.view === 'incidents');
    set({ asOf: Date.now(), focus: {}, fresh: {}, hold: {}, marks: {} });
  },
  refresh() {
    const now = Date.now();
    set({ asOf: now, readAt: now, seq: get().seq + 1, fresh: {}, hold: {}, marks: {} });
  },
  liveRefresh() {
    const now = Date.now();
    set({ asOf: now, readAt: now, seq: get().seq + 1 });
  },
  announce(view, count, hold) {
    set({ fresh: { ...get().fresh, [view]: count }, hold: { ...get().hold, [view]: get().hold[view] ?? hold } });
  },
  setMarks(view, marks) {
    set({ marks: { ...get().marks, [view]: marks } });
  },
  setLive(live) {
    const next = { ...get().live, ...live };
    localStorage.setItem(LIVE_KEY, JSON.stringify(next));
    set({ live: next });
  },
  toggle(view, ref) {
    const next = new Map(get().selection[view] ?? []);
    if (next.has(ref.key)) next.delete(ref.key);
    else next.set(ref.key, ref);
    set({ selection: { ...get().selection, [view]: next } });
  },
  select(view, refs, mode) {
    const next = new Map(mode === 'add' ? (get().selection[view] ?? []) : []);
    for (const r of refs) next.set(r.key, r);
    set({ selection: { ...get().selection, [view]: next } });
  },
  clearSelection(view) {
    set({ selection: { ...get().selection, [view]: new Map() } });
  },
  setFocus(view, index) {
    set({ focus: { ...get().focus, [view]: Math.max(0, index) } });
  },
  openDetail(ref) {
    set({ detail: ref });
  },
  patchRefs(patch) {
    const selection: Record<string, ReadonlyMap<string, RowRef>> = {};
    for (const [view, m] of Object.entries(get().selection)) {
      selection[view] = new Map([...m].map(([k, r]) => [k, patch.has(k) ? { ...r, ...patch.get(k) } : r]));
    }
    const d = get().detail;
    set({ selection, detail: d && patch.has(d.key) ? { ...d, ...patch.get(d.key) } : d });
  },
}));

export const EMPTY_SELECTION: ReadonlyMap<string, RowRef> = new Map();

/** The incident list's query, re-rendering when the address changes. */
export function useQuery(): IncidentQuery {
  useRoute();
  return currentQuery();
}
