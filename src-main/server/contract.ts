// Routes from the API contract: each operation registered once, with its declared schemas
// validating the request (zod, through fastify-type-provider-zod) and typing the handler.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { z } from 'zod';
import { isPending, routerPath, type OperationDef } from '../../src-shared/contract/operation';
import { mayWrite, writeGate } from './write-gate';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract's operation a route serves. */
    operationId?: string;
  }
}

/**
 * A part of an operation whose schema is made when its route is first asked for (the contract
 * declares it lazily): the validator compiler (base.ts) builds the real validator then.
 */
export class LazySchema {
  constructor(readonly make: () => z.ZodType | undefined) {}
}

type SchemaPart = 'params' | 'query' | 'headers' | 'body';

/** The schema of one part of `op` for the route: itself, or made later when still pending. */
function partOf(op: OperationDef, key: SchemaPart): z.ZodType | LazySchema | undefined {
  if (isPending(op, key)) return new LazySchema(() => op[key]);
  return op[key];
}

type In<S> = S extends z.ZodType ? z.output<S> : unknown;

export type OperationRequest<O extends OperationDef> = FastifyRequest<{
  Params: In<O['params']>;
  Querystring: In<O['query']>;
  Headers: In<O['headers']>;
  Body: In<O['body']>;
}>;

/**
 * A route's handler: its answer, or a promise of it. A handler with nothing to wait for may
 * answer at once (no promise per request: Fastify sends a plain value as it is).
 */
export type OperationHandler<O extends OperationDef> = (req: OperationRequest<O>, reply: FastifyReply) => Promise<unknown> | object;

export interface ServeOptions {
  /** Runs before validation (checks whose texts the spec fixes). */
  preValidation?: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The last path parameter takes the rest of the path, slashes included (`{path}` → `*`). */
  wildcard?: string;
  /** Route config besides the operationId (e.g. `streamBody`). */
  config?: Record<string, unknown>;
}

/**
 * Registers `op` on `app`. Inside a plugin registered with a prefix, the prefix is taken off the
 * declared path (the plugin adds it back).
 */
export function serve<O extends OperationDef>(app: FastifyInstance, op: O, handler: OperationHandler<O>, o: ServeOptions = {}): void {
  const prefix = app.prefix ?? '';
  if (!op.path.startsWith(prefix)) throw new Error(`${op.operationId}: ${op.path} is not under ${prefix}`);
  let url = routerPath(op.path.slice(prefix.length));
  if (o.wildcard) url = url.replace(`:${o.wildcard}`, '*');
  app.route({
    method: op.method,
    url,
    schema: {
      ...(!o.wildcard ? present('params', partOf(op, 'params')) : {}),
      ...present('querystring', partOf(op, 'query')),
      ...present('headers', partOf(op, 'headers')),
      ...(!op.bodyContent ? present('body', partOf(op, 'body')) : {}),
    },
    config: { ...o.config, operationId: op.operationId },
    ...(o.preValidation ? { preValidation: o.preValidation } : {}),
    handler: (mayWrite(op.method, op.operationId) ? gated(handler) : handler) as unknown as RouteHandlerMethod,
  });
}

/** A writing operation's handler: it waits while a change over a query holds the write gate (write-gate.ts). */
function gated<O extends OperationDef>(handler: OperationHandler<O>): OperationHandler<O> {
  return (req, reply) => (writeGate.held ? writeGate.free().then(() => handler(req, reply)) : handler(req, reply));
}

const present = <K extends string>(key: K, schema: z.ZodType | LazySchema | undefined): { [P in K]?: z.ZodType | LazySchema } =>
  schema ? ({ [key]: schema } as { [P in K]: z.ZodType | LazySchema }) : {};

/** Registers `fn` as a plugin under `prefix` (the routes inside declare their full paths). */
export function underPrefix(app: FastifyInstance, prefix: string, fn: (scope: FastifyInstance) => void): void {
  void app.register(async (scope) => fn(scope), { prefix });
}
