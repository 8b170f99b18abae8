// What the compliance check and the rule workbench read: rule sets with their rules and the
// assets of their asset groups, the software installed on those assets (as software _rids, the
// software index's keys), pages of software rows, and the finding types and incidents a check
// made. Reads only: writes go through the store's write path (incidents.ts).
import type { Store } from '../store';
import { findingsKind, incidentsKind, NETWORK_INTERFACES, occurrencesKind, rulesKind, serviceAssetsKind } from '../kinds/index';
import { q } from '../sql';

const ASSETS = q(serviceAssetsKind.resource.table);
const INCIDENTS = q(incidentsKind.resource.table);
const OCCURRENCES = q(occurrencesKind.resource.table);
const INTERFACES = q(NETWORK_INTERFACES.table);
const RULES = q(rulesKind.resource.table);
const FINDING_TYPES = q(findingsKind.resource.table);

export interface RuleSetRow {
  rid: number;
  id: string;
  name: string;
  create_service_asset_findings: boolean;
}

export interface RuleRow {
  rule_set_id: string;
  id: string;
  name: string;
  query: string;
  blacklist_entry: boolean;
}

export interface AssetRow {
  rule_set_id: string;
  rid: number;
  id: string;
  name: string;
}

export interface SoftwareRow {
  rid: number;
  id: string;
  name: string;
  version: string | null;
  tsvector: string | null;
  asset_count: number;
}

export interface IncidentRow {
  id: string;
  service_asset_id: string;
  finding_id: string;
  status: string;
  display_id: number | null;
  last_occurrence_id: string | null;
  analysis_output: string | null;
  c_occurrence_count: number | null;
}

const ids = (list: readonly string[]) => JSON.stringify(list.map((s) => s.toLowerCase()));
const bool = (v: unknown) => v === 1 || v === true;

/** Rule sets by id (those that exist). */
export function ruleSetsById(store: Store, list: readonly string[]): RuleSetRow[] {
  return store
    .all<{ rid: number; id: string; name: string; c: number }>(
      `SELECT _rid AS rid, id, name, create_service_asset_findings AS c FROM rule_sets WHERE id IN (SELECT value FROM json_each(?)) ORDER BY _rid`,
      [ids(list)],
    )
    .map((r) => ({ rid: r.rid, id: r.id, name: r.name, create_service_asset_findings: bool(r.c) }));
}

/** Rule sets named exactly `name`. */
export function ruleSetsByName(store: Store, name: string): RuleSetRow[] {
  return store
    .all<{ rid: number; id: string; name: string; c: number }>(`SELECT _rid AS rid, id, name, create_service_asset_findings AS c FROM rule_sets WHERE name = ? ORDER BY _rid`, [name])
    .map((r) => ({ rid: r.rid, id: r.id, name: r.name, create_service_asset_findings: bool(r.c) }));
}

/** The names of the first rule sets (by name). */
export function ruleSetNames(store: Store, limit: number): string[] {
  return store.all<{ name: string }>(`SELECT name FROM rule_sets ORDER BY name LIMIT ?`, [limit]).map((r) => r.name);
}

/** The rules of the sets, by set, then by rule name. */
export function rulesOfSets(store: Store, setIds: readonly string[]): RuleRow[] {
  return store
    .all<{ rule_set_id: string; id: string; name: string; query: string; b: number }>(
      `SELECT l.rule_set_id, r.id, r.name, r.query, r.blacklist_entry AS b
         FROM rule_set_rules l JOIN ${RULES} r ON r.id = l.rule_id
        WHERE l.rule_set_id IN (SELECT value FROM json_each(?))
        ORDER BY l.rule_set_id, r.name, r._rid`,
      [ids(setIds)],
    )
    .map((r) => ({ rule_set_id: r.rule_set_id, id: r.id, name: r.name, query: r.query, blacklist_entry: bool(r.b) }));
}

/** The assets of the sets' asset groups, each once per set, by name. */
export function assetsOfSets(store: Store, setIds: readonly string[]): AssetRow[] {
  return store.all<AssetRow>(
    `SELECT DISTINCT g.rule_set_id, a._rid AS rid, a.id, a.name
       FROM rule_set_asset_groups g
       JOIN service_asset_group_members m ON m.service_asset_group_id = g.service_asset_group_id
       JOIN ${ASSETS} a ON a.id = m.service_asset_id
      WHERE g.rule_set_id IN (SELECT value FROM json_each(?))
      ORDER BY a.name, a._rid`,
    [ids(setIds)],
  );
}

/** Assets by id (those that exist). */
export function assetsById(store: Store, list: readonly string[]): { rid: number; id: string; name: string }[] {
  return store.all(`SELECT _rid AS rid, id, name FROM ${ASSETS} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY _rid`, [ids(list)]);
}

/** Assets named exactly `name`. */
export function assetsByName(store: Store, name: string): { rid: number; id: string; name: string }[] {
  return store.all(`SELECT _rid AS rid, id, name FROM ${ASSETS} WHERE name = ? ORDER BY _rid`, [name]);
}

/** The number of assets in the database. */
export function assetCount(store: Store): number {
  return (store.get1<{ n: number }>(`SELECT count(*) AS n FROM ${ASSETS}`)?.n ?? 0) as number;
}

/**
 * The software installed on the listed assets, as (position of the asset in the list, software
 * _rid) pairs (callers pass a chunk of assets at a time: millions of links are never one array).
 */
export function eachInstalled(store: Store, assetIds: readonly string[], visit: (assetIndex: number, softwareRid: number) => void): void {
  const stmt = store
    .stmt(
      `SELECT j.key, s._rid FROM json_each(?) j
         JOIN service_asset_software l ON l.service_asset_id = j.value
         JOIN software s ON s.id = l.software_id`,
    )
    .raw(true);
  for (const [a, s] of stmt.all(ids(assetIds)) as [number, number][]) visit(a, s);
}

/** Software rows by _rid, in the order asked, with the number of assets each is installed on. */
export function softwareByRid(store: Store, rids: ArrayLike<number>): SoftwareRow[] {
  if (!rids.length) return [];
  const rows = store.all<SoftwareRow>(
    `SELECT t._rid AS rid, t.id, t.name, t.version, t.tsvector,
            (SELECT count(*) FROM service_asset_software l WHERE l.software_id = t.id) AS asset_count
       FROM software t WHERE t._rid IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(Array.from(rids))],
  );
  const byRid = new Map(rows.map((r) => [r.rid, r]));
  return Array.from(rids, (rid) => byRid.get(rid)).filter((r): r is SoftwareRow => !!r);
}

/** Software ids by _rid (for the deciding software of check results). */
export function softwareIdsByRid(store: Store, rids: readonly number[]): Map<number, string> {
  const out = new Map<number, string>();
  const stmt = store.stmt(`SELECT _rid, id FROM software WHERE _rid IN (SELECT value FROM json_each(?))`).raw(true);
  for (let i = 0; i < rids.length; i += 20_000) {
    for (const [rid, id] of stmt.all(JSON.stringify(rids.slice(i, i + 20_000))) as [number, string][]) out.set(rid, id);
  }
  return out;
}

/** Software records' texts by id; ids that name no software are left out. */
export function softwareById(store: Store, list: readonly string[]): Map<string, { name: string; version: string | null; tsvector: string | null }> {
  const out = new Map<string, { name: string; version: string | null; tsvector: string | null }>();
  for (const r of store.all<{ id: string; name: string; version: string | null; tsvector: string | null }>(
    `SELECT id, name, version, tsvector FROM software WHERE id IN (SELECT value FROM json_each(?))`,
    [ids(list)],
  )) {
    out.set(r.id, { name: r.name, version: r.version, tsvector: r.tsvector });
  }
  return out;
}

/** The number of software records. */
export function softwareCount(store: Store): number {
  return (store.get1<{ n: number }>('SELECT count(*) AS n FROM software')?.n ?? 0) as number;
}

/**
 * The finding types made for compliance rules (`software_compliance` true, the rule's id in
 * `identifier.software_compliance_rule`): rule id → finding type id (the oldest when several).
 */
export function ruleFindingTypes(store: Store, ruleIds: readonly string[]): Map<string, { id: string; title: string; description: string | null; fallback_raw_risklevel: number | null }> {
  const rows = store.all<{ rule_id: string; id: string; title: string; description: string | null; fallback_raw_risklevel: number | null }>(
    `SELECT json_extract(identifier, '$.software_compliance_rule') AS rule_id, id, title, description, fallback_raw_risklevel
       FROM ${FINDING_TYPES}
      WHERE software_compliance = 1 AND json_valid(identifier)
        AND json_extract(identifier, '$.software_compliance_rule') IN (SELECT value FROM json_each(?))
      ORDER BY _rid`,
    [ids(ruleIds)],
  );
  const out = new Map<string, { id: string; title: string; description: string | null; fallback_raw_risklevel: number | null }>();
  for (const r of rows) if (!out.has(r.rule_id)) out.set(r.rule_id, { id: r.id, title: r.title, description: r.description, fallback_raw_risklevel: r.fallback_raw_risklevel });
  return out;
}

/** Incidents of the finding types (all statuses), the newest first. */
export function incidentsOfFindingTypes(store: Store, findingIds: readonly string[]): IncidentRow[] {
  if (!findingIds.length) return [];
  return store.all<IncidentRow>(
    `SELECT id, service_asset_id, finding_id, status, display_id, last_occurrence_id, analysis_output, c_occurrence_count
       FROM ${INCIDENTS}
      WHERE finding_id IN (SELECT value FROM json_each(?))
      ORDER BY _rid DESC`,
    [ids(findingIds)],
  );
}

/** The newest occurrence of an incident with the given event type, or undefined. */
export function latestOccurrence(store: Store, incidentId: string, eventType: string): { id: string } | undefined {
  return store.get1<{ id: string }>(
    `SELECT id FROM ${OCCURRENCES} WHERE service_asset_finding_id = ? AND event_type = ? ORDER BY created_at DESC, _rid DESC LIMIT 1`,
    [incidentId, eventType],
  );
}

/** An asset's first network address (its occurrences carry it). */
export function assetAddress(store: Store, assetId: string): { ip: string | null; mac: string | null; fqdn: string | null } | undefined {
  return store.get1(`SELECT ip, mac, fqdn FROM ${INTERFACES} WHERE service_asset_id = ? ORDER BY _rid LIMIT 1`, [assetId]);
}
