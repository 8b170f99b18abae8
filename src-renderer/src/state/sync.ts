// Snapshot instances and their changes waiting for the platform: counts per instance (the
// switcher shows them), the incidents with changes (the incident list marks them), read again
// after every change made in the console and every few seconds.
import { create } from 'zustand';
import type { SyncCounts } from '../../../src-shared/schemas/sync';
import { pendingRecords, syncInstances } from '../api/sync';
import { useChanges } from './changes';
import { useInstances } from './instances';
import { checkAuth, useSession } from './session';

const EVERY_MS = 10_000;

export interface SnapshotInfo {
  id: string;
  name: string;
  origin: string;
  counts: SyncCounts;
  running: boolean;
}

interface SyncState {
  /** Snapshot instances by id (the main one under its id too). */
  snapshots: Record<string, SnapshotInfo>;
  /** Incident ids with changes waiting, per snapshot instance id. */
  pending: Record<string, ReadonlySet<string>>;
  loaded: boolean;
  load(): Promise<void>;
}

export const useSync = create<SyncState>((set) => ({
  snapshots: {},
  pending: {},
  loaded: false,
  async load() {
    const api = useSession.getState().api;
    if (!api) return;
    try {
      const list = await syncInstances(api);
      const snapshots: Record<string, SnapshotInfo> = {};
      const pending: Record<string, ReadonlySet<string>> = {};
      for (const s of list) {
        snapshots[s.id] = { id: s.id, name: s.name, origin: s.origin_url, counts: s.counts, running: !!s.running };
        pending[s.id] = new Set(s.counts.total ? await pendingRecords(api, s.id, 'service_asset_findings') : []);
      }
      set({ snapshots, pending, loaded: true });
    } catch (e) {
      checkAuth(e);
      set({ loaded: true });
    }
  },
}));

let watching = false;

/** Keeps the counts current: now, after each change made in the console, and every few seconds. */
export function watchSync(): void {
  if (watching) return;
  watching = true;
  void useSync.getState().load();
  useChanges.subscribe((s, prev) => {
    if (s.seq !== prev.seq) void useSync.getState().load();
  });
  setInterval(() => {
    if (!document.hidden) void useSync.getState().load();
  }, EVERY_MS);
}

/** The snapshot record of a row's instance ('main' is the main instance's id). */
export function snapshotOf(instanceId: string): SnapshotInfo | undefined {
  const { mainId } = useInstances.getState();
  const id = instanceId === 'main' ? (mainId ?? 'main') : instanceId;
  return useSync.getState().snapshots[id];
}

/** Whether an incident of that instance has changes waiting for the platform. */
export function usePendingMark(instanceId: string, incidentId: string): boolean {
  const mainId = useInstances((s) => s.mainId);
  const id = instanceId === 'main' ? (mainId ?? 'main') : instanceId;
  return useSync((s) => s.pending[id]?.has(incidentId) ?? false);
}
