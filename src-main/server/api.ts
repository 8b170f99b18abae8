// Every API route of one platform instance, on any Fastify app: each API a plugin under its
// prefix, its routes registered from the contract; the record kinds' routes as route areas.
import type { FastifyInstance } from 'fastify';
import { API_BASES, namedOperations, overridesOf, rewriteAliasPath } from '../../src-shared/contract/index';
import { RESOURCES } from '../../src-shared/resources/index';
import type { LazyAreas } from './areas';
import type { ApiDeps } from './deps';
import { registerCompliance } from './routes/compliance';
import { registerNamed } from './routes/named';
import { registerResource } from './routes/resources';
import { registerPeople } from './routes/people';
import { registerPublic } from './routes/public';
import { registerScan } from './routes/scan';
import { registerStats } from './routes/stats';
import { registerIncidentStatus } from './routes/incident-status';
import { registerIncidentBulk } from './routes/incident-bulk';
import { registerTenancy } from './routes/tenancy';

export const BASE_URL = API_BASES.v2;
export const CM_URL = API_BASES.cm;

/** The vendor's names for the correlation resources (`logmule_go_*`) are served as aliases. */
export const rewriteAliases = rewriteAliasPath;

/**
 * Registers the API on `app`. The routes of each record kind under the data-management and agent
 * APIs are a route area (areas.ts): declared here, built on their first request.
 */
export function registerApi(app: FastifyInstance, deps: ApiDeps, areas: LazyAreas): void {
  for (const r of RESOURCES) {
    const skip = overridesOf(r.name);
    areas.add(BASE_URL, r.name, (v2) => {
      registerResource(v2, BASE_URL, r, deps, skip);
      registerNamed(v2, deps, r.name);
    });
  }
  // Kinds the agent-management API serves too (their declarations' `apis`).
  for (const r of RESOURCES.filter((x) => x.apis?.includes('cm'))) {
    areas.add(CM_URL, r.name, (cm) => {
      registerResource(cm, CM_URL, r, deps, new Set(), 'cm.');
      registerNamed(cm, deps, r.name);
    });
  }
  // A named endpoint is served by the area of its record kind: each must have one.
  for (const op of Object.values(namedOperations())) {
    const base = [BASE_URL, CM_URL].find((b) => op.path.startsWith(`${b}/`));
    if (base && !areas.has(base, op.path.slice(base.length + 1).split('/')[0]!)) throw new Error(`${op.operationId}: no route area serves ${op.path}`);
  }
  registerScan(app, deps);
  registerPublic(app, deps);
  registerTenancy(app, deps);
  registerStats(app, deps);
  registerIncidentStatus(app, deps);
  registerIncidentBulk(app, deps);
  registerCompliance(app, deps);
  registerPeople(app, deps);
}
