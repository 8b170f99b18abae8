// The instances behind the routing port: the main database, more local databases (each served
// by its own in-process app) and remote platforms (reached through RemoteClient). Reads the
// catalog on each use, so changes made by the CLI while the server runs take effect.
import type { FastifyInstance } from 'fastify';
import { ApiError, notFound } from '../../src-shared/errors';
import { HEALTH_PROBE_PATH } from '../../src-shared/public/entities';
import type { InstanceInput, InstanceKind, InstancePatch, InstanceView } from '../../src-shared/schemas/instances';
import type { InstanceCatalog, InstanceRow } from './catalog';
import { isBusy } from '../store/connection';
import { RemoteClient, RemoteError } from './remote';

export interface InstanceInfo {
  id: string;
  name: string;
  kind: InstanceKind;
  /** The address the instance list gives for it. */
  url: string;
  sort_order: number;
  row?: InstanceRow;
}

export type Target = { kind: 'app'; info: InstanceInfo; app: FastifyInstance } | { kind: 'remote'; info: InstanceInfo; client: RemoteClient };

export interface LocalHandle {
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface ManagerOptions {
  catalog: InstanceCatalog;
  mainApp: () => FastifyInstance;
  urls: () => { main: string; routing: string };
  openLocal: (file: string) => Promise<LocalHandle>;
  defaultTimeoutMs: number;
  maxBytes: number;
  /** Credentials for calls the server makes to its own in-process apps. */
  internalHeaders: () => Record<string, string>;
}

export class InstanceManager {
  private readonly locals = new Map<string, { file: string; handle: Promise<LocalHandle> }>();
  private readonly remotes = new Map<string, { signature: string; client: RemoteClient }>();

  constructor(private readonly o: ManagerOptions) {}

  get catalog(): InstanceCatalog {
    return this.o.catalog;
  }

  mainUrl(): string {
    return this.o.urls().main;
  }

  /** This server's identity in routing hops and in its answers: the main instance's id. */
  serverId(): string {
    return this.o.catalog.main().id;
  }

  /**
   * Refuses a remote URL that reaches this server itself (its own ports on a loopback or bound
   * address): routing to it would loop. Servers behind other names are caught when a request
   * comes back (the hops header).
   */
  checkNotSelf(url: string | undefined): void {
    if (!url) return;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return;
    }
    const own = [this.o.urls().main, this.o.urls().routing].filter(Boolean).map((x) => new URL(x));
    const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    const local = host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host) || host === '0.0.0.0' || host === '::';
    for (const o of own) {
      const ownHost = o.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      if (port === o.port && (local || host === ownHost)) {
        throw new ApiError(400, `url ${u.origin} is this server itself; routing to it would loop`);
      }
    }
  }

  list(): InstanceInfo[] {
    const { main, rows } = this.o.catalog.read();
    const { main: mainUrl, routing } = this.o.urls();
    const out: InstanceInfo[] = [{ id: main.id, name: main.name, kind: 'main', url: mainUrl, sort_order: 0 }];
    for (const row of rows) {
      out.push({ id: row.id, name: row.name, kind: row.kind, url: row.kind === 'remote' ? row.url! : routing, sort_order: row.sort_order, row });
    }
    return out.sort((a, b) => a.sort_order - b.sort_order || (a.kind === 'main' ? -1 : b.kind === 'main' ? 1 : a.name.localeCompare(b.name)));
  }

  /** The master host's instance list (spec: Instance). */
  publicList(): { id: string; name: string; url: string; sort_order: number }[] {
    return this.list().map(({ id, name, url, sort_order }) => ({ id, name, url, sort_order }));
  }

  find(id: string): InstanceInfo | undefined {
    const key = id.trim().toLowerCase();
    return this.list().find((i) => i.id === key);
  }

  timeoutOf(info: InstanceInfo): number {
    return info.row?.timeout_ms ?? this.o.defaultTimeoutMs;
  }

  async target(info: InstanceInfo): Promise<Target> {
    if (info.kind === 'main') return { kind: 'app', info, app: this.o.mainApp() };
    const row = info.row!;
    if (row.kind === 'local') {
      let entry = this.locals.get(row.id);
      if (entry && entry.file !== row.db_file) {
        void entry.handle.then((h) => h.close());
        entry = undefined;
      }
      if (!entry) {
        entry = { file: row.db_file!, handle: this.o.openLocal(row.db_file!) };
        entry.handle.catch(() => this.locals.delete(row.id));
        this.locals.set(row.id, entry);
      }
      return { kind: 'app', info, app: (await entry.handle).app };
    }
    const signature = `${row.updated_at}|${row.url}`;
    let remote = this.remotes.get(row.id);
    if (!remote || remote.signature !== signature) {
      if (remote) void remote.client.close();
      const apiKey = this.o.catalog.vault.get(row.id);
      if (!apiKey) throw new ApiError(502, `instance ${row.name} has no API key`);
      remote = {
        signature,
        client: new RemoteClient({
          url: row.url!,
          apiKey,
          remoteInstanceId: row.remote_instance_id,
          caFile: row.ca_file,
          pinnedSha256: row.pinned_sha256,
          timeoutMs: this.timeoutOf(info),
          maxBytes: this.o.maxBytes,
        }),
      };
      this.remotes.set(row.id, remote);
    }
    return { kind: 'remote', info, client: remote.client };
  }

  view(info: InstanceInfo): InstanceView {
    const r = info.row;
    return {
      id: info.id,
      name: info.name,
      kind: info.kind,
      url: info.url,
      sort_order: info.sort_order,
      db_file: info.kind === 'main' ? null : (r?.db_file ?? null),
      remote_url: r?.url ?? null,
      remote_instance_id: r?.remote_instance_id ?? null,
      ca_file: r?.ca_file ?? null,
      pinned_sha256: r?.pinned_sha256 ?? null,
      timeout_ms: r?.timeout_ms ?? null,
      has_api_key: r?.kind === 'remote' ? this.o.catalog.vault.has(r.id) : false,
    };
  }

  views(): InstanceView[] {
    return this.list().map((i) => this.view(i));
  }

  async add(input: InstanceInput): Promise<InstanceView> {
    if (input.kind === 'remote') this.checkNotSelf(input.url);
    const row = this.o.catalog.add(input);
    const info = this.find(row.id)!;
    if (row.kind === 'local') {
      try {
        await this.target(info); // creates and migrates the database now, so a bad path fails here
      } catch (e) {
        this.o.catalog.remove(row.id);
        // A database another writer holds is no fault of the request (503, try again).
        throw new ApiError(isBusy(e) ? 503 : 400, `cannot open ${row.db_file}: ${(e as Error).message}`);
      }
    }
    return this.view(info);
  }

  async update(id: string, patch: InstancePatch): Promise<InstanceView> {
    if (this.find(id)?.kind === 'main') {
      if (Object.keys(patch).some((k) => k !== 'name')) throw new ApiError(400, 'only the name of the main instance can be changed');
      if (patch.name) this.o.catalog.renameMain(patch.name);
      return this.view(this.find(id)!);
    }
    this.checkNotSelf(patch.url);
    const row = this.o.catalog.update(id, patch);
    await this.drop(row.id);
    return this.view(this.find(row.id)!);
  }

  async remove(id: string): Promise<void> {
    const info = this.find(id);
    if (!info) throw notFound();
    this.o.catalog.remove(info.id);
    await this.drop(info.id);
  }

  private async drop(id: string): Promise<void> {
    const local = this.locals.get(id);
    this.locals.delete(id);
    if (local) await (await local.handle.catch(() => null))?.close();
    const remote = this.remotes.get(id);
    this.remotes.delete(id);
    if (remote) await remote.client.close();
  }

  /** Reaches the instance with a cheap public API call. */
  async test(id: string): Promise<{ ok: boolean; status: number; time_ms: number; error: string }> {
    const info = this.find(id);
    if (!info) throw notFound();
    const started = performance.now();
    const ms = () => Math.round((performance.now() - started) * 10) / 10;
    try {
      const t = await this.target(info);
      if (t.kind === 'app') {
        const res = await t.app.inject({ method: 'GET', url: HEALTH_PROBE_PATH, headers: this.o.internalHeaders() });
        const ok = res.statusCode === 200;
        return { ok, status: res.statusCode, time_ms: ms(), error: ok ? '' : res.body.slice(0, 300) };
      }
      const res = await t.client.call('GET', HEALTH_PROBE_PATH, {});
      let status = res.status;
      if (t.client.cfg.remoteInstanceId) {
        try {
          const parsed = JSON.parse(res.body.toString('utf8')) as { status_code?: number }[];
          status = parsed[0]?.status_code ?? status;
        } catch {
          // not an envelope: keep the HTTP status
        }
      }
      const ok = status >= 200 && status < 300;
      return { ok, status, time_ms: ms(), error: ok ? '' : res.body.toString('utf8').slice(0, 300) };
    } catch (e) {
      const status = e instanceof RemoteError ? e.status : e instanceof ApiError ? e.status : 500;
      return { ok: false, status, time_ms: ms(), error: (e as Error).message };
    }
  }

  async close(): Promise<void> {
    for (const id of [...this.locals.keys(), ...this.remotes.keys()]) await this.drop(id);
  }
}
