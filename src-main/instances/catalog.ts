// The instances this server routes to, kept in the main database (console_instances), with
// the main instance's own identity in its settings.
import crypto from 'node:crypto';
import path from 'node:path';
import { ApiError, badRequest, conflict, notFound } from '../../src-shared/errors';
import type { InstanceInput, InstancePatch } from '../../src-shared/schemas/instances';
import { nowTs } from '../../src-shared/time';
import {
  deleteInstanceRow,
  insertLocalInstance,
  insertRemoteInstance,
  instanceNameTaken,
  instanceRow,
  instanceRows,
  nextInstanceOrder,
  readSetting,
  updateInstanceRow,
  writeSetting,
  type InstanceChange,
  type InstanceRow,
} from '../store/catalog-tables';
import { VersionedCache } from '../store/data-version';
import type { Store } from '../store/store';

export type { InstanceRow };
import type { KeyVault } from './vault';

export const MAIN_NAME_DEFAULT = 'Main';

export class InstanceCatalog {
  /** The main instance and the rows, read once per data version (the CLI may change them too). */
  private readonly kept = new VersionedCache<{ main: { id: string; name: string }; rows: InstanceRow[] }>(1);

  constructor(
    private readonly store: Store,
    readonly vault: KeyVault,
    /** Folder relative db_file paths are resolved against (the main database's). */
    private readonly baseDir: string,
  ) {}

  private setting(key: string): string | undefined {
    return readSetting(this.store, key);
  }

  private setSetting(key: string, value: string): void {
    writeSetting(this.store, key, value);
  }

  /**
   * The catalog as read at the current data version: any write, by this server or by another
   * process on the same database (the CLI), is seen by the next call. Callers do not change it.
   * The main instance and the rows together: one check of the data version for both.
   */
  read(): { main: { id: string; name: string }; rows: InstanceRow[] } {
    let version = this.store.version();
    const hit = this.kept.get('catalog', version);
    if (hit) return hit;
    let id = this.setting('instance.id');
    if (!id) {
      id = crypto.randomUUID();
      this.setSetting('instance.id', id);
      version = this.store.version();
    }
    // Kept under the version read before the rows: a commit by another process in between
    // leaves a version this one no longer equals.
    const snapshot = {
      main: { id, name: this.setting('instance.name') ?? MAIN_NAME_DEFAULT },
      rows: instanceRows(this.store),
    };
    this.kept.set('catalog', version, snapshot);
    return snapshot;
  }

  /** The main instance's id (generated once) and name. */
  main(): { id: string; name: string } {
    return this.read().main;
  }

  renameMain(name: string): void {
    this.setSetting('instance.name', name);
  }

  list(): InstanceRow[] {
    return this.read().rows;
  }

  get(id: string): InstanceRow | undefined {
    return instanceRow(this.store, id.toLowerCase());
  }

  resolveDbFile(file: string): string {
    return path.resolve(this.baseDir, file);
  }

  private checkName(name: string, except?: string): void {
    const main = this.main();
    const taken = (main.name === name && except !== main.id) || instanceNameTaken(this.store, name, except ?? null);
    if (taken) throw conflict('name_already_used', ['name']);
  }

  add(input: InstanceInput): InstanceRow {
    return this.store.tx(() => {
      this.checkName(input.name);
      const id = crypto.randomUUID();
      const at = nowTs();
      const order = input.sort_order ?? nextInstanceOrder(this.store);
      if (input.kind === 'local') {
        insertLocalInstance(this.store, {
          id,
          name: input.name,
          sort_order: order,
          db_file: this.resolveDbFile(input.db_file),
          timeout_ms: input.timeout_ms ?? null,
          created_at: at,
          updated_at: at,
        });
      } else {
        insertRemoteInstance(this.store, {
          id,
          name: input.name,
          sort_order: order,
          url: input.url,
          remote_instance_id: input.remote_instance_id ?? null,
          ca_file: input.ca_file ? path.resolve(input.ca_file) : null,
          pinned_sha256: input.pinned_sha256 ?? null,
          timeout_ms: input.timeout_ms ?? null,
          created_at: at,
          updated_at: at,
        });
        this.vault.set(id, input.api_key);
      }
      return this.get(id)!;
    });
  }

  update(id: string, patch: InstancePatch): InstanceRow {
    return this.store.tx(() => {
      const row = this.get(id);
      if (!row) throw notFound();
      if (patch.name !== undefined) this.checkName(patch.name, row.id);
      const local = row.kind === 'local';
      for (const k of ['url', 'api_key', 'remote_instance_id', 'ca_file', 'pinned_sha256'] as const) {
        if (local && patch[k] !== undefined) throw badRequest(`${k} applies to remote instances only`);
      }
      if (!local && patch.db_file !== undefined) throw badRequest('db_file applies to local instances only');
      const change: InstanceChange = { updated_at: nowTs() };
      if (patch.name !== undefined) change.name = patch.name;
      if (patch.sort_order !== undefined) change.sort_order = patch.sort_order;
      if (patch.timeout_ms !== undefined) change.timeout_ms = patch.timeout_ms;
      if (patch.db_file !== undefined) change.db_file = this.resolveDbFile(patch.db_file);
      if (patch.url !== undefined) change.url = patch.url;
      if (patch.remote_instance_id !== undefined) change.remote_instance_id = patch.remote_instance_id;
      if (patch.ca_file !== undefined) change.ca_file = patch.ca_file === null ? null : path.resolve(patch.ca_file);
      if (patch.pinned_sha256 !== undefined) change.pinned_sha256 = patch.pinned_sha256;
      updateInstanceRow(this.store, row.id, change);
      if (patch.api_key !== undefined) this.vault.set(row.id, patch.api_key);
      return this.get(row.id)!;
    });
  }

  remove(id: string): void {
    if (id.toLowerCase() === this.main().id) throw new ApiError(400, 'the main instance cannot be removed');
    const row = this.get(id);
    if (!row) throw notFound();
    deleteInstanceRow(this.store, row.id);
    this.vault.remove(row.id);
  }
}
