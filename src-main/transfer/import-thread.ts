// Imports run on a worker thread (import-worker.ts) with their own database connection: the
// server keeps answering while one reads and writes a large file. Reads go on (WAL); the
// server's writes to the same database meet the import's lock and are answered 503 at once.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ImportSummary } from '../../src-shared/schemas/transfer';
import { CancelledError, TransferError, type Where } from './errors';
import type { ImportOptions, ImportProgress } from './import';

/** What crosses to the thread: the options of importFiles that are data. */
export interface ImportJobInput {
  target: string;
  paths: string[];
  opts: Pick<ImportOptions, 'kind' | 'ignoreUnknown' | 'strictReferences' | 'labels' | 'cacheKiB'>;
}

export type ParentMessage = { type: 'cancel' };

export type ImportWorkerMessage =
  | { type: 'progress'; progress: ImportProgress }
  | { type: 'done'; summary: ImportSummary }
  | { type: 'failed'; error: { kind: 'transfer' | 'cancelled'; reason: string; where: Where; status: number } };

const WORKER = 'import-worker';

/**
 * The worker's script: the built one beside this code (out/main, shared code in out/main/chunks),
 * or, when running from the TypeScript sources (tests, tsx), the source through tsx.
 */
function workerScript(): { filename: string; eval: boolean } {
  const here = __dirname;
  if (__filename.endsWith('.ts')) {
    const req = createRequire(__filename);
    const source = path.join(here, `${WORKER}.ts`);
    return { filename: `require(${JSON.stringify(req.resolve('tsx/cjs'))}); require(${JSON.stringify(source)});`, eval: true };
  }
  for (const dir of [here, path.dirname(here)]) {
    const file = path.join(dir, `${WORKER}.js`);
    if (fs.existsSync(file)) return { filename: file, eval: false };
  }
  throw new Error(`${WORKER}.js is missing beside ${here}: the build is incomplete`);
}

export interface ThreadImportOptions extends ImportJobInput {
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
}

/** importFiles on a worker thread; settles with its summary or its refusal (a TransferError). */
export function importInThread(o: ThreadImportOptions): Promise<ImportSummary> {
  const script = workerScript();
  const input: ImportJobInput = { target: o.target, paths: o.paths, opts: o.opts };
  return new Promise((resolve, reject) => {
    let settled = false;
    const worker = new Worker(script.filename, { eval: script.eval, workerData: input });
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
