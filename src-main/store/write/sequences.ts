// Sequence fields (a number each new record gets, one above the highest stored): the query once,
// for the API's writes (one record) and the bulk writes (counted on from it).
import type { ResourceDef } from '../../../src-shared/resources/index';
import { q } from '../sql';

/** The highest stored value of a sequence field (0 on an empty table), as `n`. */
export const highestSql = (r: ResourceDef, field: string): string => `SELECT COALESCE(MAX(${q(field)}), 0) AS n FROM ${q(r.table)}`;

/** The sequence field of a resource, or null. */
export function sequenceOf(r: ResourceDef): string | null {
  for (const [name, def] of Object.entries(r.fields)) if (def.sequence) return name;
  return null;
}
