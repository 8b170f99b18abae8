// Long transfers run as jobs the console can watch and cancel: POST starts one, GET
// /console/v1/jobs/:id reports its progress (records, bytes, rate, ETA), DELETE cancels it
// (an import then rolls back; a snapshot keeps its finished pages and can be resumed).
import crypto from 'node:crypto';
import type { ImportSummary, JobView, SnapshotSummary } from '../../src-shared/schemas/transfer';
import { isBusy } from '../store/connection';
import { CancelledError, TransferError } from './errors';

export type JobType = JobView['type'];

export interface JobProgress {
  phase: string;
  records: number;
  bytes: number;
  total_bytes: number | null;
  file: string | null;
  /** Fraction done (0..1) when known, for the ETA. */
  fraction?: number | null;
}

export interface Job {
  view(): JobView;
  cancel(): void;
  readonly done: Promise<void>;
  /** The HTTP status of a failed or cancelled job (400 what was sent, 409 cancelled, 503 busy). */
  failureStatus(): number;
}

interface JobContext {
  signal: AbortSignal;
  progress(p: Partial<JobProgress>): void;
  setInstance(i: { id: string; name: string }): void;
}

const KEEP_FINISHED = 50;

class JobImpl implements Job {
  readonly id = crypto.randomUUID();
  readonly controller = new AbortController();
  state: JobView['state'] = 'running';
  readonly startedAt = new Date();
  finishedAt: Date | null = null;
  progress: JobProgress = { phase: 'starting', records: 0, bytes: 0, total_bytes: null, file: null, fraction: null };
  summary: ImportSummary | SnapshotSummary | null = null;
  error: JobView['error'] = null;
  instance: { id: string; name: string } | null = null;
  status = 400;
  done!: Promise<void>;
  private readonly t0 = performance.now();

  constructor(readonly type: JobType) {}

  view(): JobView {
    const secs = (performance.now() - this.t0) / 1000;
    const rate = secs > 0 ? this.progress.records / secs : 0;
    const fraction =
      this.progress.fraction ?? (this.progress.total_bytes ? Math.min(1, this.progress.bytes / this.progress.total_bytes) : null);
    const eta = this.state === 'running' && fraction && fraction > 0.001 ? Math.max(0, (secs / fraction) * (1 - fraction)) : null;
    return {
      id: this.id,
      type: this.type,
      state: this.state,
      started_at: this.startedAt.toISOString(),
      finished_at: this.finishedAt?.toISOString() ?? null,
      progress: {
        phase: this.progress.phase,
        records: this.progress.records,
        bytes: this.progress.bytes,
        total_bytes: this.progress.total_bytes,
        rate: Math.round(rate),
        eta_s: eta === null ? null : Math.round(eta * 10) / 10,
        file: this.progress.file,
      },
      summary: this.summary,
      error: this.error,
      instance: this.instance,
    };
  }

  cancel(): void {
    if (this.state === 'running') this.controller.abort();
  }

  failureStatus(): number {
    return this.state === 'cancelled' ? 409 : this.status;
  }
}

export class JobRegistry {
  private readonly jobs = new Map<string, JobImpl>();

  /** Starts `run` as a job; it settles the job's state, never rejects. */
  start(type: JobType, run: (ctx: JobContext) => Promise<ImportSummary | SnapshotSummary>): Job & { id: string } {
    const job = new JobImpl(type);
    this.jobs.set(job.id, job);
    const ctx: JobContext = {
      signal: job.controller.signal,
      progress: (p) => Object.assign(job.progress, p),
      setInstance: (i) => (job.instance = i),
    };
    job.done = run(ctx).then(
      (summary) => {
        job.summary = summary;
        job.state = 'done';
        job.progress.phase = 'done';
      },
      (e: unknown) => {
        if (e instanceof CancelledError || job.controller.signal.aborted) {
          job.state = 'cancelled';
          job.error = { message: 'cancelled' };
        } else {
          job.state = 'failed';
          job.error = e instanceof TransferError ? e.view() : { message: (e as Error).message ?? String(e) };
          job.status = e instanceof TransferError ? e.status : isBusy(e) ? 503 : 500;
        }
      },
    ).finally(() => {
      job.finishedAt = new Date();
      this.prune();
    });
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  list(): JobView[] {
    return [...this.jobs.values()].map((j) => j.view()).reverse();
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((j) => j.state !== 'running');
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(j.id);
  }

  /** Cancels every running job and waits for them to stop. */
  async close(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.state === 'running');
    for (const j of running) j.cancel();
    await Promise.allSettled(running.map((j) => j.done));
  }
}
