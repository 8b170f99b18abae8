// Every API route of one platform instance, on any Fastify app: each API a plugin under its
// prefix, its routes registered from the contract.
import type { FastifyInstance } from 'fastify';
import { API_BASES, rewriteAliasPath } from '../../src-shared/contract/index';
import { RESOURCES, getResource } from '../../src-shared/resources/index';
import { underPrefix } from './contract';
import type { ApiDeps } from './deps';
import { NAMED_OVERRIDES, registerNamed } from './routes/named';
import { registerResource } from './routes/resources';
import { registerPeople } from './routes/people';
import { registerPublic } from './routes/public';
import { registerScan } from './routes/scan';
import { registerStats } from './routes/stats';
import { registerTenancy } from './routes/tenancy';

export const BASE_URL = API_BASES.v2;
export const CM_URL = API_BASES.cm;

/** The vendor's names for the correlation resources (`logmule_go_*`) are served as aliases. */
export const rewriteAliases = rewriteAliasPath;

export function registerApi(app: FastifyInstance, deps: ApiDeps): void {
  underPrefix(app, BASE_URL, (v2) => {
    for (const r of RESOURCES) registerResource(v2, BASE_URL, r, deps, new Set(NAMED_OVERRIDES[r.name] ?? []));
    registerNamed(v2, deps);
  });
  underPrefix(app, CM_URL, (cm) => {
    registerResource(cm, CM_URL, getResource('agents'), deps, new Set(), 'cm.');
    registerNamed(cm, deps);
  });
  registerScan(app, deps);
  registerPublic(app, deps);
  registerTenancy(app, deps);
  registerStats(app, deps);
  registerPeople(app, deps);
}
