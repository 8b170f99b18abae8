// Starting the server: the database (created, migrated and seeded on first start), the
// secrets, and the two ports. Used by the CLI, the Electron main process and the tests.
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { PLATFORM_VERSION } from '../../src-shared/version';
import { loadSecrets } from '../config/secrets';
import { DEFAULT_SCAN_PORTS } from '../scan/probe';
import { openDatabase } from '../store/db';
import { seedDemo } from '../store/seed';
import { Store } from '../store/store';
import { InstanceCatalog } from '../instances/catalog';
import { InstanceManager, type LocalHandle } from '../instances/manager';
import { KeyVault, vaultFileFor, type KeyCipher } from '../instances/vault';
import type { ApiDeps } from './deps';
import { MAX_HEADER_BYTES, resolveLimits, type Limits } from './limits';
import { Gate } from './gate';
import { whileStarting } from './heap';
import { ReaderPool, readsFor } from '../store/reader/pool';

/**
 * Reader threads by default: two (measured on two cores, bench:load: more searches per second
 * and a faster console under a script's load than one; each costs some memory).
 */
const DEFAULT_READERS = 2;
/** Page cache of each reader's connection (the server's own keeps the default). */
const READER_CACHE_KIB = 8 * 1024;

export interface ServerConfig {
  db: string;
  host?: string;
  port?: number;
  routingPort?: number;
  /** Overrides the stored key (the --api-key flag, RADAR_API_KEY). */
  apiKey?: string;
  /** demo: seed when the database is new or has no incidents; none: never. Default: demo on a new database. */
  seed?: 'demo' | 'none';
  log?: boolean;
  scan?: Partial<ApiDeps['scan']>;
  rendererDir?: string;
  /** Encrypts remote instances' keys at rest (the desktop app passes Electron's safeStorage). */
  keyCipher?: KeyCipher;
  /** Default time-out of a routed call to one instance. */
  instanceTimeoutMs?: number;
  /** Largest answer accepted from a remote instance. */
  maxRemoteBytes?: number;
  /** Request limits (README, "Limits"); the defaults are DEFAULT_LIMITS. */
  limits?: Partial<Limits>;
  /** Reader threads for searches, lists and stats (default 2; 0: read on the server's thread). */
  readers?: number;
  /**
   * Start the first reader thread when the first request arrives, so that the first read does
   * not wait for it (serve and the desktop app); a server nobody has asked anything holds none.
   */
  warmReaders?: boolean;
  /**
   * Called once both ports listen, before the apps are built: requests arriving from then on
   * wait for them (serve prints its ready line here). startServer itself resolves when the apps
   * are built.
   */
  onListening?: (s: { main: string; routing: string; db: string; apiKey: string }) => void;
}

export interface RunningServer {
  main: string;
  routing: string;
  db: string;
  apiKey: string;
  jwtSecret: string;
  store: Store;
  mainApp: FastifyInstance;
  manager: InstanceManager;
  close(): Promise<void>;
}

export const urlOf = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

export function startServer(cfg: ServerConfig): Promise<RunningServer> {
  return whileStarting(() => start(cfg));
}

async function start(cfg: ServerConfig): Promise<RunningServer> {
  const host = cfg.host ?? '127.0.0.1';
  const dbFile = cfg.db === ':memory:' ? cfg.db : path.resolve(cfg.db);
  const limits = resolveLimits(cfg.limits);
  // The server's connections never wait for another writer's lock: better-sqlite3 would wait on
  // the event loop. A write meeting an import's lock is answered 503 with Retry-After at once.
  const { db, created } = openDatabase(dbFile, { busyTimeoutMs: 0 });
  const store = new Store(db);
  const gates: Gate[] = [];
  try {
    const empty = !store.get1('SELECT 1 AS x FROM service_asset_findings LIMIT 1');
    if (cfg.seed !== 'none' && (created || (cfg.seed === 'demo' && empty))) seedDemo(store);
    const secrets = loadSecrets(dbFile);
    const apiKey = cfg.apiKey ?? secrets.apiKey;
    const urls = { main: '', routing: '' };
    const catalog = new InstanceCatalog(store, new KeyVault(vaultFileFor(dbFile), cfg.keyCipher), dbFile === ':memory:' ? process.cwd() : path.dirname(dbFile));
    let manager: InstanceManager | undefined;
    const pool = new ReaderPool({ size: cfg.readers ?? DEFAULT_READERS, cacheKiB: READER_CACHE_KIB });
    const reads = readsFor(store, pool);
    const deps: ApiDeps = {
      store: () => store,
      reads: () => reads,
      version: PLATFORM_VERSION,
      scan: { ports: DEFAULT_SCAN_PORTS, timeoutMs: 1500, budgetMs: 10_000, concurrency: 128, ...cfg.scan },
      instanceList: () => manager!.publicList(),
    };
    // The ports listen first; the apps (Fastify, every route, their schemas) are loaded and built
    // right after, and requests that arrive meanwhile wait for them (gate.ts).
    const gateOptions = { maxHeaderSize: MAX_HEADER_BYTES, headersTimeoutMs: limits.headersTimeoutMs, requestTimeoutMs: limits.requestTimeoutMs };
    const warm = cfg.warmReaders ? () => setImmediate(() => pool.warm()) : undefined;
    const mainGate = new Gate({ ...gateOptions, onFirstRequest: warm });
    const routingGate = new Gate(gateOptions);
    gates.push(mainGate, routingGate);
    urls.main = urlOf(host, await mainGate.listen(host, cfg.port ?? 9000));
    try {
      urls.routing = urlOf(host, await routingGate.listen(host, cfg.routingPort ?? 9009));
    } catch (e) {
      await mainGate.close();
      throw e;
    }
    cfg.onListening?.({ main: urls.main, routing: urls.routing, db: dbFile, apiKey });
    const [{ createInstanceApp, createMainApp }, { REDACT }] = await Promise.all([import('./app'), import('./base')]);
    // Logs go to stderr: stdout carries only what a command prints for scripts (serve's ready line).
    const logger = cfg.log ? { level: 'info', redact: REDACT, stream: process.stderr } : false;
    const extraHosts = ['127.0.0.1', 'localhost', '::1'].includes(host) ? [] : [host];
    const auth = { apiKey, jwtSecret: secrets.jwtSecret, extraHosts };
    const openLocal = async (file: string): Promise<LocalHandle> => {
      const local = openDatabase(file, { busyTimeoutMs: 0 });
      const localStore = new Store(local.db);
      const localReads = readsFor(localStore, pool);
      try {
        const app = await createInstanceApp({ deps: { ...deps, store: () => localStore, reads: () => localReads }, auth, logger, limits });
        return {
          app,
          async close() {
            await app.close();
            pool.forget(local.db.name);
            local.db.close();
          },
        };
      } catch (e) {
        local.db.close();
        throw e;
      }
    };
    let mainApp: FastifyInstance | undefined;
    manager = new InstanceManager({
      catalog,
      mainApp: () => mainApp!,
      urls: () => urls,
      openLocal,
      defaultTimeoutMs: cfg.instanceTimeoutMs ?? 10_000,
      maxBytes: cfg.maxRemoteBytes ?? 256 * 1024 * 1024,
      internalHeaders: () => ({ pgrapikey: apiKey }),
    });
    catalog.main();
    // The main port opens as soon as its app is built, and answers what waited for it before
    // the routing port's app is loaded and built (that port's requests wait for it meanwhile).
    let routingApp: FastifyInstance;
    try {
      mainApp = await createMainApp({ deps, auth, manager, rendererDir: cfg.rendererDir, logger, limits, servers: () => urls, serverFactory: mainGate.factory });
      mainGate.open();
      await new Promise((resolve) => setImmediate(resolve));
      const { createRoutingApp } = await import('./routing');
      routingApp = await createRoutingApp({ manager, auth, logger, limits, serverFactory: routingGate.factory });
    } catch (e) {
      await Promise.allSettled([mainGate.close(), routingGate.close(), mainApp?.close(), pool.close()]);
      throw e;
    }
    routingGate.open();
    let closed = false;
    const app = mainApp;
    const mgr = manager;
    return {
      main: urls.main,
      routing: urls.routing,
      db: dbFile,
      apiKey,
      jwtSecret: secrets.jwtSecret,
      store,
      mainApp: app,
      manager: mgr,
      async close() {
        if (closed) return;
        closed = true;
        // The gates own the servers: they drop every connection (the apps never listened themselves).
        await Promise.allSettled([mainGate.close(), routingGate.close(), app.close(), routingApp.close()]);
        await mgr.close();
        await pool.close();
        db.close();
      },
    };
  } catch (e) {
    await Promise.allSettled(gates.map((g) => g.close()));
    db.close();
    throw e;
  }
}
