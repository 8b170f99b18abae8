// Every non-2xx answer is {error, error_code} (+ extra.fields on 409). Unexpected failures are
// a bare 500 `Internal Server Error`: no stack, no SQL, no input echoed back.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, ERR, errorBody, VERBATIM_TEXTS } from '../../src-shared/errors';

type Issue = { instancePath?: string; message?: string; keyword?: string; params?: Record<string, unknown> };

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
  return reply.code(status).type('application/json; charset=utf-8').send(errorBody(status, message, extra));
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ApiError) return sendError(reply, err.status, err.message, err.extra);
    if (hasZodFastifySchemaValidationErrors(err)) {
      return sendError(reply, 400, validationMessage(err.validation, err.validationContext));
    }
    if (err.validation) return sendError(reply, 400, validationMessage(err.validation as Issue[], err.validationContext));
    // Another writer (an import into this database) holds the write lock beyond the busy time-out.
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      return sendError(reply, 503, 'the database is busy (an import is writing to it); try again shortly');
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, media type, body too large): keep the status, a plain text.
      const text =
        err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'unsupported content type'
          : err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 'request body is too large'
            : err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError'
              ? 'invalid JSON body'
              : ERR.badRequest;
      return sendError(reply, status, text);
    }
    req.log.error({ err: { message: err.message, code: err.code } }, 'request failed');
    return sendError(reply, 500, ERR.internal);
  });
  app.setNotFoundHandler((_req, reply) => sendError(reply, 404, ERR.notFound));
}
