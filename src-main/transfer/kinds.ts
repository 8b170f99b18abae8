// Which resource a record is: named (--kind, ?kind=), hinted by the file name, or told from its
// fields (every key must be one the resource knows; the resource matching most stored fields
// wins, e.g. incidents by status + risklevel + finding_id + ...).
import { PUBLIC_ENTITIES } from '../../src-shared/public/entities';
import { findResource, RESOURCES, relationsOf, type ResourceDef } from '../../src-shared/resources/index';
import { nameColumns } from '../../src-shared/resources/names';

/** Keys of a record that are not its stored fields but may appear in exported records. */
export const EXTRA_KEYS = ['front_link', '_relations'] as const;

const knownCache = new Map<string, Set<string>>();

/** The names an export with names beside the ids adds (service_asset_name, finding_title, ...). */
const nameKeys = (r: ResourceDef): string[] => nameColumns(r).map((c) => c.name).filter((n) => !(n in r.fields));

/** Every key a record of `r` may carry in an export of any API shape. */
export function knownKeys(r: ResourceDef): Set<string> {
  let s = knownCache.get(r.name);
  if (!s) {
    s = new Set(['id', 'created_at', 'updated_at', ...EXTRA_KEYS, ...Object.keys(r.fields), ...Object.keys(r.computed ?? {}), ...relationsOf(r).map(([n]) => n), ...nameKeys(r)]);
    for (const e of PUBLIC_ENTITIES) if (e.resource === r.name) for (const k of Object.keys(e.extras)) s.add(k);
    knownCache.set(r.name, s);
  }
  return s;
}

/** Computed keys (the resource's own, the public API's extras, the names beside ids) ignored on import. */
export function computedKeys(r: ResourceDef): Set<string> {
  const s = new Set([...Object.keys(r.computed ?? {}), 'front_link', ...nameKeys(r)]);
  for (const e of PUBLIC_ENTITIES) if (e.resource === r.name) for (const k of Object.keys(e.extras)) s.add(k);
  return s;
}

/** Other names of the kinds, as their declarations give them. */
const ALIASES = new Map(RESOURCES.flatMap((r) => (r.aliases ?? []).map((a): [string, string] => [a, r.name])));

/** A resource by its name, its public list path (incidents, serviceAssets) or the vendor's alias (logmule_go_*). */
export function kindByName(name: string): ResourceDef | undefined {
  const n = name.trim();
  const direct = findResource(n) ?? findResource(n.toLowerCase());
  if (direct) return direct;
  const lower = n.toLowerCase();
  const alias = ALIASES.get(lower);
  if (alias) return findResource(alias);
  if (lower.startsWith('logmule_go_')) return findResource(`engine_go_${lower.slice('logmule_go_'.length)}`);
  return undefined;
}

const ALL_NAMES: [string, string][] = [
  ...RESOURCES.map((r): [string, string] => [r.name, r.name]),
  ...RESOURCES.filter((r) => r.name.startsWith('engine_go_')).map((r): [string, string] => [`logmule_go_${r.name.slice('engine_go_'.length)}`, r.name]),
  ...ALIASES,
].sort((a, b) => b[0].length - a[0].length);

/** The resource a file name starts with (`service_asset_findings-2024….ndjson`, `incidents.csv`). */
export function kindFromFileName(file: string): ResourceDef | undefined {
  const base = (file.split(/[\\/:]/).pop() ?? '').toLowerCase().replace(/\.(json|ndjson|jsonl|csv|tsv)$/i, '');
  for (const [name, resource] of ALL_NAMES) {
    if (base === name || (base.startsWith(name) && /^[^a-z0-9_]/.test(base.slice(name.length)))) return findResource(resource);
  }
  return undefined;
}

export type Detection = { r: ResourceDef } | { error: string };

/** How well a resource fits a record's keys (or a CSV file's columns). */
export interface KindScore {
  r: ResourceDef;
  /** Keys that are stored fields of the resource. */
  fields: number;
  /** Keys the resource does not know at all. */
  unknown: string[];
}

/**
 * The resource a list of candidates picks: the hinted one (the file name) when it fits, else
 * the one with most stored fields among those that know every key (with `loose`, unknown keys
 * only lower the score). `what` names the thing in messages: a record, a file's columns.
 */
export function pickKind(
  scored: readonly KindScore[],
  hint: ResourceDef | undefined,
  loose: boolean,
  what: { question: string; missing: string; empty: string } = { question: 'which resource this record is', missing: 'which has no', empty: 'cannot tell which resource an empty record is' },
): Detection {
  const fits = scored.filter((s) => (loose ? s.fields > 0 : s.unknown.length === 0));
  if (hint) {
    const h = fits.find((s) => s.r.name === hint.name);
    if (h) return { r: h.r };
    // Nothing fits whole: the named resource, so that the check names the field it lacks.
    const named = scored.find((s) => s.r.name === hint.name)!;
    if (!fits.length && named.fields > 0) return { r: named.r };
  }
  if (!fits.length) {
    const closest = [...scored].sort((a, b) => a.unknown.length - b.unknown.length || b.fields - a.fields)[0]!;
    return {
      error: closest.unknown.length
        ? `cannot tell ${what.question}: no resource has all its fields (closest: ${closest.r.name}, ${what.missing} ${closest.unknown.slice(0, 5).join(', ')}${closest.unknown.length > 5 ? ', ...' : ''}); name it with --kind / ?kind=`
        : `${what.empty}; name it with --kind / ?kind=`,
    };
  }
  const best = Math.max(...fits.map((s) => s.fields - (loose ? s.unknown.length : 0)));
  const top = fits.filter((s) => s.fields - (loose ? s.unknown.length : 0) === best);
  if (top.length > 1) {
    return {
      error: `cannot tell ${what.question}: it fits ${top
        .slice(0, 6)
        .map((s) => s.r.name)
        .join(', ')}${top.length > 6 ? ', ...' : ''}; name it with --kind / ?kind= or in the file name`,
    };
  }
  return { r: top[0]!.r };
}

/**
 * The resource of a record from its keys. With `loose`, unknown keys do not rule a resource out
 * (they will be skipped); the resource matching most stored fields still wins.
 */
export function detectKind(rec: Record<string, unknown>, hint: ResourceDef | undefined, loose: boolean): Detection {
  const keys = Object.keys(rec);
  const scored: KindScore[] = [];
  for (const r of RESOURCES) {
    const known = knownKeys(r);
    let fields = 0;
    const unknown: string[] = [];
    for (const k of keys) {
      if (k in r.fields) fields++;
      else if (!known.has(k)) unknown.push(k);
    }
    scored.push({ r, fields, unknown });
  }
  return pickKind(scored, hint, loose);
}
