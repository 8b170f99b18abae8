// Examples of every operation, taken from the demo data (src-main/store/seed.ts): a request the
// server answers so on a demo database, and that answer. Written by `npm run examples`.
import type { OperationExample } from './operation';
import data from './examples.json';

export const DEMO_EXAMPLES: Readonly<Record<string, OperationExample>> = data as Record<string, OperationExample>;
