// Every API route of one platform instance, on any Fastify app.
import type { FastifyInstance } from 'fastify';
import { RESOURCES, getResource } from '../../src-shared/resources/index';
import type { ApiDeps } from './deps';
import { NAMED_OVERRIDES, registerNamed } from './routes/named';
import { registerResource } from './routes/resources';
import { registerPeople } from './routes/people';
import { registerPublic } from './routes/public';
import { registerScan } from './routes/scan';
import { registerStats } from './routes/stats';
import { registerTenancy } from './routes/tenancy';

export const BASE_URL = '/cruddy/v2';
export const CM_URL = '/cm/api/v2';

/** The vendor's names for the correlation resources (`logmule_go_*`) are served as aliases. */
export function rewriteAliases(url: string): string {
  return url.startsWith(`${BASE_URL}/logmule_go_`) ? `${BASE_URL}/engine_go_${url.slice(BASE_URL.length + '/logmule_go_'.length)}` : url;
}

export function registerApi(app: FastifyInstance, deps: ApiDeps): void {
  for (const r of RESOURCES) registerResource(app, BASE_URL, r, deps, new Set(NAMED_OVERRIDES[r.name] ?? []));
  registerResource(app, CM_URL, getResource('agents'), deps);
  registerNamed(app, BASE_URL, CM_URL, deps);
  registerScan(app, [`${BASE_URL}/sonar/services/scan`, '/sonar/services/scan'], deps);
  registerPublic(app, deps);
  registerTenancy(app, deps);
  registerStats(app, deps);
  registerPeople(app, deps);
}
