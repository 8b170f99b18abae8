// The incident lists in hand, one per view (an instance, or 'all'), so the view and the actions
// reach the same source, and a change can be shown on their rows before the server has it.
import type { Row, RowSource } from './source';

export const rowKey = (r: Row): string => `${r._instance.id}:${r.id}`;

const cache = new Map<string, RowSource>();
const unsubs = new Map<string, () => void>();
const listeners = new Set<() => void>();
let version = 0;

const emit = () => {
  version++;
  for (const l of listeners) l();
};

/** Hears every change of the lists in hand (rows arriving: what actions apply may change). */
export function subscribeLists(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export const listsVersion = (): number => version;

export function cachedSource(view: string): RowSource | null {
  return cache.get(view) ?? null;
}

/** Makes `source` the view's list; the previous one stays readable, its requests in flight stop. */
export function rememberSource(view: string, source: RowSource): void {
  const prev = cache.get(view);
  if (prev && prev !== source) prev.dispose();
  unsubs.get(view)?.();
  cache.set(view, source);
  unsubs.set(view, source.subscribe(emit));
  emit();
}

/** Shows a change on every cached list's rows before the server has it. */
export function patchIncidentRows(patch: ReadonlyMap<string, Partial<Row>>): void {
  for (const s of cache.values()) s.patch(rowKey, patch);
}
