// Makes the seeded demo database the tests copy (seed.ts): migrated and seeded with the demo
// data, as `serve` makes a new database, in one file.
import { openDatabase } from '../../src-main/store/db';
import { seedDemo } from '../../src-main/store/seed';
import { Store } from '../../src-main/store/store';

/** Writes a new database at `file`: migrated and seeded with the demo data. */
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
