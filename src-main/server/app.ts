// The main port's app: security, the instance's API, OpenAPI and the console.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { InstanceManager } from '../instances/manager';
import { registerConsole } from './routes/console';
import { registerMe } from './routes/people';
import { registerSync } from './routes/sync';
import { isTicketedExport, registerTransfer } from './routes/transfer';
import { registerApi, rewriteAliases } from './api';
import { createBaseApp, type BaseOptions } from './base';
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
  const app = createBaseApp({ logger: opts.logger, limits: opts.limits, serverFactory: opts.serverFactory, rewriteUrl: (req) => rewriteAliases(req.url ?? '/') });
  installSecurity(app, { ...opts.auth, isPublic: (req) => isStaticRequest(req) || isReferenceRequest(req) || (!!opts.manager && isTicketedExport(req)) });
  registerOpenApi(app, { version: opts.deps.version, servers: opts.servers ?? (() => ({ main: 'http://127.0.0.1:9000', routing: 'http://127.0.0.1:9009' })) });
  registerApi(app, opts.deps);
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
  const app = createBaseApp({ logger: opts.logger, limits: opts.limits, rewriteUrl: (req) => rewriteAliases(req.url ?? '/') });
  installSecurity(app, opts.auth);
  registerApi(app, opts.deps);
  await app.ready();
  return app;
}
