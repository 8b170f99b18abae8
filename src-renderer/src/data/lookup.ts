// Labels of related records (an incident's asset name, its finding type's title), fetched with
// one search per instance and resource for every id asked in the same moment, and cached.
import { useSyncExternalStore } from 'react';
import { getResource } from '../../../src-shared/resources/index';
import { emptySearch } from '../../../src-shared/schemas/search';
import { search } from '../api/radar';
import { targetOf } from '../state/instances';
import { useSession } from '../state/session';

type Entry = string | null | undefined; // undefined: not asked yet; null: not found

const cache = new Map<string, Map<string, Entry>>();
const queued = new Map<string, { instance: string; resource: string; ids: Set<string> }>();
const listeners = new Set<() => void>();
let version = 0;
let scheduled = false;

const bucketKey = (instance: string, resource: string) => `${instance}|${resource}`;

function bucket(instance: string, resource: string): Map<string, Entry> {
  const k = bucketKey(instance, resource);
  let m = cache.get(k);
  if (!m) cache.set(k, (m = new Map()));
  return m;
}

function emit(): void {
  version++;
  for (const l of listeners) l();
}

/** Ids asked in one request at most (the largest page a search answers). */
const BATCH = 10_000;

async function flush(): Promise<void> {
  scheduled = false;
  const api = useSession.getState().api;
  const jobs = [...queued.values()];
  queued.clear();
  if (!api) return;
  // One request per instance and resource (more only past 10,000 ids), all sent at once: the
  // labels of a resource arrive together, in one redraw, whatever their number.
  await Promise.all(
    jobs.flatMap((job) => {
      const r = getResource(job.resource);
      const ids = [...job.ids];
      const m = bucket(job.instance, job.resource);
      const parts: string[][] = [];
      for (let i = 0; i < ids.length; i += BATCH) parts.push(ids.slice(i, i + BATCH));
      return parts.map(async (part) => {
        try {
          const page = await search(api, targetOf(job.instance), job.resource, {
            ...emptySearch(part.length),
            include_fields: ['id', r.label],
            filters: [{ field: 'id', filter_type: 'intersection', value: part }],
          });
          for (const id of part) m.set(id, null);
          for (const it of page.items) m.set(it.id, it[r.label] === null || it[r.label] === undefined ? '' : String(it[r.label]));
        } catch {
          for (const id of part) m.delete(id);
        }
        emit();
      });
    }),
  );
}

export function requestLabel(instance: string, resource: string, id: string): void {
  const m = bucket(instance, resource);
  if (m.has(id)) return;
  m.set(id, undefined);
  const k = bucketKey(instance, resource);
  let q = queued.get(k);
  if (!q) queued.set(k, (q = { instance, resource, ids: new Set() }));
  q.ids.add(id);
  if (!scheduled) {
    scheduled = true;
    setTimeout(() => void flush(), 0);
  }
}

export function peekLabel(instance: string, resource: string, id: string): Entry {
  return cache.get(bucketKey(instance, resource))?.get(id);
}

/** Remembers a label the console already knows (e.g. from a picker). */
export function rememberLabel(instance: string, resource: string, id: string, label: string): void {
  bucket(instance, resource).set(id, label);
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** Re-renders on every arrival of labels (a view that reads many of them without hooks). */
export function useLabelsVersion(): number {
  return useSyncExternalStore(subscribe, () => version);
}

/** A label, followed: its component is drawn again when that label arrives (not at every arrival). */
export function useLabel(instance: string, resource: string, id: string | null | undefined): Entry {
  const v = useSyncExternalStore(subscribe, () => (id ? peekLabel(instance, resource, id) : null));
  if (!id) return null;
  if (v === undefined && !bucket(instance, resource).has(id)) requestLabel(instance, resource, id);
  return v;
}

export function clearLabels(): void {
  cache.clear();
  emit();
}
