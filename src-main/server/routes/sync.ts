// The console's sync endpoints (main port), for each snapshot instance (a local database
// copied from a platform, which remembers its origin), served from their declarations in the
// API contract (src-shared/contract/sync.ts):
//
//   GET    /console/v1/sync                              snapshot instances with their counts
//   GET    /console/v1/sync/:instance                    origin, counts, the run in progress, the last run
//   GET    /console/v1/sync/:instance/entries            outbox entries (state, resource, record_id, paged)
//   GET    /console/v1/sync/:instance/records?resource=  ids of records with entries (list marks)
//   POST   /console/v1/sync/:instance/push               {dry_run?, entries?}; ?wait=1 answers the summary
//   POST   /console/v1/sync/:instance/pull               ?wait=1 answers the summary
//   DELETE /console/v1/sync/:instance/run                cancels the push or pull in progress
//   POST   /console/v1/sync/:instance/resolve            {entries, take: mine|theirs|edit, value?}
//   POST   /console/v1/sync/:instance/discard            {entries?, revert?}
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { syncOperations } from '../../../src-shared/contract/sync';
import { ApiError, badRequest, notFound } from '../../../src-shared/errors';
import type { PullSummary, PushSummary, SyncProgress, SyncStatus } from '../../../src-shared/schemas/sync';
import type { InstanceInfo, InstanceManager } from '../../instances/manager';
import { countOf, counts, pendingIds, rowsOf, views } from '../../store/outbox-log';
import { SyncError } from '../../sync/errors';
import { readOrigin } from '../../store/origin';
import { hasOriginKey } from '../../sync/origin';
import { pull } from '../../sync/pull';
import { push } from '../../sync/push';
import { discard, resolve } from '../../sync/resolve';
import { openSnapshot, type SyncTarget } from '../../sync/target';
import type { ApiDeps } from '../deps';
import { serve } from '../contract';
import { CONSOLE_URL } from './console';

export const SYNC_URL = `${CONSOLE_URL}/sync`;

interface Run {
  kind: 'push' | 'pull';
  phase: string;
  done: number;
  total: number | null;
  started_at: string;
  controller: AbortController;
  finished: Promise<void>;
}

interface Slot {
  file: string;
  target: SyncTarget;
  running: Run | null;
  last: SyncStatus['last'];
}

const busy = (message: string) => new ApiError(409, message);
const asApiError = (e: unknown): unknown => (e instanceof SyncError ? new ApiError(e.status, e.message) : e);

export function registerSync(app: FastifyInstance, o: { deps: ApiDeps; manager: InstanceManager }): void {
  const ops = syncOperations();
  const cipher = () => o.manager.catalog.vault.cipher;
  const slots = new Map<string, Slot>();
  /** Files known not to be snapshots (kept while their size and time stay the same). */
  const plain = new Map<string, string>();

  app.addHook('onClose', async () => {
    for (const s of slots.values()) {
      s.running?.controller.abort();
      await s.running?.finished;
      s.target.close();
    }
    slots.clear();
  });

  const fileOf = (info: InstanceInfo): string | null => {
    if (info.kind === 'remote') return null;
    if (info.kind === 'main') {
      const db = o.deps.store().db;
      return db.memory ? null : db.name;
    }
    return info.row?.db_file ?? null;
  };

  /** The instance's snapshot, opened once; null when the instance is not a snapshot. */
  const slotOf = (info: InstanceInfo): Slot | null => {
    const file = fileOf(info);
    if (!file) return null;
    const have = slots.get(info.id);
    if (have && have.file === file) return have;
    if (!fs.existsSync(file)) return null;
    const stat = fs.statSync(file);
    const sig = `${stat.size}:${stat.mtimeMs}`;
    if (plain.get(file) === sig) return null;
    try {
      const target = openSnapshot(file, cipher());
      const slot: Slot = { file, target, running: null, last: null };
      slots.set(info.id, slot);
      return slot;
    } catch (e) {
      if (e instanceof SyncError) {
        plain.set(file, sig);
        return null;
      }
      throw e;
    }
  };

  const findInstance = (ref: string): InstanceInfo => {
    const info = o.manager.find(ref) ?? o.manager.list().find((i) => i.name === ref);
    if (!info) throw notFound(`no instance ${ref}`);
    return info;
  };

  const snapshotOf = (ref: string): { info: InstanceInfo; slot: Slot } => {
    const info = findInstance(ref);
    const slot = slotOf(info);
    if (!slot) throw badRequest(`${info.name} is not a snapshot of a platform: it has nothing to push or pull`);
    return { info, slot };
  };

  const runningView = (s: Slot): SyncProgress | null =>
    s.running ? { kind: s.running.kind, phase: s.running.phase, done: s.running.done, total: s.running.total, started_at: s.running.started_at } : null;

  const status = (info: InstanceInfo, s: Slot): SyncStatus => {
    const origin = readOrigin(s.target.db)!;
    return {
      instance: { id: info.id, name: info.name },
      origin: {
        url: origin.url,
        remote_instance_id: origin.remote_instance_id,
        snapshot_at: origin.snapshot_at,
        pulled_at: origin.pulled_at,
        pushed_at: origin.pushed_at,
        has_key: hasOriginKey(origin, cipher()),
      },
      counts: counts(s.target.db),
      running: runningView(s),
      last: s.last,
    };
  };

  /** Starts a push or a pull on the instance; one at a time. */
  const start = <T extends PushSummary | PullSummary>(
    s: Slot,
    kind: 'push' | 'pull',
    run: (signal: AbortSignal, progress: (p: { phase: string; done: number; total: number | null }) => void) => Promise<T>,
  ): Promise<T> => {
    if (s.running) throw busy(`a ${s.running.kind} of this snapshot is already running`);
    const run_: Run = { kind, phase: 'starting', done: 0, total: null, started_at: new Date().toISOString(), controller: new AbortController(), finished: Promise.resolve() };
    s.running = run_;
    const result = run(run_.controller.signal, (p) => {
      run_.phase = p.phase;
      run_.done = p.done;
      run_.total = p.total;
    });
    result.catch(() => {}); // settled below; an answer that does not wait must not leave it unhandled
    run_.finished = result
      .then(
        (summary) => {
          const error = summary.stopped;
          s.last = { kind, finished_at: new Date().toISOString(), ...(kind === 'push' ? { push: summary as PushSummary } : { pull: summary as PullSummary }), error };
        },
        (e: unknown) => {
          s.last = { kind, finished_at: new Date().toISOString(), error: (e as Error).message };
        },
      )
      .finally(() => {
        s.running = null;
      });
    return result;
  };

  /** The summary of a run once it has finished (the route waits: ?wait=1). */
  const finished = async <T>(result: Promise<T>): Promise<T> => {
    try {
      return await result;
    } catch (e) {
      throw asApiError(e);
    }
  };

  const truthy = (v: string | undefined) => v === '1' || v === 'true';

  serve(app, ops.list, async () => {
    const out = [];
    for (const info of o.manager.list()) {
      const s = slotOf(info);
      if (!s) continue;
      out.push({ id: info.id, name: info.name, origin_url: readOrigin(s.target.db)!.url, counts: counts(s.target.db), running: runningView(s) });
    }
    return out;
  });

  serve(app, ops.status, async (req) => {
    const { info, slot } = snapshotOf(req.params.instance);
    return status(info, slot);
  });

  serve(app, ops.entries, async (req) => {
    const { slot } = snapshotOf(req.params.instance);
    const q = req.query;
    const query = { state: q.state, resource: q.resource, record_id: q.record_id };
    return { items: views(slot.target.db, rowsOf(slot.target.db, { ...query, limit: q.limit ?? 200, offset: q.offset ?? 0 })), total: countOf(slot.target.db, query) };
  });

  serve(app, ops.records, async (req) => {
    const { slot } = snapshotOf(req.params.instance);
    return { ids: pendingIds(slot.target.db, req.query.resource) };
  });

  serve(app, ops.push, async (req, reply) => {
    const { info, slot } = snapshotOf(req.params.instance);
    const body = req.body ?? {};
    if (body.dry_run) return finished(push(slot.target, { dryRun: true, entries: body.entries }));
    const result = start(slot, 'push', (signal, progress) => push(slot.target, { entries: body.entries, signal, onProgress: progress }));
    if (truthy(req.query.wait)) return finished(result);
    return reply.code(202).send(status(info, slot));
  });

  serve(app, ops.pull, async (req, reply) => {
    const { info, slot } = snapshotOf(req.params.instance);
    const result = start(slot, 'pull', (signal, progress) => pull(slot.target, { signal, onProgress: progress }));
    if (truthy(req.query.wait)) return finished(result);
    return reply.code(202).send(status(info, slot));
  });

  serve(app, ops.cancel, async (req) => {
    const { info, slot } = snapshotOf(req.params.instance);
    if (slot.running) {
      slot.running.controller.abort();
      await slot.running.finished;
    }
    return status(info, slot);
  });

  serve(app, ops.resolve, async (req) => {
    const { slot } = snapshotOf(req.params.instance);
    if (slot.running) throw busy(`a ${slot.running.kind} of this snapshot is running; resolve when it has finished`);
    try {
      return await resolve(slot.target, req.body);
    } catch (e) {
      throw asApiError(e);
    }
  });

  serve(app, ops.discard, async (req) => {
    const { slot } = snapshotOf(req.params.instance);
    if (slot.running) throw busy(`a ${slot.running.kind} of this snapshot is running; discard when it has finished`);
    return discard(slot.target, req.body ?? {});
  });
}
