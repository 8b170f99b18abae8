// Incident triage state. The query lives in the address (views/incidents/url.ts); the rest here,
// per view (an instance id, 'main' or 'all'): the selection, the focused row, the incident open
// in the detail panel, when the view was last resolved (`asOf`: relative ranges are computed
// once per user action) and read (`seq`: one refresh reads rows, totals, chips and charts
// again), and the live list (interval, pause, new incidents announced and held back).
import { create } from 'zustand';
import type { SearchFilter } from '../../../src-shared/schemas/search';
import type { InstanceTag } from '../data/source';
import { currentRoute, navigate, useRoute } from '../router';
import { emptyQuery, type IncidentQuery } from '../views/incidents/query';
import { queryKey } from '../views/incidents/query';
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

/**
 * "All N matching" selected: the whole query of a view (any N), not a list of rows. The query is
 * resolved as it was when the selection was made (relative ranges at `asOf`, nothing created
 * after it); rows unselected afterwards are left out. A bulk change reads its incidents when it
 * is sent (state/bulk.ts).
 */
export interface Scope {
  view: string;
  query: IncidentQuery;
  /** What the rows depend on (views/incidents/query.ts queryKey), to tell the query moved on. */
  key: string;
  /** More conditions (a group of the grouped list). */
  extra: SearchFilter[];
  /** One instance of the view only (a group of the grouped list of all instances). */
  only?: string;
  asOf: number;
  until: string | null;
  /** How many matched when it was made (or since, as the list read them again). */
  total: number;
  /** Row keys unselected since. */
  except: ReadonlySet<string>;
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
  /** Per view: the whole query selected ("all N matching"), instead of rows. */
  scope: Record<string, Scope | null>;
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

  /** Changes the list's query (the address); `push` makes it a step the Back button returns from. */
  setQuery(update: (q: IncidentQuery) => IncidentQuery, opts?: { push?: boolean }): void;
  refresh(): void;
  /** A refresh by the live list: the same, but the view's held state is kept. */
  liveRefresh(): void;
  announce(view: string, count: number, hold: string | null): void;
  setMarks(view: string, marks: Record<string, string | null>): void;
  setLive(live: Partial<TriageState['live']>): void;
  toggle(view: string, ref: RowRef): void;
  select(view: string, refs: readonly RowRef[], mode: 'add' | 'replace'): void;
  /** Selects the whole query of the view (every match, any number). */
  selectScope(view: string, scope: Omit<Scope, 'view' | 'except' | 'key'>): void;
  /** The list read again: how many the selected query matches now. */
  setScopeTotal(view: string, total: number): void;
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
  scope: {},
  focus: {},
  detail: null,
  asOf: Date.now(),
  seq: 0,
  readAt: Date.now(),
  live: storedLive(),
  fresh: {},
  hold: {},
  marks: {},

  setQuery(update, opts) {
    const r = currentRoute();
    const prev = currentQuery();
    const next = update(prev);
    const params = queryString(next);
    const base = r.view === 'incidents' ? r : { view: 'incidents' as const };
    navigate({ ...base, params: params || undefined }, r.view === 'incidents' && !opts?.push);
    // The same incidents in the same order (columns chosen, the address written again): the
    // cursor, the selection of every matching incident and the marks stay.
    if (r.view === 'incidents' && queryKey(next) === queryKey(prev) && next.groupBy === prev.groupBy) return;
    set({ asOf: Date.now(), focus: {}, fresh: {}, hold: {}, marks: {}, scope: {} });
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
    const sc = get().scope[view];
    if (sc) {
      const except = new Set(sc.except);
      if (except.has(ref.key)) except.delete(ref.key);
      else except.add(ref.key);
      set({ scope: { ...get().scope, [view]: { ...sc, except } } });
      return;
    }
    const next = new Map(get().selection[view] ?? []);
    if (next.has(ref.key)) next.delete(ref.key);
    else next.set(ref.key, ref);
    set({ selection: { ...get().selection, [view]: next } });
  },
  select(view, refs, mode) {
    const next = new Map(mode === 'add' ? (get().selection[view] ?? []) : []);
    for (const r of refs) next.set(r.key, r);
    set({ selection: { ...get().selection, [view]: next }, scope: { ...get().scope, [view]: null } });
  },
  selectScope(view, scope) {
    set({
      selection: { ...get().selection, [view]: new Map() },
      scope: { ...get().scope, [view]: { ...scope, view, key: `${queryKey(scope.query)}|${JSON.stringify(scope.extra)}`, except: new Set() } },
    });
  },
  setScopeTotal(view, total) {
    const sc = get().scope[view];
    if (sc && sc.total !== total) set({ scope: { ...get().scope, [view]: { ...sc, total } } });
  },
  clearSelection(view) {
    set({ selection: { ...get().selection, [view]: new Map() }, scope: { ...get().scope, [view]: null } });
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

/** The view's selected query, while the list still shows that query. */
export function scopeOf(view: string, s: Pick<TriageState, 'scope'> = useTriage.getState()): Scope | null {
  const sc = s.scope[view];
  if (!sc) return null;
  return sc.key.startsWith(`${queryKey(currentQuery())}|`) ? sc : null;
}

/** How many a selected query covers now. */
export const scopeCount = (sc: Scope): number => Math.max(0, sc.total - sc.except.size);

/** What the table asks of a selection: whether a row is in it, and how many are. */
export interface SelectionLike {
  has(key: string): boolean;
  readonly size: number;
}

/** A selected query as the table sees it (every row of the list but the ones unselected). */
export function scopeSelection(sc: Scope): SelectionLike {
  return { has: (key) => !sc.except.has(key), size: scopeCount(sc) };
}

/** The incident list's query, re-rendering when the address changes. */
export function useQuery(): IncidentQuery {
  useRoute();
  return currentQuery();
}
