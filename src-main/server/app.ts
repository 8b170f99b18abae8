// The main port's app: security, the instance's API (its record kinds' routes as route areas,
// built on first use: areas.ts), OpenAPI and the console.
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { InstanceManager } from '../instances/manager';
import { registerConsole } from './routes/console';
import { registerMe } from './routes/people';
import { registerSync } from './routes/sync';
import { isTicketedExport, registerTransfer } from './routes/transfer';
import { registerApi, rewriteAliases } from './api';
import { LazyAreas } from './areas';
import { appFamily, createBaseApp, type BaseOptions } from './base';
import type { Limits } from './limits';
import type { ApiDeps } from './deps';
import { registerOpenApi } from './openapi';
import { installSecurity, type AuthConfig } from './security';
import { isReferenceRequest, registerReference } from './reference';
import { findRendererDir, isStaticRequest, registerStatic } from './static';

export interface MainAppOptions {
  deps: ApiDeps;
  auth: AuthConfig;
  manager?: InstanceManager;
  rendererDir?: string;
  logger?: FastifyServerOptions['logger'];
  /** The base URLs of the two ports (the document's servers). */
  servers?: () => { main: string; routing: string };
  limits?: Partial<Limits>;
  /** A server made beforehand (gate.ts). */
  serverFactory?: BaseOptions['serverFactory'];
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
  if (opts.manager) registerConsole(app, opts.manager);
  registerMe(app, opts.deps.store);
  if (opts.manager) registerTransfer(app, { deps: opts.deps, manager: opts.manager });
  if (opts.manager) registerSync(app, { deps: opts.deps, manager: opts.manager });
  const rendererDir = findRendererDir(opts.rendererDir);
  registerReference(app, rendererDir);
  await registerStatic(app, rendererDir);
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
