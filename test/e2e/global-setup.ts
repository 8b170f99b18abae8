// Playwright's global set-up: the demo database seeded once for the run; every spec's server
// starts on a copy of it (fixtures.ts). The workers find it through the environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SEED_ENV } from '../helpers/seed';
import { makeDemoDatabase } from '../helpers/seed-make';

export default function globalSetup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-seed-'));
  const file = path.join(dir, 'demo.sqlite');
  makeDemoDatabase(file);
  process.env[SEED_ENV] = file;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
