// Saved views of the incident list, per instance (kept in localStorage): a name and the list's
// address query; one of them may be the instance's default, opened when the list is opened
// without a query of its own.
import { create } from 'zustand';

export interface SavedView {
  name: string;
  params: string;
  isDefault: boolean;
}

const KEY = 'radar-console.views';

function stored(): Record<string, SavedView[]> {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, SavedView[]>;
  } catch {
    return {};
  }
}

interface ViewsState {
  byInstance: Record<string, SavedView[]>;
  save(instance: string, name: string, params: string, isDefault: boolean): void;
  remove(instance: string, name: string): void;
  setDefault(instance: string, name: string | null): void;
}

export const useViews = create<ViewsState>((set, get) => {
  const put = (instance: string, list: SavedView[]) => {
    const byInstance = { ...get().byInstance, [instance]: list };
    localStorage.setItem(KEY, JSON.stringify(byInstance));
    set({ byInstance });
  };
  return {
    byInstance: stored(),
    save(instance, name, params, isDefault) {
      const others = (get().byInstance[instance] ?? []).filter((v) => v.name !== name).map((v) => (isDefault ? { ...v, isDefault: false } : v));
      put(instance, [...others, { name, params, isDefault }]);
    },
    remove(instance, name) {
      put(instance, (get().byInstance[instance] ?? []).filter((v) => v.name !== name));
    },
    setDefault(instance, name) {
      put(instance, (get().byInstance[instance] ?? []).map((v) => ({ ...v, isDefault: v.name === name })));
    },
  };
});

export const defaultView = (instance: string): SavedView | undefined => useViews.getState().byInstance[instance]?.find((v) => v.isDefault);
