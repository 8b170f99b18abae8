// Starting the server: the database (created, migrated and seeded on first start), the
// secrets, and the two ports. Used by the CLI, the Electron main process and the tests.
//
// What the ports need to listen is all this module loads: the connection, the secrets, the
// gates. The ready line goes out then; the store, the registry, the reader threads and the apps
// are loaded right after (serving.ts), and requests that arrive meanwhile wait for them, but for
// the console's files, which the main port answers from the start (console-files.ts). The
// migrations (and the registry they are made from) load before the ports listen only when the
// file needs them, and the seed only when it is seeded.
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { loadSecrets } from '../config/secrets';
import { hasIncidents, openConnection, SCHEMA_VERSION, schemaVersionOf } from '../store/connection';
import type { Store } from '../store/store';
import type { InstanceManager } from '../instances/manager';
import type { KeyCipher } from '../instances/vault';
import type { ApiDeps } from './deps';
import { MAX_HEADER_BYTES, resolveLimits, type Limits } from './limits';
import { ConsoleFiles, findRendererDir } from './console-files';
import { Gate, letRequestsIn } from './gate';
import { whileStarting } from './heap';

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
  const { db, created } = openConnection(dbFile, { busyTimeoutMs: 0 });
  const gates: Gate[] = [];
  try {
    if (schemaVersionOf(db) !== SCHEMA_VERSION) (await import('../store/migrations')).migrate(db);
    let seeded: Store | undefined;
    if (cfg.seed !== 'none' && (created || (cfg.seed === 'demo' && !hasIncidents(db)))) {
      const [{ Store }, { seedDemo }] = await Promise.all([import('../store/store'), import('../store/seed')]);
      seeded = new Store(db);
      seedDemo(seeded);
    }
    const secrets = loadSecrets(dbFile);
    const apiKey = cfg.apiKey ?? secrets.apiKey;
    const gateOptions = { maxHeaderSize: MAX_HEADER_BYTES, headersTimeoutMs: limits.headersTimeoutMs, requestTimeoutMs: limits.requestTimeoutMs };
    const extraHosts = ['127.0.0.1', 'localhost', '::1'].includes(host) ? [] : [host];
    const rendererDir = findRendererDir(cfg.rendererDir);
    const files = rendererDir ? new ConsoleFiles(rendererDir, extraHosts) : undefined;
    const mainGate = new Gate(gateOptions, files);
    const routingGate = new Gate(gateOptions);
    gates.push(mainGate, routingGate);
    const urls = { main: urlOf(host, await mainGate.listen(host, cfg.port ?? 9000)), routing: '' };
    try {
      urls.routing = urlOf(host, await routingGate.listen(host, cfg.routingPort ?? 9009));
    } catch (e) {
      await mainGate.close();
      throw e;
    }
    cfg.onListening?.({ main: urls.main, routing: urls.routing, db: dbFile, apiKey });
    await letRequestsIn();
    const { serve } = await import('./serving');
    await letRequestsIn();
    return await serve({
      cfg,
      dbFile,
      db,
      store: seeded,
      secrets,
      apiKey,
      limits,
      urls,
      extraHosts,
      files,
      gates: { main: mainGate, routing: routingGate },
    });
  } catch (e) {
    await Promise.allSettled(gates.map((g) => g.close()));
    db.close();
    throw e;
  }
}
