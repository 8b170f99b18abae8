// Names for user uuids and the responsible groups, per instance. A local database answers its
// people directory (/console/v1/people); a remote platform has none, so its names are the ones
// its public API gives (an incident's user_short_name), learned as incidents are read. The local
// analyst (the session's `me`) is known everywhere.
import { create } from 'zustand';
import { emptySearch } from '../../../src-shared/schemas/search';
import type { Person } from '../../../src-shared/schemas/people';
import { people as fetchPeople, publicList, search } from '../api/radar';
import { targetOf } from './instances';
import { useSession } from './session';

export interface Group {
  id: string;
  name: string;
  user_ids: string[];
}

interface Directory {
  people: Person[];
  groups: Group[];
  /** Names learned from the public API (remote instances). */
  learned: Record<string, string>;
  loaded: boolean;
}

interface PeopleState {
  dirs: Record<string, Directory>;
  /** Bumped when any name arrives (table rows read names without hooks). */
  version: number;
  load(instance: string): Promise<void>;
  /** Asks an instance's public API for the name of a user uuid it does not list. */
  learn(instance: string, userId: string): void;
}

const EMPTY: Directory = { people: [], groups: [], learned: {}, loaded: false };
const loading = new Set<string>();
const asked = new Set<string>();

export const usePeople = create<PeopleState>((set, get) => ({
  dirs: {},
  version: 0,
  async load(instance) {
    const api = useSession.getState().api;
    if (!api || loading.has(instance)) return;
    loading.add(instance);
    const target = targetOf(instance);
    try {
      const [people, groups] = await Promise.all([
        fetchPeople(api, target).catch(() => [] as Person[]),
        search(api, target, 'responsible_groups', { ...emptySearch(1000), include_fields: ['id', 'name', 'user_ids'], ordering: [{ field: 'name', direction: 'asc' }] })
          .then((p) => p.items.map((g) => ({ id: g.id, name: String(g.name ?? ''), user_ids: Array.isArray(g.user_ids) ? (g.user_ids as string[]) : [] })))
          .catch(() => [] as Group[]),
      ]);
      const prev = get().dirs[instance] ?? EMPTY;
      set({ dirs: { ...get().dirs, [instance]: { ...prev, people, groups, loaded: true } }, version: get().version + 1 });
    } finally {
      loading.delete(instance);
    }
  },
  learn(instance, userId) {
    const key = `${instance}|${userId}`;
    if (asked.has(key)) return;
    asked.add(key);
    const api = useSession.getState().api;
    if (!api) return;
    void publicList(api, targetOf(instance), 'incidents', `user_id=eq,${encodeURIComponent(userId)}&per_page=1`)
      .then((page) => {
        const name = page.items[0]?.user_short_name;
        if (typeof name !== 'string' || !name) return;
        const prev = get().dirs[instance] ?? EMPTY;
        set({ dirs: { ...get().dirs, [instance]: { ...prev, learned: { ...prev.learned, [userId]: name } } }, version: get().version + 1 });
      })
      .catch(() => {});
  },
}));

/** A user's name as lists show it, or undefined while unknown (then it is asked for). */
export function personName(instance: string, userId: string | null | undefined, full = false): string | undefined {
  if (!userId) return undefined;
  const me = useSession.getState().me;
  if (me && me.id === userId) return full ? me.name : me.short_name;
  const dir = usePeople.getState().dirs[instance];
  const p = dir?.people.find((x) => x.id === userId);
  if (p) return full ? p.name : p.short_name;
  const learned = dir?.learned[userId];
  if (learned) return learned;
  if (dir?.loaded) usePeople.getState().learn(instance, userId);
  return undefined;
}

export function groupName(instance: string, groupId: string | null | undefined): string | undefined {
  if (!groupId) return undefined;
  return usePeople.getState().dirs[instance]?.groups.find((g) => g.id === groupId)?.name;
}

/** The groups of an instance the local analyst belongs to. */
export function myGroups(instance: string): string[] {
  const me = useSession.getState().me?.id;
  if (!me) return [];
  return (usePeople.getState().dirs[instance]?.groups ?? []).filter((g) => g.user_ids.includes(me)).map((g) => g.id);
}

/** Everyone an instance knows, the local analyst first. */
export function peopleOf(instance: string): Person[] {
  const me = useSession.getState().me;
  const dir = usePeople.getState().dirs[instance];
  const others = (dir?.people ?? []).filter((p) => p.id !== me?.id);
  return me ? [me, ...others] : others;
}
