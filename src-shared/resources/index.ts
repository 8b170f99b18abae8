// The resource registry: every record kind of the data-management API, declared once.
import { agents } from './agents';
import { customFieldValues } from './custom_field_values';
import { customFields } from './custom_fields';
import { engineGoFilters } from './engine_go_filters';
import { engineGoModules } from './engine_go_modules';
import { engineGoResults } from './engine_go_results';
import { engineGoRules } from './engine_go_rules';
import { engineGoRulesIntegrationActions } from './engine_go_rules_integration_actions';
import { findings } from './findings';
import { hardwareInformations } from './hardware_informations';
import { inputSources } from './input_sources';
import { integrationScripts } from './integration_scripts';
import { messages } from './messages';
import { networkInterfaces } from './network_interfaces';
import { occurrences } from './occurrences';
import { responsibleGroups } from './responsible_groups';
import { ruleSets } from './rule_sets';
import { rules } from './rules';
import { serviceAssetFindingStatusChanges } from './service_asset_finding_status_changes';
import { serviceAssetFindings } from './service_asset_findings';
import { serviceAssetGroups } from './service_asset_groups';
import { serviceAssets } from './service_assets';
import { software } from './software';
import { softwareGroups } from './software_groups';
import { valueStores } from './value_stores';
import { vulnerabilities } from './vulnerabilities';
import { vulnerabilityHosts } from './vulnerability_hosts';
import type { FieldDef, FieldKind, RelationDef, ResourceDef } from './types';
import { K } from './kinds';

export * from './types';
export { OCCURRENCE_EVENT_TYPES } from './occurrences';

/** In dependency order: a resource comes after the ones its required references point at. */
export const RESOURCES: readonly ResourceDef[] = [
  responsibleGroups,
  softwareGroups,
  software,
  findings,
  serviceAssets,
  serviceAssetGroups,
  networkInterfaces,
  hardwareInformations,
  vulnerabilityHosts,
  serviceAssetFindings,
  serviceAssetFindingStatusChanges,
  occurrences,
  vulnerabilities,
  messages,
  customFields,
  customFieldValues,
  engineGoFilters,
  engineGoModules,
  ruleSets,
  valueStores,
  engineGoRules,
  engineGoResults,
  rules,
  integrationScripts,
  engineGoRulesIntegrationActions,
  inputSources,
  agents,
];

/** The same entries in an object without a prototype: `map[name]` is never an inherited member. */
export function dict<T>(o: Readonly<Record<string, T>>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, o);
}

// Names from requests (fields, relations, computed fields) are looked up in these maps: with no
// prototype, `constructor`, `toString` or `__proto__` are just unknown names, never a member of
// Object.prototype.
for (const r of RESOURCES) {
  r.fields = dict(r.fields);
  if (r.computed) r.computed = dict(r.computed);
  if (r.relations) r.relations = dict(r.relations);
}

const byName = new Map(RESOURCES.map((r) => [r.name, r]));

export function findResource(name: string): ResourceDef | undefined {
  return byName.get(name);
}

export function getResource(name: string): ResourceDef {
  const r = byName.get(name);
  if (!r) throw new Error(`unknown resource ${name}`);
  return r;
}

/** A readable field of a record: stored, system or computed. */
export interface FieldInfo {
  name: string;
  kind: FieldKind;
  jsonShape?: 'array' | 'object';
  source: 'system' | 'stored' | 'computed';
  def?: FieldDef;
}

const SYSTEM_INFO: FieldInfo[] = [
  { name: 'id', kind: 'uuid', source: 'system' },
  { name: 'created_at', kind: 'timestamp', source: 'system' },
  { name: 'updated_at', kind: 'timestamp', source: 'system' },
];

const fieldInfoCache = new Map<string, FieldInfo[]>();

/** Every field a record of `r` carries, in answer order: id, stored fields, timestamps, computed. */
export function fieldsOf(r: ResourceDef): FieldInfo[] {
  let list = fieldInfoCache.get(r.name);
  if (!list) {
    list = [
      SYSTEM_INFO[0]!,
      ...Object.entries(r.fields).map(
        ([name, def]): FieldInfo => ({ name, kind: def.kind, jsonShape: def.jsonShape, source: 'stored', def }),
      ),
      SYSTEM_INFO[1]!,
      SYSTEM_INFO[2]!,
      ...Object.entries(r.computed ?? {}).map(
        ([name, c]): FieldInfo => ({ name, kind: c.kind, jsonShape: c.jsonShape, source: 'computed' }),
      ),
    ];
    fieldInfoCache.set(r.name, list);
  }
  return list;
}

export function fieldOf(r: ResourceDef, name: string): FieldInfo | undefined {
  return fieldsOf(r).find((f) => f.name === name);
}

export function relationsOf(r: ResourceDef): [string, RelationDef][] {
  return Object.entries(r.relations ?? {});
}

/** Relations whose ids can be listed and set through `_relations` (has-many and many-to-many). */
export function listRelationsOf(r: ResourceDef): [string, RelationDef][] {
  return relationsOf(r).filter(([, rel]) => rel.kind !== 'belongsTo');
}

/** Link tables, each once, as declared by either side. */
export function linkTables(): { table: string; a: { col: string; target: string }; b: { col: string; target: string } }[] {
  const seen = new Map<string, { table: string; a: { col: string; target: string }; b: { col: string; target: string } }>();
  for (const r of RESOURCES) {
    for (const [, rel] of relationsOf(r)) {
      if (rel.kind !== 'manyToMany' || seen.has(rel.link)) continue;
      seen.set(rel.link, { table: rel.link, a: { col: rel.self, target: r.name }, b: { col: rel.other, target: rel.target } });
    }
  }
  return [...seen.values()];
}

/** Checks the declarations against each other; throws on the first inconsistency. */
export function validateRegistry(): void {
  const names = new Set<string>(Object.values(K));
  for (const r of RESOURCES) if (!names.delete(r.name)) throw new Error(`${r.name}: not named in K (kinds.ts)`);
  if (names.size) throw new Error(`K names ${[...names].join(', ')}, declared by no resource`);
  const aliases = new Set<string>();
  for (const r of RESOURCES) {
    for (const a of r.aliases ?? []) {
      if (byName.has(a) || aliases.has(a) || a !== a.toLowerCase()) throw new Error(`${r.name}: alias ${a} is taken or not lower case`);
      aliases.add(a);
    }
  }
  const tables = new Set<string>();
  for (const r of RESOURCES) {
    if (tables.has(r.table)) throw new Error(`table ${r.table} declared twice`);
    tables.add(r.table);
    if (!(r.label in r.fields)) throw new Error(`${r.name}: label ${r.label} is not a field`);
    for (const [name, def] of Object.entries(r.fields)) {
      if (def.ref && !byName.has(def.ref)) throw new Error(`${r.name}.${name}: unknown target ${def.ref}`);
      if (['id', 'created_at', 'updated_at', '_relations'].includes(name)) throw new Error(`${r.name}.${name} is reserved`);
    }
    for (const [name, c] of Object.entries(r.computed ?? {})) {
      if (name in r.fields) throw new Error(`${r.name}.${name} is both stored and computed`);
      // `_r` is the alias of related rows when computed fields are loaded with a relation.
      if (/\b_r\./.test(c.sql)) throw new Error(`${r.name}.${name}: computed SQL may not use the alias _r`);
    }
    for (const [name, k] of Object.entries(r.sortKeys ?? {})) {
      if (name in r.fields || name in (r.computed ?? {}) || ['id', 'created_at', 'updated_at'].includes(name)) throw new Error(`${r.name}.${name}: sort key shadows a field`);
      if (!/\bt\./.test(k.sql)) throw new Error(`${r.name}.${name}: sort key SQL reads the row as t`);
    }
    for (const ix of r.indexes ?? []) {
      for (const c of ix) {
        if (!(c in r.fields) && !['id', 'created_at', 'updated_at'].includes(c) && !Object.hasOwn(r.sortKeys ?? {}, c)) throw new Error(`${r.name}: index column ${c} is no field or sort key`);
      }
    }
    if (r.tree && r.fields[r.tree.parent]?.ref !== r.name) throw new Error(`${r.name}: tree parent must reference itself`);
    for (const [name, rel] of relationsOf(r)) {
      const target = byName.get(rel.target);
      if (!target) throw new Error(`${r.name}.${name}: unknown target ${rel.target}`);
      if (name in r.fields || name in (r.computed ?? {})) throw new Error(`${r.name}.${name}: relation shadows a field`);
      if (rel.kind === 'belongsTo' && r.fields[rel.fk]?.ref !== rel.target) throw new Error(`${r.name}.${name}: fk ${rel.fk} must reference ${rel.target}`);
      if (rel.kind === 'hasMany' && target.fields[rel.fk]?.ref !== r.name) throw new Error(`${r.name}.${name}: ${rel.target}.${rel.fk} must reference ${r.name}`);
      if (rel.kind === 'manyToMany') {
        const back = relationsOf(target).find(([, b]) => b.kind === 'manyToMany' && b.link === rel.link);
        if (!back || back[1].kind !== 'manyToMany' || back[1].self !== rel.other || back[1].other !== rel.self) {
          throw new Error(`${r.name}.${name}: link ${rel.link} must be declared the other way on ${rel.target}`);
        }
      }
    }
  }
}
