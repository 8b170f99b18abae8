// Names beside ids: the columns an export adds next to each id the console shows as a name
// (asset, finding type, owner, group), as computed fields over the row aliased `t` (constant
// SQL from the registry, never input).
import { computed } from './fields';
import { dict, fieldOf, getResource } from './index';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Fields that hold a user uuid: named from the database's people directory (short name). */
const PEOPLE_FIELDS = new Set(['user_id', 'acknowledged_by', 'updated_by', 'edited_by', 'sender_id']);

export interface NameColumn {
  /** The id field it names. */
  fk: string;
  name: string;
  /** SQL over the row aliased `t` (constant text from the registry). */
  sql: string;
}

/**
 * The name columns of `r`: references to a resource with a label (service_asset_id ->
 * service_asset_name, finding_id -> finding_title), user uuids (user_id -> user_short_name,
 * from the people directory) and the responsible group (group_id -> group_name).
 */
export function nameColumns(r: ResourceDef): NameColumn[] {
  const out: NameColumn[] = [];
  const base = (fk: string) => fk.replace(/_id$/, '');
  for (const [fk, def] of Object.entries(r.fields)) {
    if (def.ref) {
      const target = getResource(def.ref);
      if (!target.label || target.label === 'id' || !target.fields[target.label]) continue;
      out.push({ fk, name: `${base(fk)}_${target.label}`, sql: `(SELECT x."${target.label}" FROM "${target.table}" x WHERE x.id = t."${fk}")` });
    } else if (PEOPLE_FIELDS.has(fk)) {
      out.push({ fk, name: `${base(fk)}_short_name`, sql: `(SELECT p.short_name FROM console_people p WHERE p.id = t."${fk}")` });
    } else if (fk === 'group_id') {
      out.push({ fk, name: 'group_name', sql: `(SELECT g.name FROM "${getResource(K.responsibleGroup).table}" g WHERE g.id = t."${fk}")` });
    }
  }
  return out;
}

const named = new Map<string, ResourceDef>();

/** The suffix of the name of a resource seen with its name columns. */
export const WITH_NAMES = '+names';

/** `r` with its name columns as computed fields (those it already has, as the public incident's, kept). */
export function withNameFields(r: ResourceDef): ResourceDef {
  let d = named.get(r.name);
  if (!d) {
    const extra = Object.fromEntries(nameColumns(r).filter((c) => !fieldOf(r, c.name)).map((c) => [c.name, computed('string', c.sql)]));
    d = { ...r, name: `${r.name}${WITH_NAMES}`, computed: dict({ ...r.computed, ...extra }) };
    named.set(r.name, d);
  }
  return d;
}

