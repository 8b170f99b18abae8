// The API contract: every operation the server answers, declared once. The server registers its
// routes from these declarations, the OpenAPI document (`/openapi.json`) and the typed client
// derive from them.
import { getResource, RESOURCES } from '../resources/index';
import { complianceOperations } from './compliance';
import { consoleOperations } from './console';
import { namedOperations, overridesOf, scanOperations } from './named';
import { API_BASES, isPending, lazily, type OperationDef } from './operation';
import { publicOperations } from './public';
import { GENERIC_OPS, resourceOperations, type GenericOp } from './resources';
import { syncOperations } from './sync';

export * from './operation';
export { overridesOf } from './named';
export { GENERIC_OPS, resourceOperations, type GenericOp, type ResourceOperations } from './resources';

/** The vendor's names of the correlation resources, served as aliases of `engine_go_*` (contract.md §1). */
export const VENDOR_ALIAS = { vendor: 'logmule_go_', ours: 'engine_go_' } as const;

/** A path with the vendor's prefix rewritten to ours (the server's rewrite of alias requests). */
export function rewriteAliasPath(url: string): string {
  const from = `${API_BASES.v2}/${VENDOR_ALIAS.vendor}`;
  return url.startsWith(from) ? `${API_BASES.v2}/${VENDOR_ALIAS.ours}${url.slice(from.length)}` : url;
}

/** The generic operations of `name` that its named endpoints do not replace. */
export function genericOperationsOf(name: string, base: string = API_BASES.v2, idPrefix = ''): OperationDef[] {
  const skip: ReadonlySet<GenericOp> = base === API_BASES.v2 ? overridesOf(name) : new Set();
  const ops = resourceOperations(getResource(name), base, idPrefix);
  return GENERIC_OPS.flatMap((op): OperationDef[] => {
    if (skip.has(op)) return [];
    return op === 'update' ? (skip.has('update') ? [] : [ops.update, ops.update_post]) : [ops[op]];
  });
}

/**
 * The alias of an operation under the vendor's path (`logmule_go_*`). The operation's parts still
 * to be made (its schemas) stay so: the alias takes the operation's own when first read.
 */
function aliasOf(op: OperationDef): OperationDef {
  const path = op.path.replace(`${API_BASES.v2}/${VENDOR_ALIAS.ours}`, `${API_BASES.v2}/${VENDOR_ALIAS.vendor}`);
  const source = op as unknown as Record<string, unknown>;
  const keys = Object.keys(op);
  const later = keys.filter((k) => isPending(op, k));
  const now = Object.fromEntries(keys.filter((k) => !later.includes(k)).map((k) => [k, source[k]]));
  return lazily(
    {
      ...now,
      operationId: op.operationId.replace(VENDOR_ALIAS.ours, VENDOR_ALIAS.vendor),
      path,
      tag: 'logmule_go aliases',
      summary: `${op.summary} (vendor path)`,
      description: `${op.description}\n\nThe vendor's name for \`${op.path}\`: the same operation.`,
      aliasOf: op.operationId,
    },
    Object.fromEntries(later.map((k) => [k, () => source[k]])),
  ) as unknown as OperationDef;
}

let all: OperationDef[] | undefined;

/** Every operation, in the order of the document: resources, named endpoints, public API, console, sync, aliases. */
export function operations(): readonly OperationDef[] {
  if (all) return all;
  const named = Object.values(namedOperations()) as OperationDef[];
  const list: OperationDef[] = [];
  for (const r of RESOURCES) {
    list.push(...genericOperationsOf(r.name));
    list.push(...named.filter((op) => op.tag === r.name && op.path.startsWith(API_BASES.v2)));
  }
  for (const r of RESOURCES) if (r.apis?.includes('cm')) list.push(...genericOperationsOf(r.name, API_BASES.cm, 'cm.'));
  list.push(...named.filter((op) => !op.path.startsWith(API_BASES.v2)));
  list.push(...scanOperations());
  list.push(...(Object.values(publicOperations()) as OperationDef[]));
  list.push(...(Object.values(consoleOperations()) as OperationDef[]));
  list.push(...(Object.values(complianceOperations()) as OperationDef[]));
  list.push(...(Object.values(syncOperations()) as OperationDef[]));
  list.push(...list.filter((op) => op.path.startsWith(`${API_BASES.v2}/${VENDOR_ALIAS.ours}`)).map(aliasOf));
  const ids = new Set<string>();
  for (const op of list) {
    if (ids.has(op.operationId)) throw new Error(`operationId ${op.operationId} declared twice`);
    ids.add(op.operationId);
  }
  all = list;
  return all;
}

let byId: Map<string, OperationDef> | undefined;

export function findOperation(operationId: string): OperationDef | undefined {
  byId ??= new Map(operations().map((op) => [op.operationId, op]));
  return byId.get(operationId);
}

export { complianceOperations, consoleOperations, namedOperations, publicOperations, scanOperations, syncOperations };
