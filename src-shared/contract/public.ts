// Public API v1 (spec: Public API v1): the lists with the standard filters, the incident status
// and risk updates, the incident create of the routing port, and the instance list.
import { z } from 'zod';
import { createIncidentBodySchema, dbFieldsSchema } from '../public/db-fields';
import { PUBLIC_ENTITIES, publicResource, type PublicEntity } from '../public/entities';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, STANDARD_OPERATORS } from '../public/standard-filters';
import { fieldsOf, getResource } from '../resources/index';
import { INCIDENT_STATUSES } from '../resources/fields';
import { uuidSchema } from '../schemas/common';
import { instanceSchema } from '../schemas/instances';
import { recordFieldsShape, storedRecordSchemaOf } from '../schemas/resource';
import { envelopeOf } from '../schemas/routing';
import { emptyObjectSchema, errorAnswers, routedErrors } from './common';
import { documentAs } from './document-as';
import { API_BASES, defineOperation, once, pascal, lazily } from './operation';

const P = API_BASES.public;

/** A public path in snake case (`serviceAssets` → `service_assets`), as operationIds and schema names write it. */
const snake = (path: string): string => path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const stringOrList = () => z.union([z.string(), z.array(z.string())]);

const OPERATOR_PATTERN = `^(${STANDARD_OPERATORS.join('|')})(,.*)?$`;

/** A standard-filter parameter: `<operator>,<value>[,<value>...]`. */
const filterParam = (field: string, kind: string) =>
  documentAs(stringOrList().optional(), {
    type: 'string',
    pattern: OPERATOR_PATTERN,
    description: `standard filter on ${field} (${kind}): \`<operator>,<value>[,<value>...]\`; operators ${STANDARD_OPERATORS.join(', ')}`,
  });

/** The paging, order and search parameters every list takes. */
export const pagingQueryShape = () => ({
  page: documentAs(stringOrList().optional(), { type: 'integer', minimum: 1, default: 1, description: 'page number, from 1' }),
  per_page: documentAs(stringOrList().optional(), {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PER_PAGE,
    default: DEFAULT_PER_PAGE,
    description: `rows per page (default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE})`,
  }),
  order: documentAs(stringOrList().optional(), {
    type: 'string',
    description: '`field`, `field asc`, `field desc` or `-field`; several comma-separated',
    examples: ['-risklevel,created_at'],
  }),
  search: documentAs(stringOrList().optional(), { type: 'string', description: 'case-insensitive substring of the text fields (Cyrillic included)' }),
});

/** The list's query: paging, and a standard filter per field of the entity (nested entities as `entity.field`). */
export function standardQueryOf(e: PublicEntity): z.ZodType {
  const shape: Record<string, z.ZodType> = pagingQueryShape();
  for (const f of fieldsOf(publicResource(e))) shape[f.name] = filterParam(f.name, f.kind);
  return z
    .looseObject(shape)
    .describe(`standard filters: \`<field>=<operator>,<value>[,<value>...]\`, a related entity's field as \`<entity>.<field>\` (${e.load.length ? e.load.join(', ') : 'its one-to-one links'})`);
}

/** An object of a public list: the record's fields, the entity's extras, its loaded relations and `front_link`. */
const objectSchemas = new Map<string, z.ZodObject>();

export function publicObjectSchemaOf(e: PublicEntity): z.ZodObject {
  const have = objectSchemas.get(e.path);
  if (have) return have;
  const r = publicResource(e);
  const shape = recordFieldsShape(r, 'all');
  for (const name of e.load) {
    const rel = r.relations![name]!;
    const target = storedRecordSchemaOf(getResource(rel.target));
    shape[name] = rel.kind === 'belongsTo' ? target.nullable() : z.array(target);
  }
  shape.front_link = z.string().meta({ format: 'uri', description: "the console's address of this object" });
  const made = z.strictObject(shape).meta({ id: `Public${pascal(snake(e.path).replace(/s$/, ''))}` });
  objectSchemas.set(e.path, made);
  return made;
}

export const publicOperations = once(() => {
  const lists = PUBLIC_ENTITIES.map((e) =>
    defineOperation(
      lazily(
        {
          operationId: `public.${snake(e.path)}.list`,
          method: 'GET',
          path: `${P}/${e.path}`,
          tag: 'public',
          summary: `List ${e.title}`,
          description:
            `A page of ${e.title} matching the standard filters (\`status=in,new,closed\`, \`risklevel=gt,5\`, \`title=like,пароль\`, \`service_asset.name=like,web\`), ` +
            'ordered by `order`, searched by `search`; `page` from 1, `per_page` at most 1000. `total` counts every match. An unknown field, operator or value of the wrong type is 400 naming it.' +
            (e.path === 'incidents' ? ' Each incident carries the extra fields of the public API, its asset (`service_asset`), its occurrences and `front_link`.' : ''),
        },
        {
          query: () => standardQueryOf(e),
          responses: () => ({
            200: z.strictObject({ objects: z.array(publicObjectSchemaOf(e)), total: z.number().int().describe('the number of all matches') }).describe(`a page of ${e.title}`),
            ...errorAnswers(400, 401, 500),
          }),
        },
      ),
    ),
  );
  return {
    incidents_list: lists[0]!,
    findings_list: lists[1]!,
    service_assets_list: lists[2]!,
    update_status: defineOperation(
      lazily(
        {
          operationId: 'public.incidents.update_status',
          method: 'PUT',
          path: `${P}/incidents/update/status`,
          tag: 'public',
          summary: 'Change the status of an incident',
          description:
            'Any status may follow any other. A status change is recorded (who, when, from, to); leaving `new` sets `acknowledged_at`; going from closed, invalid or risk_accepted back to an open status sets `reopened_at` and counts the reopening. Answers `{}`.',
        },
        {
          body: () => z.strictObject({ id: uuidSchema.meta({ format: 'uuid' }).describe('the incident'), status: z.enum(INCIDENT_STATUSES) }).meta({ id: 'IncidentStatusUpdate' }),
          responses: () => ({ 200: emptyObjectSchema, ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    update_critical: defineOperation(
      lazily(
        {
          operationId: 'public.incidents.update_critical',
          method: 'PUT',
          path: `${P}/incidents/update/critical`,
          tag: 'public',
          summary: 'Change the risk level of an incident',
          description: '`risklevel` from 0.0 to 10.0; `risk` follows by the CVSS v3 bands (0 none, 0.1–3.9 low, 4.0–6.9 medium, 7.0–8.9 high, 9.0–10.0 critical). Answers `{}`.',
        },
        {
          body: () => z.strictObject({ id: uuidSchema.meta({ format: 'uuid' }).describe('the incident'), risklevel: z.number().min(0).max(10) }).meta({ id: 'IncidentRiskUpdate' }),
          responses: () => ({ 200: emptyObjectSchema, ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    create_incident: defineOperation(
      lazily(
        {
          operationId: 'public.incidents.create',
          method: 'POST',
          path: '/data/v1/create',
          tag: 'public',
          summary: 'Create an incident',
          description:
            'The incident as `ServiceAssetFindingDBFields` (upper camel case field names), directly or under that key; Go zero values (`""`, `0001-01-01T00:00:00Z`) count as unset. ' +
            'On the routing port the header `PgrSelectedInstance` names the instance (required there) and the answer is its envelope; on the main port the incident is created in the main instance and the answer is `{id}`.',
          servers: ['routing', 'main'],
        },
        {
          headers: () => z.looseObject({
            pgrselectedinstance: z.string().optional().meta({ format: 'uuid', description: 'the instance (routing port: required)' }),
          }),
          body: () => createIncidentBodySchema,
          responses: () => ({
            200: z
              .xor([
                z.strictObject({ id: z.string().meta({ format: 'uuid' }) }).meta({ id: 'CreatedIncident', description: 'main port: the id of the created incident' }),
                envelopeOf(z.strictObject({ id: z.string().meta({ format: 'uuid' }) })).describe('routing port: the instance answer under `data`'),
              ])
              .describe('the id of the created incident'),
            ...routedErrors(400, 401, 404, 500),
          }),
        },
      ),
    ),
    instance_list: defineOperation(
      lazily(
        {
          operationId: 'tenancy.instances.list',
          method: 'GET',
          path: '/tenancy/instance/list',
          tag: 'instances',
          summary: 'Instances of the master host',
          description: 'The instances the routing port serves, in `sort_order`; their `id` goes in `PgrSelectedInstance`.',
        },
        {
          responses: () => ({ 200: z.array(instanceSchema), ...errorAnswers(401, 500) }),
        },
      ),
    ),
    instance_list_karaken: defineOperation(
      lazily(
        {
          operationId: 'karaken.instances.list',
          method: 'GET',
          path: '/karaken/instance/list',
          tag: 'instances',
          summary: 'Instances of the master host (Karaken path)',
          description: 'The same list as `/tenancy/instance/list`, at the path of the platform’s multi-tenancy provider.',
        },
        {
          responses: () => ({ 200: z.array(instanceSchema), ...errorAnswers(401, 500) }),
        },
      ),
    ),
  };
});

export { dbFieldsSchema };
