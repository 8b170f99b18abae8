// Imported records against the registry: each resource's plan (the write path's field checks,
// store/write/checks.ts, with the keys the reader ignores), and how a refused import is worded.
import type { ResourceDef } from '../../src-shared/resources/index';
import { UUID_RE } from '../../src-shared/schemas/common';
import type { MissingReference } from '../store/write/bulk';
import { columnPlanOf, type ColumnsPlan } from '../store/write/checks';
import { computedKeys } from './kinds';

export type { MissingReference } from '../store/write/bulk';
export { checkField, fastTs, FieldInvalid, isMasked, type ColumnPlan } from '../store/write/checks';

/** A resource's plan for the record reader: the write path's, with the keys it ignores. */
export interface KindPlan extends ColumnsPlan {
  /** Computed and public-extra keys, ignored. */
  computed: Set<string>;
}

const plans = new Map<string, KindPlan>();

export function planOf(r: ResourceDef): KindPlan {
  let p = plans.get(r.name);
  if (!p) plans.set(r.name, (p = { ...columnPlanOf(r), computed: computedKeys(r) }));
  return p;
}

export const ID_RE = UUID_RE;

const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word} record${n === 1 ? '' : 's'}`;

/**
 * How an import was asked for, so that the fix a refusal suggests runs as printed: the command
 * line's flags (the target first: --db FILE, or --instance X --db MAIN) and paths; absent, the
 * console's import endpoint.
 */
export interface ImportInvocation {
  flags: string[];
  paths: string[];
}

/** A word of a shell command, quoted when it needs to be. */
export const shellWord = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

const command = (words: readonly string[]): string => words.map(shellWord).join(' ');

/**
 * Why an import is refused for missing references, and what fixes it: every kind that is
 * missing (not only the first), then the export that carries them or the flag that clears them,
 * as commands carrying every flag they need (the import's own, its target first).
 */
export function missingReferencesMessage(list: readonly MissingReference[], how?: ImportInvocation): string {
  const first = list[0]!;
  const byKind = new Map<string, number>();
  for (const m of list) byKind.set(m.kind, (byKind.get(m.kind) ?? 0) + m.ids);
  const kinds = [...byKind.keys()];
  const all = [...byKind].map(([k, n]) => plural(n, k)).join(' and ');
  const fields = list.map((m) => `${m.from}.${m.field}`).join(', ');
  let text = `${JSON.stringify(first.value)} refers to a missing ${first.kind} record (neither in the import nor in the database); in all, the import refers to ${all} it does not hold (${fields}). `;
  if (how) {
    const files = kinds.map((k) => `${k}.ndjson`);
    const exports = kinds.map((k, i) => `radar-console export --resource ${k} --format ndjson --out ${files[i]} --db SOURCE.sqlite`);
    // --kind names the resource of every file: the exported kinds are then imported first, on their own.
    const kindAt = how.flags.indexOf('--kind');
    const imports =
      kindAt >= 0
        ? [command(['radar-console', 'import', ...how.flags.filter((_, i) => i !== kindAt && i !== kindAt + 1), ...files]), command(['radar-console', 'import', ...how.flags, ...how.paths])]
        : [command(['radar-console', 'import', ...how.flags, ...files, ...how.paths])];
    text += `Import them together: export with --with-references (each record then carries the records it refers to), or export ${kinds.join(' and ')} from the database the file came from (SOURCE.sqlite below) and import them with it: ${[...exports, ...imports].join('; ')}`;
  } else {
    text += `Import them together: export with with_references (each record then carries the records it refers to), or export ${kinds.join(' and ')} from where the file came from (POST /console/v1/export ${kinds.map((k) => JSON.stringify({ resource: k, format: 'ndjson' })).join(', ')}) and import those files together with this one (several files chosen at once are imported together)`;
  }
  if (list.every((m) => m.optional)) text += how ? ', or leave out --strict-references to clear these optional references' : ', or import without strict references to clear these optional references';
  return text;
}
