// When the data last changed, as seen from one connection, and values kept until it changes.
//
// A token joins SQLite's `PRAGMA data_version` (it moves when any other connection commits:
// an import, a local instance's own app, another process such as the CLI) with this
// connection's `total_changes()` (rows it has written, trigger writes included), less the rows
// it wrote to its own scratch tables (materialised full-text matches), which are not data. A
// value kept under a token is reused only while the token is unchanged, so no write, by any
// route, import or other writer, can leave a stale value behind.
import type { Db } from './db';

type Pluck = { get(): unknown };

export class DataVersion {
  private readonly dataVersion: Pluck;
  private readonly changes: Pluck;
  private scratch = 0;

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.changes = db.prepare('SELECT total_changes()').pluck();
  }

  /** Rows written to temporary scratch tables (not data): kept out of the token. */
  noteScratch(rows: number): void {
    this.scratch += rows;
  }

  /**
   * The current token, or null inside a transaction (uncommitted rows may still be rolled back,
   * so nothing read there is kept).
   */
  current(): string | null {
    if (this.db.inTransaction) return null;
    return `${String(this.dataVersion.get())}.${Number(this.changes.get()) - this.scratch}`;
  }
}

/** Values by key, each valid for the data version it was computed at; least recently used go first. */
export class VersionedCache<T> {
  private readonly entries = new Map<string, { version: string; value: T }>();

  constructor(private readonly max = 256) {}

  get(key: string, version: string | null): T | undefined {
    if (version === null) return undefined;
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.version !== version) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, version: string | null, value: T): void {
    if (version === null) return;
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }
}
