// Incident aggregates for the console's counts and charts, per instance (so the routing port
// serves them per instance and fans them out): counts by status, by risk band, and over time by
// bucket, status and risk band, for any standard query of the public API (store/query/stats.ts).
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { badRequest } from '../../../src-shared/errors';
import { publicEntity, publicResource } from '../../../src-shared/public/entities';
import { parseStandardQuery, StandardQueryError } from '../../../src-shared/public/standard-filters';
import type { STAT_BUCKETS } from '../../../src-shared/schemas/stats';
import { compileStandardQuery } from '../../store/query/standard';
import { createdRange } from '../../store/query/stats';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';
import { sendRead } from '../reads';

export const STATS_URL = '/console/v1/stats/incidents';

export { STAT_BUCKETS, type IncidentStats, type StatBucket } from '../../../src-shared/schemas/stats';

export function registerStats(app: FastifyInstance, deps: ApiDeps): void {
  const entity = publicEntity('incidents')!;
  const r = publicResource(entity);
  serve(app, consoleOperations().stats, async (req, reply) => {
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
    return sendRead(req, reply, deps.reads(), { kind: 'stats', plan, bucket: requested, range: createdRange(query) });
  });
}
