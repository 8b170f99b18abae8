// Rows the platform makes itself: an incident's status-change row is made by the platform when
// the status changes there (the public API's status update), never created through its API. A
// copy makes its own row for a change made offline; what names that row (a message giving the
// reason, an occurrence) is pushed naming the platform's row for the same change instead.
import { getResource, RESOURCES, type ResourceDef } from '../../../src-shared/resources/index';
import type { Db } from '../connection';
import { q } from '../sql';
import type { Rec } from '../api';

export interface PlatformMade {
  /** The kind of the rows the platform makes. */
  resource: string;
  /** The record whose change makes one, and the field of it that changes. */
  parent: string;
  parentFk: string;
  parentField: string;
  /** The row's copy of the new value and of the one before. */
  valueField: string;
  previousField: string;
}

export const PLATFORM_MADE: readonly PlatformMade[] = [
  {
    resource: 'service_asset_finding_status_changes',
    parent: 'service_asset_findings',
    parentFk: 'service_asset_finding_id',
    parentField: 'status',
    valueField: 'status',
    previousField: 'previous_status',
  },
];

export const platformMadeOf = (resource: string): PlatformMade | undefined => PLATFORM_MADE.find((m) => m.resource === resource);

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
