// GET /openapi.json: the OpenAPI 3.1 document of the API contract (src-shared/contract), made
// on the first request and kept (made again only if the ports change). Like every route it needs
// the key: tools fetch it with the `PgrApiKey` header (the reference page does). The document's
// writer and its examples (the demo data's answers, about 650 KB) load with that first request,
// not with the server.
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../src-shared/contract/index';
import { serve } from './contract';

export interface OpenApiOptions {
  version: string;
  /** The base URLs of the main and routing ports, known once they listen. */
  servers: () => { main: string; routing: string };
}

export const OPENAPI_PATH = '/openapi.json';

export function registerOpenApi(app: FastifyInstance, o: OpenApiOptions): void {
  let text: string | undefined;
  let forServers = '';
  serve(app, consoleOperations().openapi, async (_req, reply) => {
    const servers = o.servers();
    const key = `${servers.main} ${servers.routing}`;
    if (text === undefined || key !== forServers) {
      const [{ openApiDocument }, { DEMO_EXAMPLES }] = await Promise.all([import('../../src-shared/contract/openapi'), import('../../src-shared/contract/examples')]);
      text = JSON.stringify(openApiDocument({ version: o.version, servers, examples: DEMO_EXAMPLES }));
      forServers = key;
    }
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(text);
  });
}
