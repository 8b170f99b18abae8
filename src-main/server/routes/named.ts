// The spec's named endpoints: small handlers over the generic store.
import type { FastifyInstance } from 'fastify';
import { namedOperations } from '../../../src-shared/contract/index';
import { badRequest, ERR, notFound } from '../../../src-shared/errors';
import { getResource } from '../../../src-shared/resources/index';
import { isUuid } from '../../../src-shared/schemas/common';
import { nowTs } from '../../../src-shared/time';
import { serve as serveOp } from '../contract';
import type { ApiDeps } from '../deps';
import { checkId } from './resources';
import { Runner } from '../../store/query/runner';
import { relatedIds } from '../../store/relations';

export { NAMED_OVERRIDES } from '../../../src-shared/contract/index';

/**
 * Registers the named endpoints under the prefix of `scope` (the plugin of the data-management or
 * the agent API); with `area`, only those of that record kind (`<prefix>/<area>/...`).
 */
export function registerNamed(scope: FastifyInstance, deps: ApiDeps, area?: string): void {
  const ops = namedOperations();
  const store = deps.store;
  const under = area === undefined ? `${scope.prefix}/` : `${scope.prefix}/${area}/`;
  const serve: typeof serveOp = (_app, op, handler, o) => {
    if (op.path.startsWith(under)) serveOp(scope, op, handler, o);
  };
  const v2 = scope;
  const cm = scope;

  // ---- correlation rules: search with reload update
  const rules = getResource('engine_go_rules');
  for (const op of [ops.engine_go_rules_search, ops.engine_go_rules_search_with_update_reload]) {
    serve(v2, op, async (req) => {
      const s = store();
      return s.tx(() => {
        const res = new Runner(s).search(rules, req.body);
        // The rules read are reloaded: the flag cleared through the write path (hooks, outbox),
        // updated_at kept (reading a rule does not change it).
        const ids = res.items.filter((it) => it.reload === true && typeof it.id === 'string').map((it) => it.id as string);
        if (ids.length) s.updateSet(rules, ids, { reload: false }, { userId: req.userId, touch: false });
        return res;
      });
    });
  }

  // ---- software compliance rules: create and update with the spec's validation
  const compliance = getResource('rules');
  serve(v2, ops.rules_create, async (req, reply) => {
    const s = store();
    const created = s.create(compliance, req.body, { userId: req.userId });
    return reply.code(201).send(s.get(compliance, created.id as string, ['rule_sets']));
  });
  for (const op of [ops.rules_update, ops.rules_update_post]) {
    serve(v2, op, async (req) => {
      const s = store();
      const updated = s.update(compliance, req.body, { userId: req.userId });
      // Spec: related entities in the answer of this update are null.
      return { ...updated, rule_sets: null, _relations: { rule_sets: relatedIds(s, compliance, 'rule_sets', JSON.stringify([updated.id])).get(updated.id as string) ?? [] } };
    });
  }

  // ---- assets: update answering the asset with its related lists and computed fields
  const assets = getResource('service_assets');
  for (const op of [ops.service_assets_update, ops.service_assets_update_post]) {
    serve(v2, op, async (req) => {
      const s = store();
      return s.tx(() => {
        s.update(assets, req.body, { userId: req.userId });
        return s.get(assets, req.body.id);
      });
    });
  }

  // ---- occurrences: create with every field required, answered with related data
  const occ = getResource('occurrences');
  serve(v2, ops.occurrences_create, async (req, reply) => {
    const s = store();
    const out = s.tx(() => {
      const created = s.create(occ, req.body, { userId: req.userId });
      const full = s.get(occ, created.id as string, ['service_asset_finding', 'service_asset_finding_status_change', 'vulnerabilities', 'engine_go_results']);
      const results = (full.engine_go_results as unknown[]) ?? [];
      const { engine_go_results: _drop, ...rest } = full;
      return { ...rest, engine_go_result: results[0] ?? null };
    });
    return reply.code(201).send(out);
  });

  // ---- custom field values: related entities ignored on input, null in the answer
  const cfv = getResource('custom_field_values');
  serve(v2, ops.custom_field_values_update, async (req) => {
    const { created_at: _c, updated_at: _u, ...body } = req.body;
    const updated = store().update(cfv, body as typeof req.body, { userId: req.userId });
    return { ...updated, custom_field: null, service_asset_finding: null };
  });

  // ---- active actions: the user header, then the body, with the spec's texts in its order
  const actions = getResource('engine_go_rules_integration_actions');
  serve(
    v2,
    ops.engine_go_rules_integration_actions_create,
    async (req, reply) => {
      const s = store();
      const uid = req.headers['pgr-user-id'];
      if (!s.exists(rules, req.body.rule_id)) throw badRequest(ERR.ruleNotFound);
      if (!s.exists(getResource('integration_scripts'), req.body.integration_script_id)) throw badRequest(ERR.scriptNotFound);
      // user_id is read-only for clients: the server sets it from Pgr-User-Id, with the create.
      const created = s.create(actions, req.body, { userId: uid, serverSet: { user_id: uid } });
      return reply.code(201).send(created);
    },
    {
      preValidation: async (req) => {
        const uid = req.headers['pgr-user-id'];
        if (uid === undefined || uid === '') throw badRequest(ERR.missingUidHeader);
        if (typeof uid !== 'string' || !isUuid(uid)) throw badRequest(ERR.uidNotUuid);
      },
    },
  );

  // ---- agents: publish the pending configuration
  const agents = getResource('agents');
  serve(cm, ops.agents_apply_config, async (req, reply) => {
    const id = checkId(req.params.id);
    const s = store();
    s.tx(() => {
      const rec = s.find(agents, id);
      if (!rec) throw notFound();
      if (rec.pending_config === null) return;
      const at = nowTs();
      s.update(
        agents,
        { id, config: rec.pending_config as Record<string, unknown>, pending_config: null },
        { userId: req.userId, at, serverSet: { config_version: ((rec.config_version as number | null) ?? 0) + 1, applied_at: at } },
      );
    });
    return reply.code(200).send();
  });
}
