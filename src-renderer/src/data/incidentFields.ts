// Which fields the incident list asks the server for, besides the ones every row carries
// (ROW_FIELDS): those of the optional columns shown. In a module of its own (no component, no
// schema) so that the opening can ask the first page before the console's code is loaded.
import type { ColumnPrefs } from '../state/ui';

/** Fields a column needs from the server besides ROW_FIELDS. Every one of these columns is hidden
 * until the analyst shows it (views/incidents/columns.tsx declares them so). */
export const COLUMN_FIELDS: Record<string, string[]> = {
  updated_at: ['updated_at'],
  acknowledged_at: ['acknowledged_at'],
  reopened_at: ['reopened_at'],
  alert_type: ['alert_type'],
  c_occurrence_count: ['c_occurrence_count'],
  c_reopened_count: ['c_reopened_count'],
  external: ['external'],
  customer_created: ['customer_created'],
  itsm_sync_status: ['itsm_sync_status'],
  immediate_action_score: ['immediate_action_score'],
};

/** The extra fields of the columns shown, sorted (the list's request and its cache key). */
export function fieldsOf(visible: readonly string[]): string[] {
  return visible.flatMap((id) => COLUMN_FIELDS[id] ?? []).sort();
}

/**
 * The extra fields the incident list will ask for, known before its columns are built: the
 * columns the address names, or else those the analyst's column settings show (the columns with
 * fields of their own are hidden by default).
 */
export function openingFields(addressColumns: readonly string[] | null | undefined, prefs: ColumnPrefs | undefined): string[] {
  const shown = addressColumns ? (id: string) => addressColumns.includes(id) : (id: string) => prefs?.visibility[id] ?? false;
  return fieldsOf(Object.keys(COLUMN_FIELDS).filter(shown));
}
