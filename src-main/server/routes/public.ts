// Public API v1 (spec: Public API v1): lists with the standard filters, the incident status
// and risk updates, and the incident create of the routing port.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { publicOperations } from '../../../src-shared/contract/index';
import { badRequest } from '../../../src-shared/errors';
import { PUBLIC_ENTITIES, publicResource } from '../../../src-shared/public/entities';
import { parseStandardQuery, StandardQueryError } from '../../../src-shared/public/standard-filters';
import { compileStandardQuery } from '../../store/query/standard';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';
import { sendRead } from '../reads';
import { serveNamed } from './named';

export const PUBLIC_URL = '/data/public/api/v1';

export function frontLinkBase(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? 'localhost'}`;
}

export function registerPublic(app: FastifyInstance, deps: ApiDeps): void {
  const ops = publicOperations();
  const lists = [ops.incidents_list, ops.findings_list, ops.service_assets_list];
  PUBLIC_ENTITIES.forEach((entity, i) => {
    const r = publicResource(entity);
    serve(app, lists[i]!, async (req, reply) => {
      let parsed;
      try {
        parsed = parseStandardQuery(req.query as Record<string, string | string[] | undefined>);
      } catch (e) {
        if (e instanceof StandardQueryError) throw badRequest(e.message);
        throw e;
      }
      const plan = compileStandardQuery(r, parsed, entity.load);
      const instance = req.headers['x-radar-instance'];
      const suffix = typeof instance === 'string' && /^[0-9a-f-]{36}$/.test(instance) ? `?instance=${instance}` : '';
      const link = { prefix: `${frontLinkBase(req)}/#/${entity.link}/`, suffix };
      return sendRead(req, reply, deps.reads(), { kind: 'page', plan, shape: 'objects', link });
    });
  });

  // The incident status and risk updates and the routing port's create: the incident module's.
  for (const op of [ops.update_status, ops.update_critical, ops.create_incident]) serveNamed(app, deps, op);
}
