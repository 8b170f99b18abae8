// The compliance workbench's endpoints (per instance), served from their declarations in the API
// contract (src-shared/contract/compliance.ts):
//
//   POST /console/v1/compliance/tsvector   {texts}                       to_tsvector('simple', text) of each
//   POST /console/v1/compliance/tsquery    {queries}                     to_tsquery('simple', query) of each, or its error
//   POST /console/v1/compliance/match      {query, texts|tsvectors|software_ids}  @@ for each; without a list,
//                                           the database's matching software (count and a page)
//   POST /console/v1/compliance/check      {rule_set_ids, service_asset_ids?, create_incidents?, ...}
import type { FastifyInstance } from 'fastify';
import { complianceOperations } from '../../../src-shared/contract/compliance';
import { badRequest } from '../../../src-shared/errors';
import { toTsQuery, toTsVector, tsqueryToString, tsvectorToString } from '../../../src-shared/textsearch';
import { answerOf, DEFAULT_MATCH_PAGE, matchList, matchPage, planCheck, raiseIncidents, runInTurns, softwareIndex } from '../../store/compliance/index';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

export function registerCompliance(app: FastifyInstance, deps: ApiDeps): void {
  const ops = complianceOperations();

  serve(app, ops.tsvector, async (req) => ({
    tsvectors: req.body.texts.map((text, i) => {
      try {
        return tsvectorToString(toTsVector(text));
      } catch (e) {
        throw badRequest(`texts.${i}: ${(e as Error).message}`);
      }
    }),
  }));

  serve(app, ops.tsquery, async (req) => ({
    results: req.body.queries.map((q) => {
      const r = toTsQuery(q);
      if (!r.ok) return { error: r.error.message, reason: r.error.reason, position: r.error.position };
      return { tsquery: tsqueryToString(r.query), ...(r.notice ? { notice: r.notice } : {}) };
    }),
  }));

  serve(app, ops.match, async (req) => {
    const body = req.body;
    const lists = (['texts', 'tsvectors', 'software_ids'] as const).filter((k) => body[k] !== undefined);
    if (lists.length > 1) throw badRequest(`send one list to match (${lists.join(', ')} were sent)`);
    if (lists.length) {
      if (body.limit !== undefined || body.offset !== undefined) throw badRequest(`limit and offset page the database's matching software: not with ${lists[0]}`);
      return matchList(deps.store(), body);
    }
    const store = deps.store();
    const index = await softwareIndex(store);
    return matchPage(store, index, body.query, body.limit ?? DEFAULT_MATCH_PAGE, body.offset ?? 0);
  });

  serve(app, ops.check, async (req) => {
    const t0 = performance.now();
    const store = deps.store();
    const plan = planCheck(store, req.body);
    const index = await softwareIndex(store);
    const run = await runInTurns(store, index, plan);
    const effects = req.body.create_incidents ? raiseIncidents(store, run, { userId: req.userId }) : null;
    return answerOf(store, run, req.body, effects, performance.now() - t0);
  });
}
