// GET /openapi.json: an OpenAPI 3.1 document generated from the routes' zod schemas.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Radar console local API',
        version,
        description:
          'The platform APIs served over a local SQLite database: data management v2 (/cruddy/v2), agent management (/cm/api/v2), ' +
          'public API v1 (/data/public/api/v1) and the master host\'s instance routing. Every non-2xx answer is {error, error_code}.',
      },
      components: {
        securitySchemes: {
          PgrApiKey: { type: 'apiKey', in: 'header', name: 'PgrApiKey' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
      security: [{ PgrApiKey: [] }, { bearer: [] }],
    },
    transform: createJsonSchemaTransform({ schemaRegistry: z.globalRegistry, zodToJsonConfig: { target: 'draft-2020-12' } }),
    transformObject: createJsonSchemaTransformObject({ schemaRegistry: z.globalRegistry }),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
