// The master host's instance list (spec: Public API v1; contract.md: also under /karaken).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { instanceSchema } from '../../../src-shared/schemas/instances';
import type { ApiDeps } from '../deps';
import { errors } from './resources';

export function registerTenancy(app: FastifyInstance, deps: ApiDeps): void {
  for (const url of ['/tenancy/instance/list', '/karaken/instance/list']) {
    app.withTypeProvider<ZodTypeProvider>().get(url, {
      schema: { tags: ['instances'], summary: 'Instances of the master host, in sort_order', response: { 200: z.array(instanceSchema), ...errors(401, 500) } },
      handler: async () => deps.instanceList(),
    });
  }
}
