// Status and risk changes of incidents, one or many: sent in chunks through mass_update (which
// runs the status-change side effects per incident), with progress, per-incident failures, and
// the undo of the last change (each incident gets back its own previous value).
import { useEffect, useRef } from 'react';
import { create } from 'zustand';
import { riskBand } from '../../../src-shared/resources/fields';
import { massUpdate } from '../api/radar';
import type { RowRef } from './incidents';
import { useIncidents } from './incidents';
import { targetOf } from './instances';
import { checkAuth, useSession } from './session';

export type ChangeKind = 'status' | 'risk';

export interface ChangeEntry {
  ref: RowRef;
  before: string | number;
}

export interface LastChange {
  kind: ChangeKind;
  value: string | number;
  entries: ChangeEntry[];
}

export interface Progress {
  kind: ChangeKind;
  undo: boolean;
  done: number;
  total: number;
  failed: number;
}

export interface ChangeResult {
  ok: number;
  failed: { ref: RowRef; code: number }[];
}

/** Incidents per mass_update call. */
export const CHUNK = 100;

interface ChangesState {
  progress: Progress | null;
  last: LastChange | null;
  /** Bumped after every change, so lists, counts and details read again. */
  seq: number;
  apply(kind: ChangeKind, value: string | number, refs: readonly RowRef[]): Promise<ChangeResult>;
  undo(): Promise<ChangeResult | null>;
}

const fieldOf = (kind: ChangeKind) => (kind === 'status' ? 'status' : 'risklevel');

async function send(
  kind: ChangeKind,
  groups: { value: string | number; refs: RowRef[] }[],
  onProgress: (done: number, failed: number) => void,
): Promise<ChangeResult> {
  const api = useSession.getState().api;
  if (!api) throw new Error('not signed in');
  const result: ChangeResult = { ok: 0, failed: [] };
  let done = 0;
  for (const g of groups) {
    const byInstance = new Map<string, RowRef[]>();
    for (const r of g.refs) byInstance.set(r.instance.id, [...(byInstance.get(r.instance.id) ?? []), r]);
    for (const [instance, refs] of byInstance) {
      for (let i = 0; i < refs.length; i += CHUNK) {
        const chunk = refs.slice(i, i + CHUNK);
        try {
          const res = await massUpdate(api, targetOf(instance), 'service_asset_findings', chunk.map((r) => r.id), fieldOf(kind), g.value);
          const codes = new Map(res.map((x) => [x.id.toLowerCase(), x.error_code]));
          for (const r of chunk) {
            const code = codes.get(r.id.toLowerCase()) ?? -1;
            if (code === 0) result.ok++;
            else result.failed.push({ ref: r, code });
          }
        } catch (e) {
          checkAuth(e);
          for (const r of chunk) result.failed.push({ ref: r, code: -1 });
        }
        done += chunk.length;
        onProgress(done, result.failed.length);
      }
    }
  }
  return result;
}

function patchFor(kind: ChangeKind, value: string | number): Partial<RowRef> {
  return kind === 'status' ? { status: String(value) } : { risklevel: Number(value) };
}

export const useChanges = create<ChangesState>((set, get) => ({
  progress: null,
  last: null,
  seq: 0,
  async apply(kind, value, refs) {
    const total = refs.length;
    set({ progress: { kind, undo: false, done: 0, total, failed: 0 } });
    try {
      const res = await send(kind, [{ value, refs: [...refs] }], (done, failed) => set({ progress: { kind, undo: false, done, total, failed } }));
      const failedKeys = new Set(res.failed.map((f) => f.ref.key));
      const changed = refs.filter((r) => !failedKeys.has(r.key));
      const entries = changed.map((ref) => ({ ref, before: kind === 'status' ? ref.status : ref.risklevel }));
      useIncidents.getState().patchRefs(new Map(changed.map((r) => [r.key, patchFor(kind, value)])));
      set({ last: entries.length ? { kind, value, entries } : get().last, seq: get().seq + 1 });
      return res;
    } finally {
      set({ progress: null });
    }
  },
  async undo() {
    const last = get().last;
    if (!last) return null;
    const groups = new Map<string | number, RowRef[]>();
    for (const e of last.entries) groups.set(e.before, [...(groups.get(e.before) ?? []), e.ref]);
    const total = last.entries.length;
    set({ progress: { kind: last.kind, undo: true, done: 0, total, failed: 0 } });
    try {
      const res = await send(
        last.kind,
        [...groups].map(([value, refs]) => ({ value, refs })),
        (done, failed) => set({ progress: { kind: last.kind, undo: true, done, total, failed } }),
      );
      const failedKeys = new Set(res.failed.map((f) => f.ref.key));
      useIncidents
        .getState()
        .patchRefs(new Map(last.entries.filter((e) => !failedKeys.has(e.ref.key)).map((e) => [e.ref.key, patchFor(last.kind, e.before)])));
      set({ last: null, seq: get().seq + 1 });
      return res;
    } finally {
      set({ progress: null });
    }
  },
}));

export const bandOf = (level: number): string => riskBand(level);

/** Reads the rows of `source` again whenever data was written (a change, an undo, an import). */
export function useRefreshOnChanges(source: { refresh(): void } | null | undefined): void {
  const seq = useChanges((s) => s.seq);
  const seen = useRef(seq);
  useEffect(() => {
    if (seen.current !== seq) {
      seen.current = seq;
      source?.refresh();
    }
  }, [seq, source]);
}
