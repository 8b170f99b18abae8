// The young generation during start-up. V8 doubles the young generation while most of what is
// allocated survives, which is exactly what building the routes, schemas and contract does: it
// grows to its maximum (about 26 MiB more resident memory, measured by bench:load) only to hold
// objects that move to the old generation anyway. While a server starts, the young generation
// keeps its first size; afterwards it grows again as the traffic needs.
import v8 from 'node:v8';

/** V8's default (`node --v8-options`). */
const DEFAULT_GROWTH_FACTOR = 2;

let starting = 0;

/** The process was started with its own setting: it is left alone. */
const givenByUser = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--semi[-_]space[-_]growth[-_]factor/.test(a));

/** Runs `fn` (a server's start) with the young generation kept at its first size. */
export async function whileStarting<T>(fn: () => Promise<T>): Promise<T> {
  const touch = !givenByUser();
  if (touch && starting++ === 0) v8.setFlagsFromString('--semi-space-growth-factor=1');
  try {
    return await fn();
  } finally {
    if (touch && --starting === 0) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  }
}
