// The master host's instance list (spec: Public API v1; contract.md: also under /karaken).
import type { FastifyInstance } from 'fastify';
import { publicOperations } from '../../../src-shared/contract/index';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

export function registerTenancy(app: FastifyInstance, deps: ApiDeps): void {
  const ops = publicOperations();
  // Answered at once: the list is read from the catalog kept per data version.
  for (const op of [ops.instance_list, ops.instance_list_karaken]) serve(app, op, () => deps.instanceList());
}
