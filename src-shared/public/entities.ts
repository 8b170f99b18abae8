// The public API v1's lists (spec: Public API v1): which resource each serves, and the extra
// fields it carries, computed in SQL over the row aliased `t` (constant text, never input).
import { computed } from '../resources/fields';
import { dict, getResource } from '../resources/index';
import type { ComputedDef, ResourceDef } from '../resources/types';
import { K } from '../resources/kinds';
import { API_BASES } from '../contract/operation';

export interface PublicEntity {
  /** Path segment under {public_url}. */
  path: 'incidents' | 'findings' | 'serviceAssets';
  resource: string;
  /** Extra fields of the public record, computed in SQL. */
  extras: Record<string, ComputedDef>;
  /** Relations loaded for each page (one query per relation and page). */
  load: readonly string[];
  /** The console's route for front_link. */
  link: string;
  /** What its records are, in the documentation's words. */
  title: string;
}

const lastOcc = (col: string) =>
  `(SELECT o.${col} FROM ${K.occurrence} o WHERE o.service_asset_finding_id = t.id ORDER BY o.created_at DESC, o._rid DESC LIMIT 1)`;
const asset = (col: string) => `(SELECT a.${col} FROM ${K.serviceAsset} a WHERE a.id = t.service_asset_id)`;
const finding = (col: string) => `(SELECT f.${col} FROM ${K.finding} f WHERE f.id = t.finding_id)`;

export const PUBLIC_ENTITIES: readonly PublicEntity[] = [
  {
    path: 'incidents',
    resource: K.incident,
    load: ['service_asset', K.occurrence],
    link: 'incidents',
    title: 'incidents',
    extras: {
      service_asset_name: computed('string', asset('name')),
      service_asset_active: computed('bool', asset('active')),
      occurrence_count: computed('int', `(SELECT COUNT(*) FROM ${K.occurrence} o WHERE o.service_asset_finding_id = t.id)`),
      user_short_name: computed('string', `(SELECT p.short_name FROM console_people p WHERE p.id = t.user_id)`, { description: "the owner's name from the database's people directory" }),
      group_name: computed('string', `(SELECT g.name FROM ${K.responsibleGroup} g WHERE g.id = t.group_id)`),
      finding_display_id: computed('int', finding('display_id')),
      reopened_count: computed('int', `COALESCE(t.c_reopened_count, 0)`),
      event_type: computed('string', lastOcc('event_type')),
      finding_type: computed('string', finding('type')),
      last_occurrence_ip: computed('string', lastOcc('ip')),
      last_status_change: computed('timestamp', `(SELECT MAX(s.created_at) FROM ${K.statusChange} s WHERE s.service_asset_finding_id = t.id)`),
      last_scan: computed('timestamp', `(SELECT MAX(h.scan_end) FROM ${K.vulnerabilityHost} h WHERE h.service_asset_id = t.service_asset_id)`),
      last_occurrence: computed('timestamp', lastOcc('created_at')),
      remote_exploitable: computed('bool', `t.c_remote_exploitable`),
      service_asset_network_exposure: computed('int', asset('network_exposure')),
      display_title: computed('string', `COALESCE(t.title, ${finding('title')})`),
      customer_retention_time: computed('int', `t."с_customer_retention_time"`),
      visible_since: computed('timestamp', `t.c_visible_since`),
      visible_since_in_days: computed(
        'int',
        `COALESCE(t.c_visible_since_in_days, CAST(julianday('now') - julianday(t.c_visible_since) AS INTEGER))`,
      ),
      last_customer_status_change: computed('timestamp', `t.c_last_customer_status_change`),
    },
  },
  { path: 'findings', resource: K.finding, load: [], link: 'findings', title: 'finding types', extras: {} },
  { path: 'serviceAssets', resource: K.serviceAsset, load: [], link: 'assets', title: 'assets', extras: {} },
];

/**
 * The address an instance's health check reads: one record of the public API's shortest list
 * (the finding types), which every platform answers.
 */
export const HEALTH_PROBE_PATH = `${API_BASES.public}/${PUBLIC_ENTITIES.find((e) => e.resource === K.finding)!.path}?per_page=1`;

export function publicEntity(path: string): PublicEntity | undefined {
  return PUBLIC_ENTITIES.find((e) => e.path === path);
}

const defs = new Map<string, ResourceDef>();

/** The resource as the public API sees it: its own fields plus the entity's extras. */
export function publicResource(e: PublicEntity): ResourceDef {
  let d = defs.get(e.path);
  if (!d) {
    const r = getResource(e.resource);
    d = { ...r, name: `public:${e.path}`, computed: dict({ ...r.computed, ...e.extras }) };
    defs.set(e.path, d);
  }
  return d;
}
