// The registry of record kinds with behaviour of their own (types.ts): generic code asks it for a
// kind's module by the declaration (or its name), never keeps tables keyed by kind names.
import { getResource, RESOURCES, type ResourceDef } from '../../../src-shared/resources/index';
import type { Rec } from '../api';
import type { Db } from '../db';
import { q } from '../sql';
import { agentsKind } from './agent';
import { customFieldValuesKind } from './custom-field-value';
import { customFieldsKind } from './custom-field';
import { engineGoRulesKind } from './engine-go-rule';
import { findingsKind } from './finding';
import { incidentsKind } from './incidents/index';
import { integrationActionsKind } from './integration-action';
import { messagesKind } from './message';
import { occurrencesKind } from './occurrence';
import { rulesKind } from './rule';
import { serviceAssetsKind } from './service-asset';
import { statusChanges } from './status-change';
import type { OriginList } from '../../../src-shared/sync/lists';
import type { KindModule, NamedOperation } from './types';

export type { KindModule, NamedOperation, NamedRequest, StoreApi, RunnerApi } from './types';
export {
  agentsKind,
  customFieldsKind,
  customFieldValuesKind,
  engineGoRulesKind,
  findingsKind,
  incidentsKind,
  integrationActionsKind,
  messagesKind,
  occurrencesKind,
  rulesKind,
  serviceAssetsKind,
  statusChanges,
};
export { NETWORK_INTERFACES } from './network-interface';

export const KINDS: readonly KindModule[] = [
  findingsKind,
  customFieldsKind,
  incidentsKind,
  statusChanges,
  messagesKind,
  occurrencesKind,
  serviceAssetsKind,
  customFieldValuesKind,
  rulesKind,
  engineGoRulesKind,
  integrationActionsKind,
  agentsKind,
];

const byName = new Map(KINDS.map((k) => [k.resource.name, k]));

/** The module of a kind (by its declaration or name), or undefined when it has no behaviour of its own. */
export const kindOf = (r: ResourceDef | string): KindModule | undefined => byName.get(typeof r === 'string' ? r : r.name);

const handlers = new Map<string, NamedOperation>();
for (const k of KINDS) {
  for (const [operationId, op] of Object.entries(k.operations ?? {})) {
    if (handlers.has(operationId)) throw new Error(`${operationId}: handled by two kinds`);
    handlers.set(operationId, op);
  }
}

/** The handler of a named (or public) operation of the contract, by its operationId. */
export const namedHandler = (operationId: string): NamedOperation | undefined => handlers.get(operationId);

/** Every operationId a kind handles. */
export const handledOperations = (): string[] => [...handlers.keys()];

// ---- the lists a snapshot copies from the origin and a pull keeps up to date

const LISTS: readonly OriginList[] = KINDS.flatMap((k) => (k.sync?.list ? [{ ...k.sync.list, resource: k.resource.name }] : [])).sort(
  (a, b) => a.order - b.order,
);

/** The kinds' origin lists in reference order (a list after the lists its records point at). */
export const originLists = (): readonly OriginList[] => LISTS;

/** The origin list of a kind, if it has one. */
export const originListOf = (resource: string): OriginList | undefined => LISTS.find((l) => l.resource === resource);

// ---- rows the platform makes itself (status-change rows)

export interface PlatformMade {
  /** The kind of the rows the platform makes. */
  resource: string;
  /** The record whose change makes one, the field of it that changes and the row's reference to it. */
  parent: string;
  parentFk: string;
  parentField: string;
  /** The row's copy of the new value and of the one before. */
  valueField: string;
  previousField: string;
  /** Deletes the rows made here (not copied from the origin) for a parent. */
  dropLocal(db: Db, parentId: string): void;
}

export const PLATFORM_MADE: readonly PlatformMade[] = KINDS.flatMap((k) => {
  const m = k.sync?.platformMade;
  return m
    ? [{ resource: k.resource.name, parent: m.parent.name, parentFk: m.parentFk, parentField: m.parentField, valueField: m.valueField, previousField: m.previousField, dropLocal: m.dropLocal }]
    : [];
});

export const platformMadeOf = (resource: string): PlatformMade | undefined => PLATFORM_MADE.find((m) => m.resource === resource);

/** The platform-made kinds whose rows a change of `field` of `parent` makes. */
export const madeByChangeOf = (parent: string, field: string): PlatformMade[] => PLATFORM_MADE.filter((m) => m.parent === parent && m.parentField === field);

/** The fields of `r` that name a platform-made row. */
export function platformMadeRefs(r: ResourceDef): { field: string; made: PlatformMade }[] {
  const out: { field: string; made: PlatformMade }[] = [];
  for (const [field, def] of Object.entries(r.fields)) {
    const made = def.ref ? platformMadeOf(def.ref) : undefined;
    if (made) out.push({ field, made });
  }
  return out;
}

/** Every kind with a field naming a platform-made row (messages, occurrences). */
export const platformMadeReferrers = (): ResourceDef[] => RESOURCES.filter((r) => platformMadeRefs(r).length > 0);

/** A platform-made row of the copy by id (the copy's or the origin's). */
export function madeRow(db: Db, made: PlatformMade, id: string): Rec | undefined {
  return db.prepare(`SELECT * FROM ${q(getResource(made.resource).table)} WHERE id = ?`).get(id) as Rec | undefined;
}

/** The newest row made here (not copied from the origin) for the parent's change to `value`, or undefined. */
export function newestLocalMadeRow(db: Db, made: PlatformMade, parent: string, value: unknown): string | undefined {
  const t = q(getResource(made.resource).table);
  const row = db
    .prepare(
      `SELECT id FROM ${t} s WHERE ${q(made.parentFk)} = ? AND ${q(made.valueField)} = ?
         AND NOT EXISTS (SELECT 1 FROM sync_remote r WHERE r.resource = ? AND r.id = s.id)
       ORDER BY created_at DESC, _rid DESC LIMIT 1`,
    )
    .get(parent, value, made.resource) as { id: string } | undefined;
  return row?.id;
}
