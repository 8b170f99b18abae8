// The spec's named endpoints: operations of some resources with behaviour and schemas of their
// own (they replace the generic operation of the same operationId), and the agent and
// service-discovery endpoints.
import { z } from 'zod';
import { ERR } from '../errors';
import { getResource } from '../resources/index';
import { K } from '../resources/kinds';
import { UUID_RE } from '../schemas/common';
import {
  customFieldValueUpdateSchema,
  integrationActionCreateSchema,
  occurrenceCreateSchema,
  ruleCreateSchema,
  ruleUpdateSchema,
  scanRequestSchema,
  scanResultSchema,
  serviceAssetUpdateSchema,
} from '../schemas/named';
import { partialRecordSchemaOf, recordSchemaOf, relatedRecordSchemaOf } from '../schemas/resource';
import { listSchema, searchRequestSchema } from '../schemas/search';
import { errorAnswers, idParams } from './common';
import type { GenericOp } from './resources';
import { API_BASES, defineOperation, once, lazily, type OperationDef } from './operation';

const B = API_BASES.v2;

const record = (name: string) => recordSchemaOf(getResource(name));

/** The rule update's answer: related entities are null (spec), their ids under `_relations`. */
const ruleUpdated = once(() =>
  record(K.rule)
    .extend({ [K.ruleSet]: z.null().describe('related entities are null in this answer (spec)') })
    .meta({ id: 'RuleUpdated', description: 'the updated rule; its rule set ids under `_relations.rule_sets`' }),
);

/** The occurrence create's answer: the record with its incident, status change, vulnerabilities and first result. */
const occurrenceCreated = once(() =>
  record(K.occurrence)
    .omit({ [K.engineGoResult]: true })
    .extend({ engine_go_result: relatedRecordSchemaOf(getResource(K.engineGoResult)).nullable().describe('the correlation result of this occurrence, if any') })
    .meta({ id: 'OccurrenceCreated', description: 'the created occurrence with its related data' }),
);

/** The custom field value update's answer: related entities are null (spec). */
const customFieldValueUpdated = once(() =>
  record(K.customFieldValue)
    .extend({ custom_field: z.null(), service_asset_finding: z.null() })
    .meta({ id: 'CustomFieldValueUpdated', description: 'the updated value; related entities are null in this answer (spec)' }),
);

const ruleSearch = (path: 'search' | 'search_with_update_reload') =>
  defineOperation(
    lazily(
      {
        operationId: `${K.engineGoRule}.${path}`,
        ...(path === 'search' ? { replaces: 'search' as const } : {}),
        method: 'POST',
        path: `${B}/${K.engineGoRule}/${path}`,
        tag: K.engineGoRule,
        summary: path === 'search' ? 'Search correlation rules (with reload update)' : 'Search correlation rules (with reload update): the published address',
        description:
          'The search request, as every search; the rules it answers get `reload = false` (they are answered as found, before the change). ' +
          (path === 'search' ? 'The published example calls the same operation `search_with_update_reload`.' : `The same operation as \`${K.engineGoRule}/search\`.`),
      },
      {
        body: () => searchRequestSchema,
        responses: () => ({ 200: listSchema(partialRecordSchemaOf(getResource(K.engineGoRule))).describe('a page of matching rules and the number of all matches'), ...errorAnswers(400, 401, 500) }),
      },
    ),
  );

const ruleUpdate = (method: 'PUT' | 'POST') =>
  defineOperation(
    lazily(
      {
        operationId: method === 'PUT' ? `${K.rule}.update` : `${K.rule}.update_post`,
        ...(method === 'PUT' ? { replaces: 'update' as const } : {}),
        method,
        path: `${B}/${K.rule}/update`,
        tag: K.rule,
        summary: `Update a software compliance rule${method === 'POST' ? ' (POST)' : ''}`,
        description:
          `Partial update. \`trace_id\`, \`id\`, \`name\` and \`query\` are required; \`query\` (tsquery syntax) is validated before anything is stored (400 \`${ERR.invalidQuery}\`). ` +
          `A taken name is 409 \`${ERR.nameUsed}\` with \`extra.fields: ["name"]\`. \`_relations.rule_sets\` sets the rule sets. In the answer related entities are null (spec); their ids are under \`_relations\`.` +
          (method === 'POST' ? ' The same operation as PUT, under the method the published example uses.' : ''),
      },
      {
        body: () => ruleUpdateSchema,
        responses: () => ({ 200: ruleUpdated(), ...errorAnswers(400, 401, 404, 409, 500) }),
      },
    ),
  );

const assetUpdate = (method: 'PUT' | 'POST') =>
  defineOperation(
    lazily(
      {
        operationId: method === 'PUT' ? `${K.serviceAsset}.update` : `${K.serviceAsset}.update_post`,
        ...(method === 'PUT' ? { replaces: 'update' as const } : {}),
        method,
        path: `${B}/${K.serviceAsset}/update`,
        tag: K.serviceAsset,
        summary: `Update an asset${method === 'POST' ? ' (POST)' : ''}`,
        description:
          'Partial update of an asset; `trace_id`, `id`, `type`, `name` and `location` are required. `_relations` sets its links (hardware, results, messages, interfaces, incidents, groups, software, vulnerabilities, hosts). ' +
          'Answers the asset with every related list and its computed fields (risk, counts, last scan, ...).' +
          (method === 'POST' ? ' The same operation as PUT, under the method the published example uses.' : ''),
      },
      {
        body: () => serviceAssetUpdateSchema,
        responses: () => ({ 200: record(K.serviceAsset).describe('the asset with its related lists'), ...errorAnswers(400, 401, 404, 500) }),
      },
    ),
  );

/** The generic operations of kind `name` its named endpoints replace (their `replaces`). */
export function overridesOf(name: string): ReadonlySet<GenericOp> {
  const under = `${B}/${name}/`;
  return new Set(Object.values(namedOperations() as Record<string, OperationDef>).flatMap((op) => (op.replaces && op.path.startsWith(under) ? [op.replaces] : [])));
}

export const namedOperations = once(() => ({
    engine_go_rules_search: ruleSearch('search'),
    engine_go_rules_search_with_update_reload: ruleSearch('search_with_update_reload'),
    rules_create: defineOperation(
      lazily(
        {
          operationId: `${K.rule}.create`,
          replaces: 'create',
          method: 'POST',
          path: `${B}/${K.rule}/create`,
          tag: K.rule,
          summary: 'Create a software compliance rule',
          description:
            `\`trace_id\`, \`name\` (unique, at most 250 characters) and \`query\` (tsquery syntax, validated before anything is stored) are required; \`blacklist_entry\` says the software must not be installed. ` +
            `Texts: \`${ERR.invalidQuery}\`, \`${ERR.nameEmpty}\`, \`${ERR.tooLong}\`, \`${ERR.ruleSetsBad}\`; a taken name is 409 \`${ERR.nameUsed}\`. Answers the rule with its rule sets.`,
        },
        {
          body: () => ruleCreateSchema,
          responses: () => ({ 201: record(K.rule).describe('the created rule with its rule sets'), ...errorAnswers(400, 401, 409, 500) }),
        },
      ),
    ),
    rules_update: ruleUpdate('PUT'),
    rules_update_post: ruleUpdate('POST'),
    service_assets_update: assetUpdate('PUT'),
    service_assets_update_post: assetUpdate('POST'),
    occurrences_create: defineOperation(
      lazily(
        {
          operationId: `${K.occurrence}.create`,
          replaces: 'create',
          method: 'POST',
          path: `${B}/${K.occurrence}/create`,
          tag: K.occurrence,
          summary: 'Create an occurrence',
          description:
            'Every field of the occurrence but `id` and the timestamps is required (spec). Answers the occurrence with its incident (`service_asset_finding`), status change, vulnerabilities, its correlation result (`engine_go_result`) and `_relations`.',
        },
        {
          body: () => occurrenceCreateSchema,
          responses: () => ({ 201: occurrenceCreated(), ...errorAnswers(400, 401, 500) }),
        },
      ),
    ),
    custom_field_values_update: defineOperation(
      lazily(
        {
          operationId: `${K.customFieldValue}.update`,
          replaces: 'update',
          method: 'PUT',
          path: `${B}/${K.customFieldValue}/update`,
          tag: K.customFieldValue,
          summary: 'Update a custom field value',
          description:
            'Partial update; `id`, `created_at`, `updated_at`, `custom_field_id` and `service_asset_finding_id` are required (the server keeps its own timestamps). Related entities in the body are ignored; in the answer they are null (spec).',
        },
        {
          body: () => customFieldValueUpdateSchema,
          responses: () => ({ 200: customFieldValueUpdated(), ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    engine_go_rules_integration_actions_create: defineOperation(
      lazily(
        {
          operationId: `${K.integrationAction}.create`,
          replaces: 'create',
          method: 'POST',
          path: `${B}/${K.integrationAction}/create`,
          tag: K.integrationAction,
          summary: 'Add an active action to a correlation rule',
          description:
            `Needs the header \`Pgr-User-Id\` (a uuid: \`${ERR.missingUidHeader}\`, \`${ERR.uidNotUuid}\`). \`rule_id\`, \`integration_script_id\`, \`params\` and \`state\` are required; ` +
            `an unknown rule or script is 400 \`${ERR.ruleNotFound}\` / \`${ERR.scriptNotFound}\`. Answers the action with the user id.`,
        },
        {
          headers: () => z.looseObject({
            'pgr-user-id': z.string().regex(UUID_RE, ERR.uidNotUuid).meta({ format: 'uuid', description: 'the user adding the action (written Pgr-User-Id)' }),
          }),
          body: () => integrationActionCreateSchema,
          responses: () => ({ 201: record(K.integrationAction).describe('the created action'), ...errorAnswers(400, 401, 500) }),
        },
      ),
    ),
    agents_apply_config: defineOperation(
      lazily(
        {
          operationId: `cm.${K.agent}.apply_config`,
          method: 'POST',
          path: `${API_BASES.cm}/${K.agent}/{id}/apply_config`,
          tag: K.agent,
          summary: "Publish an agent's pending configuration",
          description: 'The pending configuration becomes the applied one (its version counts up). Answers 200 with an empty body.',
        },
        {
          params: () => idParams('agent'),
          responses: () => ({ 200: { description: 'published; the body is empty' }, ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
}));

const scanAnswer = once(() => z.strictObject({ _: z.array(scanResultSchema) }).meta({ id: 'ServicesScanAnswer' }));

const scan = (path: string, operationId: string, alias: boolean) =>
  defineOperation(
    lazily(
      {
        operationId,
        method: 'POST',
        path,
        tag: 'sonar',
        summary: alias ? 'Discover services on addresses (short path)' : 'Discover services on addresses',
        description:
          `TCP connect probes of the configured ports on each address; answers one ServicesScanResult per address under \`_\` (its \`error_code\` is 0, 400 for an address that is not an IP, 504 when the time budget ran out). ` +
          `\`ips\` missing or empty is 400 \`${ERR.emptyIps}\`, an empty address 400 \`${ERR.emptyIp}\`.` +
          (alias ? ' The same operation as `/cruddy/v2/sonar/services/scan`.' : ''),
        bodyRequired: false,
      },
      {
        body: () => scanRequestSchema,
        responses: () => ({ 200: scanAnswer(), ...errorAnswers(400, 401, 500) }),
      },
    ),
  );

export const scanOperations = once(() => [scan(`${B}/sonar/services/scan`, 'sonar.services.scan', false), scan('/sonar/services/scan', 'sonar.services.scan_short', true)] as const);
