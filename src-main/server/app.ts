// The main port's app: security, the instance's API (its record kinds' routes as route areas,
// built on first use: areas.ts), OpenAPI and the console. The console's imports and exports and
// its sync are route areas too: their modules are loaded with them, on their first request, so
// an API request right after the start does not wait for them. The console's files are answered
// by the port itself (console-files.ts), before this app exists and after.
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { InstanceManager } from '../instances/manager';
import { CONSOLE_URL, registerConsole } from './routes/console';
import { registerMe } from './routes/people';
import { registerApi, rewriteAliases } from './api';
import { LazyAreas } from './areas';
import { isTicketedExport } from './export-tickets';
import { appFamily, createBaseApp, type BaseOptions } from './base';
import type { Limits } from './limits';
import type { ApiDeps } from './deps';
import { registerOpenApi } from './openapi';
import { installSecurity, type AuthConfig } from './security';
import { isReferenceRequest, registerReference } from './reference';
import type { ConsoleFiles } from './console-files';
import { CONSOLE_OPENING_PATHS, isStaticRequest, registerNoConsole, registerStaticHeaders } from './static';

/** The paths of the console's imports, jobs, exports and snapshots (routes/transfer.ts), and of its sync (routes/sync.ts). */
const TRANSFER_PATHS = ['import', 'jobs', 'export', 'snapshot'].map((name) => ({ path: `${CONSOLE_URL}/${name}`, under: true }));
const SYNC_PATHS = [{ path: `${CONSOLE_URL}/sync`, under: true }];

export interface MainAppOptions {
  deps: ApiDeps;
  auth: AuthConfig;
  manager?: InstanceManager;
  /** The console's files the port answers (gate.ts); none when the console is not built. */
  files?: ConsoleFiles;
  logger?: FastifyServerOptions['logger'];
  /** The base URLs of the two ports (the document's servers). */
  servers?: () => { main: string; routing: string };
  limits?: Partial<Limits>;
  /** A server made beforehand (gate.ts). */
  serverFactory?: BaseOptions['serverFactory'];
  /** Awaited between the long steps of the build (the port lets waiting requests in: gate.ts). */
  pause?: () => Promise<void>;
}

export async function createMainApp(opts: MainAppOptions): Promise<FastifyInstance> {
  const family = appFamily(opts.limits);
  const base = { logger: opts.logger, limits: opts.limits, family, rewriteUrl: (req: { url?: string }) => rewriteAliases(req.url ?? '/') };
  const auth = { ...opts.auth, isPublic: (req: FastifyRequest) => isStaticRequest(req) || isReferenceRequest(req) || (!!opts.manager && isTicketedExport(req)) };
  const areas = new LazyAreas(() => withSecurity(createBaseApp(base), auth), rewriteAliases);
  const app = createBaseApp({ ...base, serverFactory: opts.serverFactory && areas.serverFactory(opts.serverFactory) });
  areas.install(app);
  installSecurity(app, auth);
  registerOpenApi(app, { version: opts.deps.version, servers: opts.servers ?? (() => ({ main: 'http://127.0.0.1:9000', routing: 'http://127.0.0.1:9009' })) });
  registerApi(app, opts.deps, areas);
  await opts.pause?.();
  if (opts.manager) registerConsole(app, opts.manager);
  registerMe(app, opts.deps.store);
  if (opts.manager) {
    const o = { deps: opts.deps, manager: opts.manager };
    areas.addPaths('transfer', TRANSFER_PATHS, async (area) => (await import('./routes/transfer')).registerTransfer(area, o));
    areas.addPaths('sync', SYNC_PATHS, async (area) => (await import('./routes/sync')).registerSync(area, o));
  }
  registerReference(app, opts.files?.dir);
  registerStaticHeaders(app);
  if (!opts.files) registerNoConsole(app);
  // The console opening in a browser: the area of its first page is built while it loads its
  // code, those of the requests after its first rows once that page is answered.
  else {
    const [firstPage, ...next] = CONSOLE_OPENING_PATHS;
    opts.files.onIndexServed(() =>
      setImmediate(() => {
        areas.buildAhead(firstPage!);
        for (const p of next) areas.buildAfter(p, firstPage!);
      }),
    );
  }
  await app.ready();
  return app;
}

/** The API of one more local database, reached in-process from the routing port. */
export async function createInstanceApp(opts: { deps: ApiDeps; auth: AuthConfig; logger?: FastifyServerOptions['logger']; limits?: Partial<Limits> }): Promise<FastifyInstance> {
  const base = { logger: opts.logger, limits: opts.limits, family: appFamily(opts.limits), rewriteUrl: (req: { url?: string }) => rewriteAliases(req.url ?? '/') };
  const areas = new LazyAreas(() => withSecurity(createBaseApp(base), opts.auth), rewriteAliases);
  const app = createBaseApp(base);
  areas.install(app);
  installSecurity(app, opts.auth);
  registerApi(app, opts.deps, areas);
  await app.ready();
  return app;
}

function withSecurity(app: FastifyInstance, auth: AuthConfig): FastifyInstance {
  installSecurity(app, auth);
  return app;
}
