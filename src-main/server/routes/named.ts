// The spec's named endpoints: each is handled by the module of its record kind
// (src-main/store/kinds), registered here over the contract's declaration of the operation.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { namedOperations } from '../../../src-shared/contract/index';
import type { OperationDef } from '../../../src-shared/contract/operation';
import { namedHandler, type NamedOperation, type NamedRequest } from '../../store/kinds/index';
import { Runner } from '../../store/query/runner';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

/** The handler of `op` from its kind's module; a declared operation without one is a start-up error. */
export function handlerOf(op: OperationDef): NamedOperation {
  const h = namedHandler(op.operationId);
  if (!h) throw new Error(`${op.operationId}: no kind module handles this operation`);
  return h;
}

/** Serves `op` by its kind module's handler on `scope`. */
export function serveNamed(scope: FastifyInstance, deps: ApiDeps, op: OperationDef): void {
  const h = handlerOf(op);
  const run = async (req: FastifyRequest, reply: FastifyReply) => {
    const store = deps.store();
    const request: NamedRequest = {
      store,
      runner: new Runner(store),
      body: req.body,
      params: (req.params ?? {}) as Record<string, string | undefined>,
      headers: req.headers,
      userId: req.userId,
    };
    const out = await h.handle(request);
    reply.code(h.status ?? 200);
    return out === undefined ? reply.send() : reply.send(out);
  };
  const pre = h.preValidation;
  serve(scope, op, run as never, pre ? { preValidation: async (req: FastifyRequest) => pre(req.headers) } : {});
}

/**
 * Registers the named endpoints under the prefix of `scope` (the plugin of the data-management or
 * the agent API); with `area`, only those of that record kind (`<prefix>/<area>/...`).
 */
export function registerNamed(scope: FastifyInstance, deps: ApiDeps, area?: string): void {
  const under = area === undefined ? `${scope.prefix}/` : `${scope.prefix}/${area}/`;
  for (const op of Object.values(namedOperations())) {
    if (op.path.startsWith(under)) serveNamed(scope, deps, op);
  }
}
