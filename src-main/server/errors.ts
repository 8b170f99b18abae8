// Every non-2xx answer is {error, error_code} (+ extra.fields on 409), whichever layer refuses
// the request: a handler or the store (ApiError), validation, Fastify itself (bad %-encoding,
// an over-long parameter, a body too large or not JSON), the router (no such path, or not with
// this method: 405 with Allow) and Node's HTTP parser (malformed requests, headers too large,
// time-outs), which answers on the raw socket. Unexpected failures are a bare 500
// `Internal Server Error`: no stack, no SQL, no input echoed back.
import http from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import FindMyWay from 'find-my-way';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, ERR, errorBody, VERBATIM_TEXTS } from '../../src-shared/errors';
import { JsonDepthError } from '../../src-shared/json';
import { isBusy } from '../store/connection';
import { MAX_PARAM_LENGTH } from './limits';

export { clientErrorAnswer } from './client-error';

type Issue = { instancePath?: string; message?: string; keyword?: string; params?: Record<string, unknown> };

/** Seconds a client is asked to wait before writing again to a database another writer holds. */
export const BUSY_RETRY_AFTER_S = 1;
export const BUSY_TEXT = 'the database is busy (an import is writing to it); try again shortly';

type ZodIssueLike = { code?: string; path?: (string | number)[]; message?: string; errors?: ZodIssueLike[][]; keys?: string[] };

/**
 * For a body of two styles (a union), the issue of the style the input came closest to: the
 * branch whose first issue lies deepest, rather than a type mismatch at the union itself.
 */
function closestBranch(issue: Issue): Issue {
  const branches = issue.keyword === 'invalid_union' ? (issue.params?.errors as ZodIssueLike[][] | undefined) : undefined;
  if (!branches?.length) return issue;
  // A type mismatch at the union itself says the input is not of that style at all; a missing
  // field, that it barely is; anything else (an unknown key, a bad value inside) that it is.
  const score = (b: ZodIssueLike[]) => {
    const f = b[0];
    if (!f) return -1;
    const depth = f.path?.length ?? 0;
    if (f.code === 'invalid_type' && /received undefined$/.test(f.message ?? '')) return 0.5;
    if (f.code === 'invalid_type' && depth === 0) return 0;
    return depth + 1;
  };
  const best = [...branches].sort((a, b) => score(b) - score(a))[0]!;
  const f = best[0];
  if (!f || score(best) <= 0) return issue;
  const base = issue.instancePath && issue.instancePath !== '/' ? issue.instancePath : '';
  const { code, path = [], message, ...params } = f;
  return closestBranch({ keyword: code, message, params, instancePath: `${base}/${path.join('/')}`.replace(/\/$/, '') });
}

/** One readable line from the first validation issue: `path: message`, or the spec's text verbatim. */
export function validationMessage(issues: readonly Issue[], context?: string): string {
  const first = issues[0] && closestBranch(issues[0]);
  if (!first) return ERR.badRequest;
  const msg = first.message ?? ERR.badRequest;
  if (VERBATIM_TEXTS.has(msg) || /^\S+ is required$/.test(msg)) return msg;
  if (first.keyword === 'unrecognized_keys') {
    const keys = (first.params?.keys as string[] | undefined) ?? [];
    const where = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    return `unknown field${keys.length > 1 ? 's' : ''}: ${keys.map((k) => (where ? `${where}.${k}` : k)).join(', ')}`;
  }
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const prefix = path || (context && context !== 'body' ? context : '');
  if (/received undefined$/.test(msg) || (!path && /received null$/.test(msg))) return `${prefix || context || 'body'} is required`;
  return prefix ? `${prefix}: ${msg}` : msg;
}

export function sendError(reply: FastifyReply, status: number, message: string, extra?: { fields: string[] }): FastifyReply {
  if (status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(BUSY_RETRY_AFTER_S));
  return reply.code(status).type('application/json; charset=utf-8').send(errorBody(status, message, extra));
}

/** Fastify's own refusals (parsing, routing), each with its status and a plain text. */
const FASTIFY_TEXTS: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  FST_ERR_BAD_URL: 'invalid URL: the path has bad %-encoding',
  FST_ERR_MAX_PARAM_LENGTH: `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content type',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported content type',
  FST_ERR_CTP_EMPTY_TYPE: 'unsupported content type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is too large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the request body does not match its Content-Length',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid JSON body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid JSON body: it is empty',
  FST_ERR_CTP_INSTANCE_ALREADY_STARTED: ERR.badRequest,
});

/** The status and text of any error thrown while serving a request. */
export function describeError(err: unknown): { status: number; text: string; extra?: { fields: string[] } } {
  if (err instanceof ApiError) return { status: err.status, text: err.message, extra: err.extra };
  const e = err as FastifyError & { validation?: Issue[] };
  if (hasZodFastifySchemaValidationErrors(e)) return { status: 400, text: validationMessage(e.validation, e.validationContext) };
  if (e.validation) return { status: 400, text: validationMessage(e.validation, e.validationContext) };
  if (err instanceof JsonDepthError) return { status: 400, text: `invalid JSON body: ${err.message}` };
  // Another writer (an import into this database) holds the write lock.
  if (isBusy(err)) return { status: 503, text: BUSY_TEXT };
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const known = typeof e.code === 'string' ? FASTIFY_TEXTS[e.code] : undefined;
    if (known) return { status, text: known };
    return { status, text: http.STATUS_CODES[status] ?? ERR.badRequest };
  }
  return { status: 500, text: ERR.internal };
}

/** Fastify's routing-time refusals (frameworkErrors): bad %-encoding, over-long parameters. */
export function frameworkErrorAnswer(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const { status, text } = describeError(err);
  void sendError(reply, status, text);
}

const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * Which methods a path is served with, from the routes as registered: a path served with other
 * methods than the one asked is 405 with `Allow`, not 404. A parametric route (`/:id`) does not
 * take a path that is some other method's static route (`GET .../search` is 405, not "id should
 * be uuid format").
 */
class MethodIndex {
  /** The router of every route's methods, made on the first request no route takes (most never need it). */
  private router: ReturnType<typeof FindMyWay> | null = null;
  private readonly routes: [string, string][] = [];
  private readonly statics = new Map<string, Set<string>>();

  add(methods: string | string[], url: string): void {
    for (const m of Array.isArray(methods) ? methods : [methods]) {
      if (!(ROUTE_METHODS as readonly string[]).includes(m)) continue;
      if (this.router) on(this.router, m, url);
      else this.routes.push([m, url]);
      if (!url.includes(':') && !url.includes('*')) {
        const key = normalise(url);
        let set = this.statics.get(key);
        if (!set) this.statics.set(key, (set = new Set()));
        set.add(m);
      }
    }
  }

  /** Methods a path is served with (by any route). */
  allowed(path: string): string[] {
    if (!this.router) {
      const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH });
      for (const [m, url] of this.routes.splice(0)) on(router, m, url);
      this.router = router;
    }
    const router = this.router;
    return ROUTE_METHODS.filter((m) => {
      try {
        return router.find(m, path) !== null;
      } catch {
        return false;
      }
    });
  }

  /** Methods of a static route at exactly this path. */
  staticAllowed(path: string): string[] {
    return [...(this.statics.get(normalise(path)) ?? [])];
  }
}

function on(router: ReturnType<typeof FindMyWay>, method: string, url: string): void {
  try {
    router.on(method as 'GET', url, () => undefined);
  } catch {
    // the same route seen twice (a HEAD route Fastify adds for GET)
  }
}

const normalise = (p: string): string => {
  const s = p.replace(/\/{2,}/g, '/');
  return s.length > 1 && s.endsWith('/') ? s.slice(0, -1) : s;
};

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

function sendMethodNotAllowed(reply: FastifyReply, method: string, allow: string[]): FastifyReply {
  reply.header('allow', allow.join(', '));
  return sendError(reply, 405, `method ${method} is not allowed here; allowed: ${allow.join(', ')}`);
}

export function installErrorHandlers(app: FastifyInstance): void {
  const methods = new MethodIndex();
  // A parametric route does not take a path that is another method's static route: checked
  // before the route's own preValidation hooks, on those routes only (a static route's request
  // pays nothing for it).
  const staticWins: preValidationHookHandler = (req, reply, done) => {
    const allow = methods.staticAllowed(pathOf(req.url));
    if (allow.length && !allow.includes(req.method)) return void sendMethodNotAllowed(reply, req.method, allow);
    done();
  };
  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    methods.add(route.method, url);
    if (url.includes(':') || url.includes('*')) {
      const own = route.preValidation;
      route.preValidation = [staticWins, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
    }
  });
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const { status, text, extra } = describeError(err);
    if (status === 500) req.log.error({ err: { message: err.message, code: err.code } }, 'request failed');
    return sendError(reply, status, text, extra);
  });
  app.setNotFoundHandler((req, reply) => {
    const path = pathOf(req.url);
    const statics = methods.staticAllowed(path);
    const allow = statics.length ? statics : methods.allowed(path);
    if (allow.length) return sendMethodNotAllowed(reply, req.method, allow);
    return sendError(reply, 404, ERR.notFound);
  });
}
