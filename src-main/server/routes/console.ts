// The console's own API (main port): managing the instances the routing port serves.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../../src-shared/errors';
import { instanceInputSchema, instancePatchSchema, instanceTestSchema, instanceViewSchema } from '../../../src-shared/schemas/instances';
import type { InstanceManager } from '../../instances/manager';
import { routeRequest } from '../routing';
import { errors } from './resources';

export const CONSOLE_URL = '/console/v1';

export function registerConsole(app: FastifyInstance, manager: InstanceManager): void {
  const z_ = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['console'];
  const idParams = z.object({ id: z.string() });
  z_.get(`${CONSOLE_URL}/instances`, {
    schema: { tags, summary: 'Instances (keys are never answered)', response: { 200: z.array(instanceViewSchema), ...errors(401, 500) } },
    handler: async () => manager.views(),
  });
  z_.post(`${CONSOLE_URL}/instances`, {
    schema: { tags, summary: 'Add a local database or a remote platform', body: instanceInputSchema, response: { 201: instanceViewSchema, ...errors(400, 401, 409, 500) } },
    handler: async (req, reply) => reply.code(201).send(await manager.add(req.body)),
  });
  z_.put(`${CONSOLE_URL}/instances/:id`, {
    schema: { tags, summary: 'Change an instance', params: idParams, body: instancePatchSchema, response: { 200: instanceViewSchema, ...errors(400, 401, 404, 409, 500) } },
    handler: async (req) => manager.update(req.params.id, req.body),
  });
  z_.delete(`${CONSOLE_URL}/instances/:id`, {
    schema: { tags, summary: 'Remove an instance (its database file is kept)', params: idParams, response: { 200: z.object({ id: z.string() }), ...errors(400, 401, 404, 500) } },
    handler: async (req) => {
      const info = manager.find(req.params.id);
      if (!info) throw notFound();
      await manager.remove(info.id);
      return { id: info.id };
    },
  });
  z_.post(`${CONSOLE_URL}/instances/:id/test`, {
    schema: { tags, summary: 'Test the connection to an instance', params: idParams, response: { 200: instanceTestSchema, ...errors(401, 404, 500) } },
    handler: async (req) => manager.test(req.params.id),
  });
  // The routing port's behaviour on the main origin, for the console page (no CORS needed):
  // /console/v1/route/<any path> is routed as <any path> on the routing port.
  const routeMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
  app.route({
    method: [...routeMethods],
    url: `${CONSOLE_URL}/route/*`,
    schema: { tags, summary: 'The routing port, on the main origin: PgrSelectedInstance routes, its absence fans out', hide: false },
    handler: async (req, reply) => {
      const url = req.url.slice(`${CONSOLE_URL}/route`.length) || '/';
      const body = req.body === undefined || req.body === null ? undefined : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
      return routeRequest(manager, req, reply, url, body);
    },
  });
  z_.get(`${CONSOLE_URL}/instances/health`, {
    schema: {
      tags,
      summary: 'Health of every instance, tested in parallel',
      response: { 200: z.array(instanceTestSchema.extend({ id: z.string() })), ...errors(401, 500) },
    },
    handler: async () => Promise.all(manager.list().map(async (i) => ({ id: i.id, ...(await manager.test(i.id)) }))),
  });
}
