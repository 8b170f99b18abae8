// Incident triage state, per view (an instance, or 'all'): the query, the selection, the focused
// row and the incident open in the detail panel.
import { create } from 'zustand';
import type { InstanceTag } from '../data/source';
import { emptyQuery, type IncidentQuery } from '../views/incidents/query';

/** What an action needs to know about an incident row. */
export interface RowRef {
  key: string;
  id: string;
  instance: InstanceTag;
  status: string;
  risklevel: number;
  title?: string | null;
  display_id?: number | null;
}

const QUERIES_KEY = 'radar-console.incidentQueries';

function loadQueries(): Record<string, IncidentQuery> {
  try {
    const raw = JSON.parse(sessionStorage.getItem(QUERIES_KEY) ?? '{}') as Record<string, Partial<IncidentQuery>>;
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, { ...emptyQuery(), ...v }]));
  } catch {
    return {};
  }
}

interface IncidentsState {
  queries: Record<string, IncidentQuery>;
  selection: Record<string, ReadonlyMap<string, RowRef>>;
  focus: Record<string, number>;
  detail: RowRef | null;
  setQuery(view: string, update: (q: IncidentQuery) => IncidentQuery): void;
  toggle(view: string, ref: RowRef): void;
  select(view: string, refs: readonly RowRef[], mode: 'add' | 'replace'): void;
  clearSelection(view: string): void;
  setFocus(view: string, index: number): void;
  openDetail(ref: RowRef | null): void;
  /** Updates the refs held (selection, detail) after a change of status or risk. */
  patchRefs(patch: ReadonlyMap<string, Partial<RowRef>>): void;
}

export const useIncidents = create<IncidentsState>((set, get) => ({
  queries: loadQueries(),
  selection: {},
  focus: {},
  detail: null,
  setQuery(view, update) {
    const queries = { ...get().queries, [view]: update(get().queries[view] ?? emptyQuery()) };
    sessionStorage.setItem(QUERIES_KEY, JSON.stringify(queries));
    set({ queries, focus: { ...get().focus, [view]: 0 } });
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
