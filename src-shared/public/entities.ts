// The public API v1's lists (spec: Public API v1): which resource each serves, and the extra
// fields it carries, computed in SQL over the row aliased `t` (constant text, never input).
import { computed } from '../resources/fields';
import { dict, getResource } from '../resources/index';
import type { ComputedDef, ResourceDef } from '../resources/types';

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
}

const lastOcc = (col: string) =>
  `(SELECT o.${col} FROM occurrences o WHERE o.service_asset_finding_id = t.id ORDER BY o.created_at DESC, o._rid DESC LIMIT 1)`;
const asset = (col: string) => `(SELECT a.${col} FROM service_assets a WHERE a.id = t.service_asset_id)`;
const finding = (col: string) => `(SELECT f.${col} FROM findings f WHERE f.id = t.finding_id)`;

export const PUBLIC_ENTITIES: readonly PublicEntity[] = [
  {
    path: 'incidents',
    resource: 'service_asset_findings',
    load: ['service_asset', 'occurrences'],
    link: 'incidents',
    extras: {
      service_asset_name: computed('string', asset('name')),
      service_asset_active: computed('bool', asset('active')),
      occurrence_count: computed('int', `(SELECT COUNT(*) FROM occurrences o WHERE o.service_asset_finding_id = t.id)`),
      user_short_name: computed('string', `(SELECT p.short_name FROM console_people p WHERE p.id = t.user_id)`, { description: "the owner's name from the database's people directory" }),
      group_name: computed('string', `(SELECT g.name FROM responsible_groups g WHERE g.id = t.group_id)`),
      finding_display_id: computed('int', finding('display_id')),
      reopened_count: computed('int', `COALESCE(t.c_reopened_count, 0)`),
      event_type: computed('string', lastOcc('event_type')),
      finding_type: computed('string', finding('type')),
      last_occurrence_ip: computed('string', lastOcc('ip')),
      last_status_change: computed('timestamp', `(SELECT MAX(s.created_at) FROM service_asset_finding_status_changes s WHERE s.service_asset_finding_id = t.id)`),
      last_scan: computed('timestamp', `(SELECT MAX(h.scan_end) FROM vulnerability_hosts h WHERE h.service_asset_id = t.service_asset_id)`),
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
  { path: 'findings', resource: 'findings', load: [], link: 'findings', extras: {} },
  { path: 'serviceAssets', resource: 'service_assets', load: [], link: 'assets', extras: {} },
];

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
