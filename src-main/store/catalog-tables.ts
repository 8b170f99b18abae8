// The main database's settings (key, value) and the instances this server routes to
// (console_instances), as the instance catalog reads and writes them.
import type { Store } from './store';

export interface InstanceRow {
  id: string;
  name: string;
  kind: 'local' | 'remote';
  sort_order: number;
  db_file: string | null;
  url: string | null;
  remote_instance_id: string | null;
  ca_file: string | null;
  pinned_sha256: string | null;
  timeout_ms: number | null;
  created_at: string;
  updated_at: string;
}

/** The columns an instance's change may set (the names are these, never the caller's). */
const CHANGEABLE = ['name', 'sort_order', 'timeout_ms', 'db_file', 'url', 'remote_instance_id', 'ca_file', 'pinned_sha256', 'updated_at'] as const;
export type InstanceChange = Partial<Pick<InstanceRow, (typeof CHANGEABLE)[number]>>;

export function readSetting(store: Store, key: string): string | undefined {
  return store.get1<{ value: string }>(`SELECT value FROM settings WHERE key = ?`, [key])?.value;
}

export function writeSetting(store: Store, key: string, value: string): void {
  store.run(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, [key, value]);
}

/** Every instance, in the switcher's order. */
export function instanceRows(store: Store): InstanceRow[] {
  return store.all<InstanceRow>(`SELECT * FROM console_instances ORDER BY sort_order, name`);
}

export function instanceRow(store: Store, id: string): InstanceRow | undefined {
  return store.get1<InstanceRow>(`SELECT * FROM console_instances WHERE id = ?`, [id]);
}

/** Whether an instance other than `except` has this name. */
export function instanceNameTaken(store: Store, name: string, except: string | null): boolean {
  return !!store.get1(`SELECT 1 AS x FROM console_instances WHERE name = ? AND id IS NOT ?`, [name, except]);
}

/** The place after the last instance. */
export function nextInstanceOrder(store: Store): number {
  return store.get1<{ n: number }>(`SELECT COALESCE(MAX(sort_order), 0) + 1 AS n FROM console_instances`)?.n ?? 1;
}

export function insertLocalInstance(store: Store, row: Pick<InstanceRow, 'id' | 'name' | 'sort_order' | 'db_file' | 'timeout_ms' | 'created_at' | 'updated_at'>): void {
  store.run(`INSERT INTO console_instances (id, name, kind, sort_order, db_file, timeout_ms, created_at, updated_at) VALUES (?, ?, 'local', ?, ?, ?, ?, ?)`, [
    row.id,
    row.name,
    row.sort_order,
    row.db_file,
    row.timeout_ms,
    row.created_at,
    row.updated_at,
  ]);
}

export function insertRemoteInstance(
  store: Store,
  row: Pick<InstanceRow, 'id' | 'name' | 'sort_order' | 'url' | 'remote_instance_id' | 'ca_file' | 'pinned_sha256' | 'timeout_ms' | 'created_at' | 'updated_at'>,
): void {
  store.run(
    `INSERT INTO console_instances (id, name, kind, sort_order, url, remote_instance_id, ca_file, pinned_sha256, timeout_ms, created_at, updated_at)
     VALUES (?, ?, 'remote', ?, ?, ?, ?, ?, ?, ?, ?)`,
    [row.id, row.name, row.sort_order, row.url, row.remote_instance_id, row.ca_file, row.pinned_sha256, row.timeout_ms, row.created_at, row.updated_at],
  );
}

/** Sets the given columns of an instance (those of `change` that are present). */
export function updateInstanceRow(store: Store, id: string, change: InstanceChange): void {
  const cols = CHANGEABLE.filter((c) => change[c] !== undefined);
  if (!cols.length) return;
  store.run(`UPDATE console_instances SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`, [...cols.map((c) => change[c]), id]);
}

export function deleteInstanceRow(store: Store, id: string): void {
  store.run(`DELETE FROM console_instances WHERE id = ?`, [id]);
}
