// A CSV file's header row: the field names, or the names the console gives them (its column
// names, in English or Russian: src-shared/field-labels.ts). The export writes a column's name in
// a language only where reading it back gives that column again; the import reads a header as a
// field's API name first, then as a name in either language.
import type { CsvHeaders } from '../../src-shared/choices';
import { FIELD_LABELS, FIELD_LABEL_LANGS } from '../../src-shared/field-labels';
import { relationsOf, type ResourceDef } from '../../src-shared/resources/index';
import { knownKeys } from './kinds';

/** How a header compares: trimmed, case and the letter ё not minding, runs of spaces as one. */
export const headerKey = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase().replace(/ё/g, 'е');

const byLabel = new Map<string, Map<string, string>>();

/**
 * The names of `r`'s keys in both languages, each name to the key it reads as. Where two keys
 * share a name (an incident's asset: `service_asset_id` and the loaded relation
 * `service_asset`), the stored field wins, then the system fields, relations, the rest.
 */
function labelsOf(r: ResourceDef): Map<string, string> {
  let m = byLabel.get(r.name);
  if (m) return m;
  m = new Map();
  const known = knownKeys(r);
  const rels = new Set(relationsOf(r).map(([n]) => n));
  const rank = (k: string): number => (k in r.fields ? 0 : k === 'id' || k === 'created_at' || k === 'updated_at' ? 1 : rels.has(k) ? 2 : 3);
  const keys = [...known].sort((a, b) => rank(a) - rank(b));
  for (const k of keys) {
    for (const lang of FIELD_LABEL_LANGS) {
      const label = FIELD_LABELS[lang][k];
      if (label === undefined) continue;
      const h = headerKey(label);
      if (!m.has(h)) m.set(h, k);
    }
  }
  byLabel.set(r.name, m);
  return m;
}

/** The key of `r` a header names (its API name, or its name in English or Russian); undefined when none. */
export function keyOfHeader(r: ResourceDef, header: string): string | undefined {
  const h = header.trim();
  if (knownKeys(r).has(h)) return h;
  return labelsOf(r).get(headerKey(h));
}

/** The header the export writes for `column` of `r`: its name in `style`'s language when that reads back as the column. */
export function headerOf(r: ResourceDef, column: string, style: CsvHeaders): string {
  if (style === 'fields') return column;
  const label = FIELD_LABELS[style][column];
  if (label === undefined) return column;
  return keyOfHeader(r, label) === column ? label : column;
}
