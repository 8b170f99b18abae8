// A Fastify instance with the project's conventions: zod validation, JSON bodies that may be
// empty (scripts send Content-Type: application/json on every call) parsed with a depth bound,
// the limits (body size refused from Content-Length, bodies read at once, time-outs), plain JSON
// serialisation, and the error shape at every layer.
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import secureJson from 'secure-json-parse';
import { ApiError } from '../../src-shared/errors';
import { checkJsonDepth, JsonDepthError } from '../../src-shared/json';
import { PLATFORM_VERSION } from '../../src-shared/version';
import { LazySchema } from './contract';
import { maskTicket } from './export-tickets';
import { clientErrorAnswer, frameworkErrorAnswer, installErrorHandlers } from './errors';
import { ByteBudget, MAX_HEADER_BYTES, MAX_PARAM_LENGTH, resolveLimits, type Limits } from './limits';

export type App = FastifyInstance;

export interface BaseOptions {
  logger?: FastifyServerOptions['logger'];
  /** A server made beforehand (a port that listens before the app is built: gate.ts). */
  serverFactory?: FastifyServerOptions['serverFactory'];
  rewriteUrl?: FastifyServerOptions['rewriteUrl'];
  limits?: Partial<Limits>;
  /** What the apps of one port share (the port's app and its route areas, areas.ts). */
  family?: AppFamily;
}

/** The body budget and the request ids of one port, shared by every app serving it. */
export interface AppFamily {
  budget: ByteBudget;
  genReqId: () => string;
}

/** A port's shared parts; request ids count as Fastify's own do (`req-1`, `req-2`, ...). */
export function appFamily(limits?: Partial<Limits>): AppFamily {
  let next = 0;
  return {
    budget: new ByteBudget(resolveLimits(limits).bodiesInFlightBytes),
    genReqId: () => {
      next = (next + 1) & 0x7fffffff;
      return `req-${next.toString(36)}`;
    },
  };
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
const compilersFactory = { buildValidator: () => compileValidator, buildSerializer: serializeJson } as unknown as CompilersFactory;

type ValidatorRoute = Parameters<typeof validatorCompiler>[0];
type Validator = ReturnType<typeof validatorCompiler>;

/**
 * zod validation (fastify-type-provider-zod); a schema the contract makes lazily is made, and its
 * validator compiled, on the route's first request. A part that turns out to have no schema
 * takes the input as it is, as a route without that schema would.
 */
function compileValidator(route: ValidatorRoute): Validator {
  const schema = route.schema as unknown;
  if (!(schema instanceof LazySchema)) return validatorCompiler(route);
  let compiled: Validator | undefined;
  return (data) => {
    if (!compiled) {
      const made = schema.make();
      compiled = made ? validatorCompiler({ ...route, schema: made }) : (input: unknown) => ({ value: input });
    }
    return compiled(data);
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its body as a stream of its own (an upload to disk): no in-memory budget. */
    streamBody?: boolean;
  }
  interface FastifyInstance {
    /** The limits this app was made with. */
    limits: Limits;
  }
}

/** A request made in-process by the routing code (its body is already held by the outer request). */
const isInjected = (req: FastifyRequest): boolean => '_lightMyRequest' in req.raw;

const hasBody = (req: FastifyRequest): boolean => req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;

/** A request as the log writes it: its URL with any download ticket masked. */
function logRequest(req: FastifyRequest): Record<string, unknown> {
  return { method: req.method, url: maskTicket(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

/** Logger options with the request serializer above (a logger instance is taken as it is). */
function loggerOf(logger: BaseOptions['logger']): BaseOptions['logger'] {
  if (!logger || typeof logger !== 'object' || 'child' in logger) return logger ?? false;
  return { ...logger, serializers: { req: logRequest, ...logger.serializers } };
}

export function createBaseApp(opts: BaseOptions = {}): FastifyInstance {
  const limits = resolveLimits(opts.limits);
  const app = Fastify({
    schemaController: { compilersFactory },
    ...(opts.serverFactory ? { serverFactory: opts.serverFactory } : {}),
    logger: loggerOf(opts.logger),
    bodyLimit: limits.bodyBytes,
    forceCloseConnections: true,
    rewriteUrl: opts.rewriteUrl,
    ...(opts.family ? { genReqId: opts.family.genReqId } : {}),
    requestTimeout: limits.requestTimeoutMs,
    http: { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: limits.headersTimeoutMs },
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorAnswer,
    clientErrorHandler: clientErrorAnswer,
  });
  app.decorate('limits', limits);
  app.setValidatorCompiler(compileValidator as typeof validatorCompiler);
  app.setSerializerCompiler(serializeJson);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: limits.bodyBytes }, (_req, body, done) => {
    const text = body as string;
    if (isBlank(text)) return done(null, undefined);
    try {
      done(null, parseJsonBody(text));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  // Bodies read and handled at once are bounded: a body past the budget waits for earlier ones.
  // A callback hook: a request without a body (most) costs a check, no promise.
  const budget = opts.family?.budget ?? new ByteBudget(limits.bodiesInFlightBytes);
  app.addHook('preParsing', (req, reply, payload, done) => {
    if (!hasBody(req) || isInjected(req) || req.routeOptions.config?.streamBody) return done(null, payload);
    const announced = Number(req.headers['content-length']);
    // Above the limit: Fastify refuses it from Content-Length (413) without reading it.
    if (Number.isFinite(announced) && announced > limits.bodyBytes) return done(null, payload);
    const want = Number.isFinite(announced) && announced >= 0 ? announced : limits.bodyBytes;
    if (want === 0) return done(null, payload);
    let held = false;
    let closed = false;
    reply.raw.once('close', () => {
      closed = true;
      if (held) budget.release(want);
      held = false;
    });
    const wait = budget.acquire(want);
    if (!wait) {
      held = true;
      return done(null, payload);
    }
    void wait.then(() => {
      if (closed) budget.release(want);
      else held = true;
      done(null, payload);
    });
  });
  installErrorHandlers(app);
  // Instances routing to this server read the platform version from every answer.
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('x-radar-platform-version', PLATFORM_VERSION);
    done(null, payload);
  });
  return app;
}

/**
 * The one JSON parse of every body: nesting bounded (checked before parsing), keys that would
 * reach an object's prototype (`__proto__`, `constructor.prototype`) refused. Errors are 400s.
 */
export function parseJsonBody(text: string): unknown {
  try {
    checkJsonDepth(text);
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    if (e instanceof JsonDepthError) throw new ApiError(400, `invalid JSON body: ${e.message}`);
    if (/forbidden (prototype|constructor) property/.test((e as Error).message)) {
      throw new ApiError(400, 'invalid JSON body: the keys __proto__ and constructor.prototype are not allowed');
    }
    throw new ApiError(400, 'invalid JSON body');
  }
}

/** Only JSON whitespace (an empty body with a JSON content type is no body). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false;
  }
  return true;
}
