// The group operation's counts from the kept counts (days.ts) when they hold the answer: a
// grouping of incidents by status, owner (user_id) or responsible group (group_id) whose
// plan is a slice of the kept counts (its tally: kinds/incidents/kept.ts, sliceOf). Such a grouping is then a
// sum of kept rows instead of a read of every matching incident.
import type { Statements } from '../statements';
import { groupsOf, type DaySlice, type KeptGroupBy } from './days';

const KEPT_GROUPINGS: readonly string[] = ['status', 'user_id', 'group_id'] satisfies KeptGroupBy[];

/** The groups (largest first, then by value) from the kept counts; undefined when they cannot answer. */
export function keptGroups(store: Statements, field: string, tally: DaySlice): { value: string | null; count: number }[] | undefined {
  if (!KEPT_GROUPINGS.includes(field)) return undefined;
  const by = field as KeptGroupBy;
  const slice = { ...tally };
  if (by !== 'status') {
    if (slice.key && slice.key.column !== by) return undefined;
    slice.key ??= { column: by, values: null };
  }
  return groupsOf(store, slice, by);
}
