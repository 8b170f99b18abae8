// The console's own API (main port): managing the instances the routing port serves, and the
// routing port's behaviour on the main origin.
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { notFound } from '../../../src-shared/errors';
import type { InstanceManager } from '../../instances/manager';
import { serve } from '../contract';
import { routeRequest } from '../routing';

export const CONSOLE_URL = '/console/v1';

export function registerConsole(app: FastifyInstance, manager: InstanceManager): void {
  const ops = consoleOperations();
  serve(app, ops.instances_list, async () => manager.views());
  serve(app, ops.instances_add, async (req, reply) => reply.code(201).send(await manager.add(req.body)));
  serve(app, ops.instances_update, async (req) => manager.update(req.params.id, req.body));
  serve(app, ops.instances_remove, async (req) => {
    const info = manager.find(req.params.id);
    if (!info) throw notFound();
    await manager.remove(info.id);
    return { id: info.id };
  });
  serve(app, ops.instances_test, async (req) => manager.test(req.params.id));
  serve(app, ops.instances_health, async () => Promise.all(manager.list().map(async (i) => ({ id: i.id, ...(await manager.test(i.id)) }))));
  // /console/v1/route/<any path> is routed as <any path> on the routing port (no CORS needed).
  for (const op of [ops.route_get, ops.route_post, ops.route_put, ops.route_delete, ops.route_patch]) {
    serve(
      app,
      op,
      async (req, reply) => {
        const url = routedUrl(req.url.slice(`${CONSOLE_URL}/route`.length) || '/');
        const body = req.body === undefined || req.body === null ? undefined : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
        return routeRequest(manager, req, reply, url, body);
      },
      { wildcard: 'path' },
    );
  }
}

/**
 * The routed path and query. The path comes as written (`/console/v1/route/data/public/...`) or
 * as the one `{path}` parameter the contract declares, its slashes encoded as OpenAPI clients
 * expand it (`/console/v1/route/data%2Fpublic%2F...`): encoded slashes in a path without others
 * are slashes. Nothing else is decoded here.
 */
export function routedUrl(rest: string): string {
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? '' : rest.slice(q);
  return /%2f/i.test(path) && !path.slice(1).includes('/') ? `${path.replace(/%2f/gi, '/')}${query}` : rest;
}
