// Examples of every operation, taken from the demo data (src-main/store/seed.ts): a request the
// server answers so on a demo database, and that answer. Written by `npm run examples`.
import type { OperationExample } from './operation';
import data from './examples.json';

/** The file: the addresses of the server that answered, and the examples in the order they were sent. */
export interface ExamplesFile {
  servers: { main: string; routing: string; apiKey?: string };
  examples: Record<string, OperationExample>;
}

export const EXAMPLES_FILE = data as unknown as ExamplesFile;
export const DEMO_EXAMPLES: Readonly<Record<string, OperationExample>> = EXAMPLES_FILE.examples ?? {};
