// The spec's named endpoints: small handlers over the generic store.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { badRequest, ERR, notFound } from '../../../src-shared/errors';
import { getResource } from '../../../src-shared/resources/index';
import { isUuid } from '../../../src-shared/schemas/common';
import { recordSchemaOf } from '../../../src-shared/schemas/resource';
import {
  customFieldValueUpdateSchema,
  integrationActionCreateSchema,
  occurrenceCreateSchema,
  ruleCreateSchema,
  ruleUpdateSchema,
  serviceAssetUpdateSchema,
} from '../../../src-shared/schemas/named';
import { listSchema, searchRequestSchema } from '../../../src-shared/schemas/search';
import { nowTs } from '../../../src-shared/time';
import type { ApiDeps } from '../deps';
import { checkId, errors, type GenericOp } from './resources';

/** Generic operations each resource's named endpoints replace. */
export const NAMED_OVERRIDES: Readonly<Record<string, readonly GenericOp[]>> = {
  engine_go_rules: ['search'],
  rules: ['create', 'update'],
  service_assets: ['update'],
  occurrences: ['create'],
  custom_field_values: ['update'],
  engine_go_rules_integration_actions: ['create'],
};

export function registerNamed(app: FastifyInstance, base: string, cm: string, deps: ApiDeps): void {
  const z_ = app.withTypeProvider<ZodTypeProvider>();
  const store = deps.store;

  // ---- correlation rules: search with reload update
  const rules = getResource('engine_go_rules');
  for (const path of ['search', 'search_with_update_reload']) {
    z_.post(`${base}/engine_go_rules/${path}`, {
      schema: {
        tags: ['engine_go_rules'],
        summary: 'Search correlation rules; the rules returned get reload = false (answered as found)',
        body: searchRequestSchema,
        response: { 200: listSchema(recordSchemaOf(rules)), ...errors(400, 401, 500) },
      },
      handler: async (req) => {
        const s = store();
        return s.tx(() => {
          const res = s.search(rules, req.body);
          const ids = res.items.map((it) => it.id).filter((id): id is string => typeof id === 'string');
          if (ids.length) s.run(`UPDATE engine_go_rules SET reload = 0 WHERE reload = 1 AND id IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids)]);
          return res;
        });
      },
    });
  }

  // ---- software compliance rules: create and update with the spec's validation
  const compliance = getResource('rules');
  const ruleRecord = recordSchemaOf(compliance);
  z_.post(`${base}/rules/create`, {
    schema: { tags: ['rules'], summary: 'Create a software compliance rule', body: ruleCreateSchema, response: { 201: ruleRecord, ...errors(400, 401, 409, 500) } },
    handler: async (req, reply) => {
      const s = store();
      const created = s.create(compliance, req.body, { userId: req.userId });
      return reply.code(201).send(s.get(compliance, created.id as string, ['rule_sets']));
    },
  });
  for (const method of ['PUT', 'POST'] as const) {
    z_.route({
      method,
      url: `${base}/rules/update`,
      schema: {
        tags: ['rules'],
        summary: `Update a software compliance rule (partial)${method === 'POST' ? ' — POST as in the published example' : ''}`,
        body: ruleUpdateSchema,
        response: { 200: ruleRecord, ...errors(400, 401, 404, 409, 500) },
      },
      handler: async (req) => {
        const s = store();
        const updated = s.update(compliance, req.body, { userId: req.userId });
        // Spec: related entities in the answer of this update are null.
        return { ...updated, rule_sets: null, _relations: { rule_sets: s.relatedIds(compliance, 'rule_sets', JSON.stringify([updated.id])).get(updated.id as string) ?? [] } };
      },
    });
  }

  // ---- assets: update answering the asset with its related lists and computed fields
  const assets = getResource('service_assets');
  for (const method of ['PUT', 'POST'] as const) {
    z_.route({
      method,
      url: `${base}/service_assets/update`,
      schema: {
        tags: ['service_assets'],
        summary: `Update an asset (partial); answers it with related lists${method === 'POST' ? ' — POST as in the published example' : ''}`,
        body: serviceAssetUpdateSchema,
        response: { 200: recordSchemaOf(assets), ...errors(400, 401, 404, 500) },
      },
      handler: async (req) => {
        const s = store();
        return s.tx(() => {
          s.update(assets, req.body, { userId: req.userId });
          return s.get(assets, req.body.id);
        });
      },
    });
  }

  // ---- occurrences: create with every field required, answered with related data
  const occ = getResource('occurrences');
  z_.post(`${base}/occurrences/create`, {
    schema: {
      tags: ['occurrences'],
      summary: 'Create an occurrence (all fields required); answers it with the related data',
      body: occurrenceCreateSchema,
      response: { 201: recordSchemaOf(occ), ...errors(400, 401, 500) },
    },
    handler: async (req, reply) => {
      const s = store();
      const out = s.tx(() => {
        const created = s.create(occ, req.body, { userId: req.userId });
        const full = s.get(occ, created.id as string, ['service_asset_finding', 'service_asset_finding_status_change', 'vulnerabilities', 'engine_go_results']);
        const results = (full.engine_go_results as unknown[]) ?? [];
        const { engine_go_results: _drop, ...rest } = full;
        return { ...rest, engine_go_result: results[0] ?? null };
      });
      return reply.code(201).send(out);
    },
  });

  // ---- custom field values: related entities ignored on input, null in the answer
  const cfv = getResource('custom_field_values');
  z_.put(`${base}/custom_field_values/update`, {
    schema: {
      tags: ['custom_field_values'],
      summary: 'Update a custom field value (partial); related entities in the body are ignored',
      body: customFieldValueUpdateSchema,
      response: { 200: recordSchemaOf(cfv), ...errors(400, 401, 404, 500) },
    },
    handler: async (req) => {
      const { created_at: _c, updated_at: _u, ...body } = req.body;
      const updated = store().update(cfv, body as typeof req.body, { userId: req.userId });
      return { ...updated, custom_field: null, service_asset_finding: null };
    },
  });

  // ---- active actions: the user header, then the body, with the spec's texts in its order
  const actions = getResource('engine_go_rules_integration_actions');
  z_.post(`${base}/engine_go_rules_integration_actions/create`, {
    schema: {
      tags: ['engine_go_rules_integration_actions'],
      summary: 'Add an active action to a correlation rule (header Pgr-User-Id required)',
      headers: z.object({ 'pgr-user-id': z.string().optional().describe('uuid of the user adding the action') }),
      body: integrationActionCreateSchema,
      response: { 201: recordSchemaOf(actions), ...errors(400, 401, 500) },
    },
    preValidation: async (req) => {
      const uid = req.headers['pgr-user-id'];
      if (uid === undefined || uid === '') throw badRequest(ERR.missingUidHeader);
      if (typeof uid !== 'string' || !isUuid(uid)) throw badRequest(ERR.uidNotUuid);
    },
    handler: async (req, reply) => {
      const s = store();
      const uid = req.headers['pgr-user-id'] as string;
      if (!s.exists(rules, req.body.rule_id)) throw badRequest(ERR.ruleNotFound);
      if (!s.exists(getResource('integration_scripts'), req.body.integration_script_id)) throw badRequest(ERR.scriptNotFound);
      const created = s.create(actions, req.body, { userId: uid });
      s.run(`UPDATE engine_go_rules_integration_actions SET user_id = ? WHERE id = ?`, [uid, created.id]);
      return reply.code(201).send({ ...created, user_id: uid });
    },
  });

  // ---- agents: publish the pending configuration
  const agents = getResource('agents');
  z_.post(`${cm}/agents/:id/apply_config`, {
    schema: {
      tags: ['agents'],
      summary: "Publish an agent's pending configuration (it becomes the applied one); empty 200",
      params: z.object({ id: z.string() }),
      response: { 200: z.undefined().describe('empty body'), ...errors(400, 401, 404, 500) },
    },
    handler: async (req, reply) => {
      const id = checkId(req.params.id);
      const s = store();
      s.tx(() => {
        if (!s.exists(agents, id)) throw notFound();
        const at = nowTs();
        s.run(
          `UPDATE agents SET config = pending_config, pending_config = NULL, config_version = COALESCE(config_version, 0) + 1, applied_at = ?, updated_at = ? WHERE id = ? AND pending_config IS NOT NULL`,
          [at, at, id],
        );
      });
      return reply.code(200).send();
    },
  });
}
