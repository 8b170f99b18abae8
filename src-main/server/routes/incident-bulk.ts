// POST /console/v1/incidents/bulk: a status (with its reason), risk, owner or group change over
// every incident a query matches, as one server-side job and ONE transaction
// (store/kinds/incidents/bulk.ts); GET /console/v1/incidents/bulk/:id its progress; DELETE
// cancels it (the transaction rolls back: nothing of it is written). Per instance, like the
// status change, so the routing port serves it on every local instance.
//
// The job writes in slices of about SLICE_MS and yields between them, so its progress and its
// cancel are answered while it runs; meanwhile it holds the write gate (write-gate.ts): other
// requests' writes wait for its end instead of landing in its transaction. An in-memory database
// (one connection) is written in one slice. The import and snapshot jobs (transfer/jobs.ts) count
// records and bytes of a file and run off this thread; this job counts incidents and its
// transaction lives on this thread, so it keeps a registry of its own with the same conventions
// (202 and Location, GET for progress, DELETE answers the job once it has stopped).
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { conflict, notFound } from '../../../src-shared/errors';
import type { BulkJobView } from '../../../src-shared/schemas/incident-bulk';
import { IncidentBulk } from '../../store/kinds/incidents/bulk';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';
import { describeError } from '../errors';
import { writeGate } from '../write-gate';

/** Work per slice before the job yields to other requests (its progress, its cancel, reads). */
const SLICE_MS = 50;
/** Incidents written between two looks at the clock. */
const STEP = 50;
/** Finished jobs kept for their GET. */
const KEEP_FINISHED = 50;

class BulkJob {
  readonly id = crypto.randomUUID();
  state: BulkJobView['state'] = 'running';
  readonly startedAt = new Date();
  finishedAt: Date | null = null;
  error: BulkJobView['error'] = null;
  cancelled = false;
  done!: Promise<void>;

  constructor(readonly bulk: IncidentBulk) {}

  view(): BulkJobView {
    return {
      id: this.id,
      state: this.state,
      field: this.bulk.field,
      total: this.bulk.total,
      done: this.bulk.done,
      changed: this.bulk.changed,
      started_at: this.startedAt.toISOString(),
      finished_at: this.finishedAt?.toISOString() ?? null,
      error: this.error,
    };
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs the job to its end: commit when every incident is written, rollback on a cancel or an error. */
async function run(job: BulkJob, slice: number): Promise<void> {
  const { bulk } = job;
  try {
    await turn(); // the 202 goes out first
    while (!bulk.finished && !job.cancelled) {
      const t0 = performance.now();
      do bulk.step(STEP);
      while (!bulk.finished && performance.now() - t0 < slice);
      if (!bulk.finished) await turn();
    }
    if (job.cancelled) {
      bulk.rollback();
      job.state = 'cancelled';
      job.error = { error: 'cancelled: nothing was changed', error_code: 409 };
    } else {
      bulk.commit();
      job.state = 'done';
    }
  } catch (e) {
    bulk.rollback();
    job.state = 'failed';
    const d = describeError(e);
    job.error = { error: d.text, error_code: d.status };
  } finally {
    job.finishedAt = new Date();
  }
}

export function registerIncidentBulk(app: FastifyInstance, deps: ApiDeps): void {
  const ops = consoleOperations();
  const jobs = new Map<string, BulkJob>();
  const prune = () => {
    const finished = [...jobs.values()].filter((j) => j.state !== 'running');
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) jobs.delete(j.id);
  };
  app.addHook('onClose', async () => {
    const running = [...jobs.values()].filter((j) => j.state === 'running');
    for (const j of running) j.cancelled = true;
    await Promise.allSettled(running.map((j) => j.done));
  });

  serve(app, ops.incidents_bulk_start, async (req, reply) => {
    const { query, change, expected_total } = req.body;
    // The write gate is free here (serve waited for it); it is taken in this same turn.
    // A query or value refused is 400 (ApiError), another writer holding the database 503.
    const bulk = IncidentBulk.begin(deps.store(), query, change, { userId: req.userId });
    if (expected_total !== undefined && expected_total !== bulk.total) {
      bulk.rollback();
      throw conflict(`the query matches ${bulk.total} incidents now, not ${expected_total}: nothing was changed`, ['expected_total']);
    }
    const release = writeGate.hold();
    const job = new BulkJob(bulk);
    jobs.set(job.id, job);
    const memory = deps.store().db.memory;
    job.done = run(job, memory ? Number.POSITIVE_INFINITY : SLICE_MS).finally(() => {
      release();
      prune();
    });
    return reply.code(202).header('location', `${ops.incidents_bulk_start.path}/${job.id}`).send(job.view());
  });

  serve(app, ops.incidents_bulk_get, async (req) => {
    const job = jobs.get(req.params.id);
    if (!job) throw notFound();
    return job.view();
  });

  serve(app, ops.incidents_bulk_cancel, async (req) => {
    const job = jobs.get(req.params.id);
    if (!job) throw notFound();
    if (job.state === 'running') job.cancelled = true;
    await job.done;
    return job.view();
  });
}
