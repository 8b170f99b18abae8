// The second half of a start (start.ts): once the ports listen, the store, the instance catalog,
// the reader threads and the two apps. Requests that arrived meanwhile wait in the gates and are
// answered as soon as their port's app is built (the console's files are answered meanwhile:
// console-files.ts).
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { PLATFORM_VERSION } from '../../src-shared/version';
import type { Secrets } from '../config/secrets';
import { DEFAULT_SCAN_PORTS } from '../scan/probe';
import type { Db } from '../store/connection';
import { openDatabase } from '../store/db';
import { Store } from '../store/store';
import { InstanceCatalog } from '../instances/catalog';
import { InstanceManager, type LocalHandle } from '../instances/manager';
import { KeyVault, vaultFileFor } from '../instances/vault';
import { ReaderPool, readsFor } from '../store/reader/pool';
import type { ApiDeps } from './deps';
import type { ConsoleFiles } from './console-files';
import { letRequestsIn, type Gate } from './gate';
import type { Limits } from './limits';
import type { RunningServer, ServerConfig } from './start';

/**
 * Reader threads by default: two (measured on two cores, bench:load: more searches per second
 * and a faster console under a script's load than one; each costs some memory).
 */
const DEFAULT_READERS = 2;
/** Page cache of each reader's connection (the server's own keeps the default). */
const READER_CACHE_KIB = 8 * 1024;
/** How long the routing port's app waits for its port's first request before it is built anyway. */
const ROUTING_BUILD_DELAY_MS = 1500;

export interface Listening {
  cfg: ServerConfig;
  dbFile: string;
  /** The server's connection, migrated. */
  db: Db;
  /** Its store when the start already made one (to seed it). */
  store?: Store;
  secrets: Secrets;
  apiKey: string;
  limits: Limits;
  urls: { main: string; routing: string };
  /** Host names the ports answer to besides the loopback ones. */
  extraHosts: string[];
  /** The console's files, answered by the main port's gate (none when the console is not built). */
  files?: ConsoleFiles;
  gates: { main: Gate; routing: Gate };
}

export async function serve(l: Listening): Promise<RunningServer> {
  const { cfg, dbFile, db, secrets, apiKey, limits, urls } = l;
  const mainGate = l.gates.main;
  const routingGate = l.gates.routing;
  const store = l.store ?? new Store(db);
  const catalog = new InstanceCatalog(store, new KeyVault(vaultFileFor(dbFile), cfg.keyCipher), dbFile === ':memory:' ? process.cwd() : path.dirname(dbFile));
  let manager: InstanceManager | undefined;
  const pool = new ReaderPool({ size: cfg.readers ?? DEFAULT_READERS, cacheKiB: READER_CACHE_KIB });
  const reads = readsFor(store, pool);
  // The first request to the main port starts the first reader thread (warmReaders), its
  // connection to the server's database open: a console opening on a server just started (its
  // index.html, answered while the apps are built) has it ready for its first page; a server
  // nobody has asked anything holds none.
  if (cfg.warmReaders) mainGate.onFirstRequest(() => setImmediate(() => pool.warm(store.db.memory ? undefined : store.db.name)));
  const deps: ApiDeps = {
    store: () => store,
    reads: () => reads,
    version: PLATFORM_VERSION,
    scan: { ports: DEFAULT_SCAN_PORTS, timeoutMs: 1500, budgetMs: 10_000, concurrency: 128, ...cfg.scan },
    instanceList: () => manager!.publicList(),
  };
  let mainApp: FastifyInstance | undefined;
  let routingApp: FastifyInstance | undefined;
  let routingBuild: Promise<void> | undefined;
  let routingTimer: NodeJS.Timeout | undefined;
  let makeRouting: (() => Promise<FastifyInstance>) | undefined;
  try {
    // Fastify, then the routes' modules: the port lets waiting requests in after each.
    const { REDACT } = await import('./base');
    await letRequestsIn();
    const { createInstanceApp, createMainApp } = await import('./app');
    await letRequestsIn();
    // Logs go to stderr: stdout carries only what a command prints for scripts (serve's ready line).
    const logger = cfg.log ? { level: 'info', redact: REDACT, stream: process.stderr } : false;
    const auth = { apiKey, jwtSecret: secrets.jwtSecret, extraHosts: l.extraHosts };
    makeRouting = async () => {
      const { createRoutingApp } = await import('./routing');
      return createRoutingApp({ manager: manager!, auth, logger, limits, serverFactory: routingGate.factory });
    };
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
    // The main port opens as soon as its app is built, and answers what waited for it.
    mainApp = await createMainApp({ deps, auth, manager, files: l.files, pause: letRequestsIn, logger, limits, servers: () => urls, serverFactory: mainGate.factory });
    mainGate.open();
  } catch (e) {
    await Promise.allSettled([mainGate.close(), routingGate.close(), mainApp?.close(), manager?.close(), pool.close()]);
    throw e;
  }
  // The routing port's app is built on that port's first request, or once the main port has
  // had its opening to itself (a console opened on a server just started asks its first page
  // meanwhile): its requests wait in the gate until then.
  const buildRouting = (): Promise<void> => {
    clearTimeout(routingTimer);
    routingBuild ??= (async () => {
      routingApp = await makeRouting!();
      routingGate.open();
    })().catch((e: unknown) => {
      routingGate.fail();
      process.stderr.write(`radar: the routing port's app could not be built: ${e instanceof Error ? e.message : String(e)}\n`);
    });
    return routingBuild;
  };
  routingGate.onFirstRequest(() => void buildRouting());
  routingTimer = setTimeout(() => void buildRouting(), ROUTING_BUILD_DELAY_MS);
  routingTimer.unref();
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
      clearTimeout(routingTimer);
      await routingBuild;
      await Promise.allSettled([mainGate.close(), routingGate.close(), app.close(), routingApp?.close()]);
      await mgr.close();
      await pool.close();
      db.close();
    },
  };
}
