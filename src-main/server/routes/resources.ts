// The generic operation set of a resource, registered from the contract's declarations of it.
// Named endpoints (named.ts) replace single operations where the spec gives them their own
// behaviour.
import type { FastifyInstance } from 'fastify';
import { badRequest, ERR } from '../../../src-shared/errors';
import { resourceOperations, type GenericOp } from '../../../src-shared/contract/index';
import { RESOURCES, type ResourceDef } from '../../../src-shared/resources/index';
import { isUuid } from '../../../src-shared/schemas/common';
import { compileSearchPlan } from '../../store/query/plan';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';
import { sendRead } from '../reads';
import { groupPageOf } from '../../store/query/groups';
import { compileGroup, Runner } from '../../store/query/runner';

export { relationsQuerySchema } from '../../../src-shared/contract/common';

/** The `relations` query parameter: undefined = all links, '' = none, else the listed ones. */
export function parseRelationsQuery(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

export function checkId(id: string | undefined): string {
  if (!id || id.trim() === '') throw badRequest(ERR.idEmpty);
  if (!isUuid(id)) throw badRequest(ERR.idNotUuid);
  return id;
}

/**
 * Registers the generic operations of `r` on `app` (a plugin scope whose prefix is `base`), but
 * those in `skip`. `idPrefix` names the API in operationIds when it is not the data-management one.
 */
export function registerResource(app: FastifyInstance, base: string, r: ResourceDef, deps: ApiDeps, skip: ReadonlySet<GenericOp> = new Set(), idPrefix = ''): void {
  const ops = resourceOperations(r, base, idPrefix);
  const store = deps.store;
  const has = (op: GenericOp) => !skip.has(op);

  if (has('create')) serve(app, ops.create, async (req, reply) => reply.code(201).send(store().create(r, req.body, { userId: req.userId })));
  if (has('update')) {
    for (const op of [ops.update, ops.update_post]) serve(app, op, async (req) => store().update(r, req.body, { userId: req.userId }));
  }
  if (has('search')) serve(app, ops.search, async (req, reply) => sendRead(req, reply, deps.reads(), { kind: 'page', plan: compileSearchPlan(r, req.body), shape: 'items' }));
  if (has('meta')) serve(app, ops.meta, async () => store().meta(r));
  if (has('group')) {
    // A registry resource's grouping runs on a reader like its search (a grouping may read every
    // incident: it must not hold this thread); any other resource's here.
    const registered = RESOURCES.includes(r);
    serve(app, ops.group, async (req, reply) => {
      const page = groupPageOf(req.body);
      return registered
        ? sendRead(req, reply, deps.reads(), { kind: 'group', ...compileGroup(r, req.body.group_field, req.body.filters ?? []), page })
        : new Runner(store()).group(r, req.body.group_field, req.body.filters, page);
    });
  }
  if (has('mass_create')) {
    serve(app, ops.mass_create, async (req, reply) => {
      const items = store().massCreate(r, req.body.items, { userId: req.userId });
      return reply.code(201).send({ items, total: items.length });
    });
  }
  if (has('mass_delete')) serve(app, ops.mass_delete, async (req) => ({ results: store().massDelete(r, req.body.ids, { userId: req.userId }) }));
  if (has('mass_update')) {
    serve(app, ops.mass_update, async (req) => {
      const body = req.body;
      if ('fields' in body) return { results: store().massUpdateFields(r, body.ids, body.fields, { userId: req.userId }) };
      return { results: store().massUpdateField(r, body.ids, body.field, body.value, { userId: req.userId }) };
    });
  }
  if (has('delete_all')) serve(app, ops.delete_all, async (req) => new Runner(store()).deleteAll(r, req.body?.filters ?? [], { userId: req.userId }));
  if (has('get')) {
    serve(app, ops.get, async (req) => store().get(r, checkId(req.params.id), parseRelationsQuery(req.query.relations)));
    // GET <base>/<resource> with no id: the platform's `id is empty`.
    app.get(`/${r.name}`, { schema: { hide: true } }, async () => Promise.reject(badRequest(ERR.idEmpty)));
  }
  if (has('delete')) serve(app, ops.delete, async (req) => store().delete(r, checkId(req.params.id), { userId: req.userId }));
}
