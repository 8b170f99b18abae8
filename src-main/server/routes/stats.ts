// Incident aggregates for the console's counts and charts, per instance (so the routing port
// serves them per instance and fans them out): counts by status, by risk band, and over time by
// bucket, status and risk band, for any standard query of the public API (store/query/stats.ts).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { badRequest } from '../../../src-shared/errors';
import { publicEntity, publicResource } from '../../../src-shared/public/entities';
import { parseStandardQuery, StandardQueryError } from '../../../src-shared/public/standard-filters';
import { compileStandardQuery } from '../../public/query';
import { createdRange } from '../../store/query/stats';
import type { ApiDeps } from '../deps';
import { laneOf, sendJson } from '../reads';
import { errors } from './resources';

export const STATS_URL = '/console/v1/stats/incidents';

export const STAT_BUCKETS = ['day', 'week', 'month', 'auto'] as const;

const statsQuery = z
  .looseObject({
    bucket: z.enum(STAT_BUCKETS).optional().describe('time bucket of over_time (default day; auto chooses by the span of the matches)'),
    search: z.string().optional().describe('case-insensitive substring of the text fields'),
  })
  .describe('the public API standard filters of incidents (<field>=<operator>,<value>...), plus bucket');

const statsAnswer = z.object({
  total: z.number().int(),
  bucket: z.enum(['day', 'week', 'month']),
  by_status: z.array(z.object({ status: z.string(), count: z.number().int() })),
  by_risk: z.array(z.object({ risk: z.string(), count: z.number().int() })),
  over_time: z.array(z.object({ bucket: z.string(), status: z.string(), risk: z.string(), count: z.number().int() })),
});
export type IncidentStats = z.infer<typeof statsAnswer>;

export function registerStats(app: FastifyInstance, deps: ApiDeps): void {
  const entity = publicEntity('incidents')!;
  const r = publicResource(entity);
  app.withTypeProvider<ZodTypeProvider>().get(STATS_URL, {
    schema: {
      tags: ['console'],
      summary: 'Incident counts by status, by risk band and over time, for a standard query',
      querystring: statsQuery,
      response: { 200: statsAnswer, ...errors(400, 401, 500) },
    },
    handler: async (req, reply) => {
      const { bucket: requested = 'day', ...rest } = req.query as Record<string, string | string[] | undefined> & { bucket?: (typeof STAT_BUCKETS)[number] };
      for (const k of ['page', 'per_page', 'order']) delete rest[k];
      let query;
      let plan;
      try {
        query = parseStandardQuery(rest);
        plan = compileStandardQuery(r, query);
      } catch (e) {
        if (e instanceof StandardQueryError) throw badRequest(e.message);
        throw e;
      }
      return sendJson(reply, await deps.reads().read({ kind: 'stats', plan, bucket: requested, range: createdRange(query) }, laneOf(req)));
    },
  });
}
