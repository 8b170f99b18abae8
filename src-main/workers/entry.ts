// Where a worker thread's code is. Built, each worker is an entry of the main bundle
// (electron.vite.config.ts: out/main/<name>.js), found beside the calling code or one folder up
// (shared code lands in out/main/chunks). From the TypeScript sources (tests, tsx), the worker
// runs its source through tsx's require hook.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface WorkerEntry {
  /** A file name, or code to evaluate when `eval` is set. */
  file: string;
  eval: boolean;
}

/**
 * `caller` is the calling module's own file (`__filename`), `source` the worker's source file
 * relative to it, `built` the name of its built entry.
 */
export function workerEntry(caller: string, source: string, built: string): WorkerEntry {
  const dir = path.dirname(caller);
  if (caller.endsWith('.ts')) {
    const tsx = createRequire(caller).resolve('tsx/cjs');
    return { file: `require(${JSON.stringify(tsx)}); require(${JSON.stringify(path.join(dir, source))});`, eval: true };
  }
  for (const d of [dir, path.dirname(dir)]) {
    const file = path.join(d, `${built}.js`);
    if (fs.existsSync(file)) return { file, eval: false };
  }
  throw new Error(`the worker thread ${built}.js is missing from the build (looked beside ${dir})`);
}
