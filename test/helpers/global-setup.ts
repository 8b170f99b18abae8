// Vitest's global set-up: the demo database seeded once for the run (test/helpers/seed.ts), its
// path handed to every test file (test/helpers/setup-file.ts), the file removed at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { makeDemoDatabase } from './seed-make';

declare module 'vitest' {
  export interface ProvidedContext {
    demoSeedDb: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-seed-'));
  const file = path.join(dir, 'demo.sqlite');
  makeDemoDatabase(file);
  project.provide('demoSeedDb', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
