// The instances the console can show (main, local databases, remote platforms), their health,
// and the one selected ('all' = every instance, merged). The list follows the server (the
// heartbeat brings in changes made elsewhere, the CLI included); health is tested every few
// seconds, at once when a call to an instance finds it not answering, and on "Check again".
import { create } from 'zustand';
import type { InstanceInput, InstancePatch, InstanceView } from '../../../src-shared/schemas/instances';
import { MAIN, type Target } from '../api/client';
import { addInstance, health as fetchHealth, instances as fetchInstances, removeInstance, testInstance, updateInstance, type Health } from '../api/radar';
import type { InstanceTag } from '../data/source';
import { currentRoute, navigate, setLinkInstance } from '../router';
import { SELECTION_KEY, initialSelection } from './selection';
import { checkAuth, useSession } from './session';

/** Health is tested this often while the console is open. */
export const HEALTH_EVERY_MS = 6_000;

/** 'main' until the main instance's id is known, then the ids; 'all' for the fan-out. */
export type Selection = 'main' | 'all' | string;

interface InstancesState {
  list: InstanceView[];
  mainId: string | null;
  loaded: boolean;
  error: string | null;
  health: Record<string, Health>;
  healthLoading: boolean;
  /** When health was last tested (ms). */
  healthAt: number | null;
  selected: Selection;
  load(): Promise<void>;
  /** Takes a list the server answered (the heartbeat's); a change re-tests health. */
  merge(list: InstanceView[]): void;
  refreshHealth(): Promise<void>;
  /** Tests one instance now (a real call to it), updating its health. */
  check(id: string): Promise<Health | null>;
  /** Selects an instance; the list on screen follows (its address names the instance) unless the address chose it. */
  select(id: Selection, opts?: { fromAddress?: boolean }): void;
  add(input: InstanceInput): Promise<InstanceView>;
  update(id: string, patch: InstancePatch): Promise<InstanceView>;
  remove(id: string): Promise<void>;
}

const signature = (list: readonly InstanceView[]) => JSON.stringify(list);

export const useInstances = create<InstancesState>((set, get) => ({
  list: [],
  mainId: null,
  loaded: false,
  error: null,
  health: {},
  healthLoading: false,
  healthAt: null,
  selected: initialSelection(),
  async load() {
    const api = useSession.getState().api;
    if (!api) return;
    try {
      get().merge(await fetchInstances(api));
      void get().refreshHealth();
    } catch (e) {
      checkAuth(e);
      set({ error: e instanceof Error ? e.message : String(e), loaded: true });
    }
  },
  merge(list) {
    const changed = signature(list) !== signature(get().list);
    if (!changed && get().loaded) return;
    const main = list.find((i) => i.kind === 'main') ?? null;
    let selected = get().selected;
    if (main && selected === main.id) selected = 'main';
    if (selected !== 'main' && selected !== 'all' && !list.some((i) => i.id === selected)) selected = 'main';
    const wasLoaded = get().loaded;
    set({ list, mainId: main?.id ?? null, loaded: true, error: null, selected });
    if (wasLoaded) void get().refreshHealth();
  },
  async refreshHealth() {
    const api = useSession.getState().api;
    if (!api || get().healthLoading) return;
    set({ healthLoading: true });
    try {
      const rows = await fetchHealth(api);
      set({ health: Object.fromEntries(rows.map((r) => [r.id, r])), healthLoading: false, healthAt: Date.now() });
    } catch (e) {
      checkAuth(e);
      set({ healthLoading: false });
    }
  },
  async check(id) {
    const api = useSession.getState().api;
    if (!api) return null;
    const realId = id === 'main' ? (get().mainId ?? id) : id;
    try {
      const h = { id: realId, ...(await testInstance(api, realId)) };
      set({ health: { ...get().health, [realId]: h }, healthAt: Date.now() });
      return h;
    } catch (e) {
      checkAuth(e);
      return null;
    }
  },
  select(id, opts) {
    const mainId = get().mainId;
    const sel = mainId && id === mainId ? 'main' : id;
    localStorage.setItem(SELECTION_KEY, sel);
    const changed = sel !== get().selected;
    set({ selected: sel });
    if (!changed || opts?.fromAddress) return;
    // The list shown moves to the instance, and its address says so (an incident open on the
    // previous instance is closed).
    const r = currentRoute();
    const instance = sel === 'main' ? 'main' : sel;
    if (r.view === 'incidents') navigate({ view: 'incidents', params: r.params, instance });
    else if (r.view === 'resource') navigate({ view: 'resource', resource: r.resource, instance });
    else if (r.view === 'resources') navigate({ view: 'resources', instance });
  },
  async add(input) {
    const api = useSession.getState().api!;
    const v = await addInstance(api, input);
    await get().load();
    return v;
  },
  async update(id, patch) {
    const api = useSession.getState().api!;
    const v = await updateInstance(api, id, patch);
    await get().load();
    return v;
  },
  async remove(id) {
    const api = useSession.getState().api!;
    await removeInstance(api, id);
    if (get().selected === id) get().select('main');
    await get().load();
  },
}));

/** The call target of an instance id (or 'main'). */
export function targetOf(id: string): Target {
  const { mainId } = useInstances.getState();
  return id === 'main' || id === mainId ? MAIN : { kind: 'instance', id };
}

/** The instances a view reads: one, or every instance for 'all'. */
export function instancesOf(sel: Selection, s: Pick<InstancesState, 'list' | 'mainId'>): InstanceTag[] {
  if (sel === 'all') return s.list.map((i) => ({ id: i.kind === 'main' ? 'main' : i.id, name: i.name }));
  if (sel === 'main') return [{ id: 'main', name: s.list.find((i) => i.kind === 'main')?.name ?? '' }];
  const found = s.list.find((i) => i.id === sel);
  return [{ id: sel, name: found?.name ?? sel }];
}

/** The health of an instance by view id ('main' or an id). */
export function healthOf(id: string, s: Pick<InstancesState, 'health' | 'mainId'>): Health | undefined {
  return s.health[id === 'main' ? (s.mainId ?? '') : id];
}

/** Starts testing health every few seconds; answers the function that stops it. */
export function startHealthWatch(): () => void {
  const timer = setInterval(() => {
    if (!document.hidden) void useInstances.getState().refreshHealth();
  }, HEALTH_EVERY_MS);
  return () => clearInterval(timer);
}

// The lists' addresses carry the instance selected (router.ts hrefOf).
setLinkInstance(() => {
  const s = useInstances.getState().selected;
  return s === 'main' ? undefined : s;
});
