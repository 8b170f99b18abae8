// Imports run on a worker thread (import-worker.ts) with their own database connection: the
// server keeps answering while one reads and writes a large file. Reads go on (WAL); the
// server's writes to the same database meet the import's lock and are answered 503 at once.
import { Worker } from 'node:worker_threads';
import type { ImportSummary } from '../../src-shared/schemas/transfer';
import { CancelledError, TransferError, type Where } from './errors';
import { workerEntry } from '../workers/entry';
import type { ImportOptions, ImportProgress } from './import';

/** What crosses to the thread: the options of importFiles that are data. */
export interface ImportJobInput {
  target: string;
  paths: string[];
  opts: Pick<ImportOptions, 'kind' | 'ignoreUnknown' | 'strictReferences' | 'labels' | 'cacheKiB' | 'recordChanges' | 'delimiter' | 'encoding'>;
}

export type ParentMessage = { type: 'cancel' };

export type ImportWorkerMessage =
  | { type: 'progress'; progress: ImportProgress }
  | { type: 'done'; summary: ImportSummary }
  | { type: 'failed'; error: { kind: 'transfer' | 'cancelled'; reason: string; where: Where; status: number } };

export interface ThreadImportOptions extends ImportJobInput {
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
}

/** importFiles on a worker thread; settles with its summary or its refusal (a TransferError). */
export function importInThread(o: ThreadImportOptions): Promise<ImportSummary> {
  const script = workerEntry(__filename, 'import-worker.ts', 'import-worker');
  const input: ImportJobInput = { target: o.target, paths: o.paths, opts: o.opts };
  return new Promise((resolve, reject) => {
    let settled = false;
    const worker = new Worker(script.file, { eval: script.eval, workerData: input });
    const cancel = () => worker.postMessage({ type: 'cancel' } satisfies ParentMessage);
    if (o.signal?.aborted) cancel();
    o.signal?.addEventListener('abort', cancel, { once: true });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', cancel);
      fn();
    };
    worker.on('message', (m: ImportWorkerMessage) => {
      if (m.type === 'progress') o.onProgress?.(m.progress);
      else if (m.type === 'done') finish(() => resolve(m.summary));
      else if (m.error.kind === 'cancelled') finish(() => reject(new CancelledError()));
      else finish(() => reject(new TransferError(m.error.reason, m.error.where, m.error.status)));
    });
    worker.on('error', (e) => finish(() => reject(new TransferError(`the import stopped: ${e.message}`, {}, 500))));
    worker.on('exit', (code) => finish(() => reject(new TransferError(`the import stopped unexpectedly (exit code ${code})`, {}, 500))));
  });
}
