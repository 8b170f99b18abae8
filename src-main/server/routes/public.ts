// Public API v1 (spec: Public API v1): lists with the standard filters, the incident status
// and risk updates, the incident create of the routing port, and the instance list.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { badRequest } from '../../../src-shared/errors';
import { createIncidentBodySchema, fromDbFields } from '../../../src-shared/public/db-fields';
import { PUBLIC_ENTITIES, publicResource } from '../../../src-shared/public/entities';
import { parseStandardQuery, StandardQueryError } from '../../../src-shared/public/standard-filters';
import { INCIDENT_STATUSES } from '../../../src-shared/resources/fields';
import { getResource } from '../../../src-shared/resources/index';
import { uuidSchema } from '../../../src-shared/schemas/common';
import { compileStandardQuery } from '../../public/query';
import type { ApiDeps } from '../deps';
import { laneOf, sendJson } from '../reads';
import { errors } from './resources';

export const PUBLIC_URL = '/data/public/api/v1';

const stringOrList = z.union([z.string(), z.array(z.string())]);

const listQuery = z
  .looseObject({
    page: stringOrList.optional().describe('page number, from 1'),
    per_page: stringOrList.optional().describe('rows per page (default 50, at most 1000)'),
    order: stringOrList.optional().describe('`field`, `field asc|desc` or `-field`; several comma-separated'),
    search: stringOrList.optional().describe('case-insensitive substring of the text fields'),
  })
  .describe('standard filters: <field>=<operator>,<value>[,<value>...], nested as <entity>.<field>=...; operators like gt lt in notin eq noteq isnull isnotnull');

const listAnswer = z.object({ objects: z.array(z.record(z.string(), z.unknown())), total: z.number().int() });

export function frontLinkBase(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? 'localhost'}`;
}

export function registerPublic(app: FastifyInstance, deps: ApiDeps): void {
  const z_ = app.withTypeProvider<ZodTypeProvider>();
  for (const entity of PUBLIC_ENTITIES) {
    const r = publicResource(entity);
    z_.get(`${PUBLIC_URL}/${entity.path}`, {
      schema: {
        tags: ['public'],
        summary: `List ${entity.path} with the standard filters`,
        querystring: listQuery,
        response: { 200: listAnswer, ...errors(400, 401, 500) },
      },
      handler: async (req, reply) => {
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
        return sendJson(reply, await deps.reads().read({ kind: 'page', plan, shape: 'objects', link }, laneOf(req)));
      },
    });
  }

  const incidents = getResource('service_asset_findings');
  z_.put(`${PUBLIC_URL}/incidents/update/status`, {
    schema: {
      tags: ['public'],
      summary: 'Change the status of an incident (a status change is recorded)',
      body: z.object({ id: uuidSchema, status: z.enum(INCIDENT_STATUSES) }),
      response: { 200: z.object({}).describe('no output parameters'), ...errors(400, 401, 404, 500) },
    },
    handler: async (req) => {
      deps.store().update(incidents, { id: req.body.id, status: req.body.status }, { userId: req.userId });
      return {};
    },
  });
  z_.put(`${PUBLIC_URL}/incidents/update/critical`, {
    schema: {
      tags: ['public'],
      summary: 'Change the risk level of an incident (0.0 to 10.0); risk follows by the CVSS bands',
      body: z.object({ id: uuidSchema, risklevel: z.number().min(0).max(10) }),
      response: { 200: z.object({}).describe('no output parameters'), ...errors(400, 401, 404, 500) },
    },
    handler: async (req) => {
      deps.store().update(incidents, { id: req.body.id, risklevel: req.body.risklevel, risk: undefined }, { userId: req.userId });
      return {};
    },
  });

  z_.post('/data/v1/create', {
    schema: {
      tags: ['public'],
      summary: 'Create an incident from ServiceAssetFindingDBFields (routing port: in the instance named by PgrSelectedInstance)',
      body: createIncidentBodySchema,
      response: { 200: z.object({ id: z.string() }), ...errors(400, 401, 404, 500) },
    },
    handler: async (req) => {
      const values = fromDbFields(req.body as Record<string, unknown>);
      const { id, created_at, updated_at, ...fields } = values;
      const created = deps.store().create(
        incidents,
        { ...fields, ...(id ? { id: id as string } : {}) },
        { userId: req.userId, at: created_at as string | undefined, updatedAt: updated_at as string | undefined },
      );
      return { id: created.id as string };
    },
  });
}
