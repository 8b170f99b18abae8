// The instances the console can show (main, local databases, remote platforms), their health,
// and the one selected ('all' = every instance, merged).
import { create } from 'zustand';
import type { InstanceView } from '../../../src-shared/schemas/instances';
import { MAIN, type Target } from '../api/client';
import { health as fetchHealth, instances as fetchInstances, type Health } from '../api/radar';
import type { InstanceTag } from '../data/source';
import { checkAuth, useSession } from './session';

const STORAGE_KEY = 'radar-console.instance';

/** 'main' until the main instance's id is known, then the ids; 'all' for the fan-out. */
export type Selection = 'main' | 'all' | string;

interface InstancesState {
  list: InstanceView[];
  mainId: string | null;
  loaded: boolean;
  error: string | null;
  health: Record<string, Health>;
  healthLoading: boolean;
  selected: Selection;
  load(): Promise<void>;
  refreshHealth(): Promise<void>;
  select(id: Selection): void;
}

export const useInstances = create<InstancesState>((set, get) => ({
  list: [],
  mainId: null,
  loaded: false,
  error: null,
  health: {},
  healthLoading: false,
  selected: localStorage.getItem(STORAGE_KEY) ?? 'main',
  async load() {
    const api = useSession.getState().api;
    if (!api) return;
    try {
      const list = await fetchInstances(api);
      const main = list.find((i) => i.kind === 'main') ?? null;
      let selected = get().selected;
      if (main && selected === main.id) selected = 'main';
      if (selected !== 'main' && selected !== 'all' && !list.some((i) => i.id === selected)) selected = 'main';
      set({ list, mainId: main?.id ?? null, loaded: true, error: null, selected });
      void get().refreshHealth();
    } catch (e) {
      checkAuth(e);
      set({ error: e instanceof Error ? e.message : String(e), loaded: true });
    }
  },
  async refreshHealth() {
    const api = useSession.getState().api;
    if (!api) return;
    set({ healthLoading: true });
    try {
      const rows = await fetchHealth(api);
      set({ health: Object.fromEntries(rows.map((r) => [r.id, r])), healthLoading: false });
    } catch (e) {
      checkAuth(e);
      set({ healthLoading: false });
    }
  },
  select(id) {
    const mainId = get().mainId;
    const sel = mainId && id === mainId ? 'main' : id;
    localStorage.setItem(STORAGE_KEY, sel);
    set({ selected: sel });
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
