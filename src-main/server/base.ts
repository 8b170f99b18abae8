// A Fastify instance with the project's conventions: zod validation, JSON bodies that may be
// empty (scripts send Content-Type: application/json on every call), plain JSON serialisation,
// and the error shape.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { PLATFORM_VERSION } from '../../src-shared/version';
import { installErrorHandlers } from './errors';

export type App = FastifyInstance;

export const BODY_LIMIT = 64 * 1024 * 1024;

export interface BaseOptions {
  logger?: FastifyServerOptions['logger'];
  rewriteUrl?: FastifyServerOptions['rewriteUrl'];
}

export const REDACT = ['req.headers.pgrapikey', 'req.headers.authorization', 'req.headers.cookie'];

/** Answers are written with JSON.stringify (the schemas describe them; they do not re-check them). */
const serializeJson = () => (data: unknown) => JSON.stringify(data);

/**
 * The project's compilers from the start, so Fastify never loads its default JSON-schema ones
 * (Ajv and fast-json-stringify: a sizeable share of the start-up). Fastify types these factories
 * for Ajv; ours take zod schemas.
 */
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
const compilersFactory = { buildValidator: () => validatorCompiler, buildSerializer: serializeJson } as unknown as CompilersFactory;

export function createBaseApp(opts: BaseOptions = {}): FastifyInstance {
  const app = Fastify({
    schemaController: { compilersFactory },
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    rewriteUrl: opts.rewriteUrl,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 500 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializeJson);
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return json(req, body as string, done);
  });
  installErrorHandlers(app);
  // Instances routing to this server read the platform version from every answer.
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('x-radar-platform-version', PLATFORM_VERSION);
    done(null, payload);
  });
  return app;
}
