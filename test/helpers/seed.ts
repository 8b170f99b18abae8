// The demo database, seeded once per test run and copied for each server that wants it (seeding
// takes about a second; copying the file a few milliseconds). The runners' global set-ups make the
// file (test/helpers/global-setup.ts for vitest, test/e2e/global-setup.ts for Playwright) and
// name it in RADAR_TEST_SEED_DB; without it (a helper used on its own) the first copy makes one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src-main/store/db';
import { seedDemo } from '../../src-main/store/seed';
import { Store } from '../../src-main/store/store';

export const SEED_ENV = 'RADAR_TEST_SEED_DB';

/** Writes a new database at `file`: migrated and seeded with the demo data, as `serve` makes it. */
export function makeDemoDatabase(file: string): void {
  const { db } = openDatabase(file);
  try {
    seedDemo(new Store(db));
    // One file to copy: the write-ahead log folded into it.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

let madeHere: string | undefined;

/** The seeded file of this run (made here when no global set-up made one). */
export function demoSeedFile(): string {
  const given = process.env[SEED_ENV];
  if (given && fs.existsSync(given)) return given;
  if (!madeHere) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-seed-'));
    madeHere = path.join(dir, 'demo.sqlite');
    makeDemoDatabase(madeHere);
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return madeHere;
}

/** A copy of the seeded demo database at `file` (its folder made when missing); answers `file`. */
export function copyDemoDatabase(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(demoSeedFile(), file);
  return file;
}
