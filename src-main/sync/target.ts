// A snapshot opened for sync: its own connection (the console's server may have another one
// open on the same file; WAL lets both work), the store over it, and its origin.
import fs from 'node:fs';
import type { KeyCipher } from '../instances/vault';
import { openDatabase, type Db } from '../store/db';
import { Store } from '../store/store';
import { SyncError } from './errors';
import type { OriginRow } from '../store/origin';
import { requireOrigin } from './origin';

export interface SyncTarget {
  file: string;
  db: Db;
  store: Store;
  cipher?: KeyCipher;
  origin(): OriginRow;
  close(): void;
}

export function openSnapshot(file: string, cipher?: KeyCipher): SyncTarget {
  if (!fs.existsSync(file)) throw new SyncError(`${file} does not exist`, 2);
  const { db } = openDatabase(file, { create: false, busyTimeoutMs: 5000 });
  try {
    requireOrigin(db, file);
  } catch (e) {
    db.close();
    throw e;
  }
  const store = new Store(db);
  return {
    file,
    db,
    store,
    cipher,
    origin: () => requireOrigin(db, file),
    close: () => {
      if (db.open) db.close();
    },
  };
}
