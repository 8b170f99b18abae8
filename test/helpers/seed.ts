// The demo database, seeded once per test run and copied for each server that wants it (seeding
// takes about a second; copying the file a few milliseconds). The runners' global set-ups make the
// file with makeDemoDatabase (seed-make.ts; test/helpers/global-setup.ts for vitest,
// test/e2e/global-setup.ts for Playwright) and name it in RADAR_TEST_SEED_DB.
import fs from 'node:fs';
import path from 'node:path';

export const SEED_ENV = 'RADAR_TEST_SEED_DB';

/** The seeded file of this run. */
export function demoSeedFile(): string {
  const given = process.env[SEED_ENV];
  if (given && fs.existsSync(given)) return given;
  throw new Error(`no seeded demo database (${SEED_ENV}): the runners' global set-up makes it; run the tests through vitest or Playwright with this project's configuration`);
}

/** A copy of the seeded demo database at `file` (its folder made when missing); answers `file`. */
export function copyDemoDatabase(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(demoSeedFile(), file);
  return file;
}
