// The view matrix of `bench:console`: every filter the incident list offers, alone and combined
// with a status, a risk band or a time range, the groupings by each field, a large group opened,
// and the sort by each column; for each, how the analyst gets there (the control used, from a
// starting view opened by its address) and what the view means in the API's own terms, written
// here independently of the console's code, so that the console's total can be checked against
// the API's answer to it.
import type { SearchFilter } from '../src-shared/schemas/search';
import { LOCAL_USER_ID } from '../src-shared/ids';
import { microsToTs } from '../src-shared/time';
import { assetName, DATASET_END_MICROS, DATASET_GROUPS, DATASET_PEOPLE } from './lib';

/**
 * The console's clock: 09:00 UTC on the day the data set's year ends (its relative ranges,
 * "last 7 days" and the like, then cover the data's last days, as they cover an analyst's).
 */
export const NOW_MS = DATASET_END_MICROS / 1000 + 9 * 3_600_000;

const DAY_MS = 86_400_000;

/**
 * Words searched: Latin and Cyrillic, rare (under 1% of the incidents of the data set, bench/lib.ts)
 * and frequent (35% and 65%); and two in between (3-6%), searched alone and within a range.
 */
export const WORDS = {
  latinRare: 'maintenance',
  latinFrequent: 'Detected',
  cyrillicRare: 'персональные',
  cyrillicFrequent: 'Обнаружено',
  latinMiddle: 'nginx',
  cyrillicMiddle: 'пароль',
} as const;

/** The records the views pick: the asset and the finding type with the most incidents, a person, a group. */
export interface Fixtures {
  asset: { id: string; name: string };
  finding: { id: string; title: string };
  person: { id: string; name: string };
  group: { id: string; name: string };
}

export const ASSET_NAME = assetName(0);
/** The first finding type of the data set (bench/lib.ts: product 0, kind 0, titled in English). */
export const FINDING_TITLE = 'OpenSSH Remote code execution';
export const PERSON = DATASET_PEOPLE[1]!;
/** A group the local analyst is not a member of. */
export const GROUP = DATASET_GROUPS[2]!;
/** The local analyst's groups ("my group"). */
export const MY_GROUPS = DATASET_GROUPS.filter((g) => g.members.includes(LOCAL_USER_ID)).map((g) => g.id);

/** How the analyst changes the view (the timed step). */
export type Act =
  | { kind: 'status'; status: string }
  | { kind: 'risk'; band: string }
  | { kind: 'range'; preset: string }
  /** Types the end date of a custom range whose start is already chosen, then Enter. */
  | { kind: 'rangeTo'; day: string }
  /** Types in the search box, then Enter. */
  | { kind: 'text'; text: string }
  /** Opens the asset or finding type picker, finds the record by typing, ticks it. */
  | { kind: 'pick'; picker: 'assets' | 'findings'; find: string }
  | { kind: 'quick'; testId: 'quick-mine' | 'quick-unassigned' | 'quick-my-group' }
  /** Opens the view by its address (a bookmarked or shared view: one person's, one group's). */
  | { kind: 'address'; params: string }
  | { kind: 'groupBy'; field: string }
  /** Opens the largest group of a grouped view. */
  | { kind: 'expand' }
  /** Clicks a column's header. */
  | { kind: 'sort'; column: string; label: string };

export interface View {
  name: string;
  /** The family the table groups it under. */
  family: string;
  /** The starting view's address query (`#/incidents?<base>`), opened untimed. */
  base: string;
  act: Act;
  /** The view in the API's terms: v2 search filters and text. */
  filters: SearchFilter[];
  text: string;
  ordering?: { field: string; direction: 'asc' | 'desc' }[];
  /** Grouped by this field (the group operation's answer is checked too). */
  groupBy?: string;
}

/** The order a view's rows come in: its sort, else the console's default (the newest first). */
export const viewOrder = (v: View): { field: string; direction: 'asc' | 'desc' }[] => v.ordering ?? [{ field: 'created_at', direction: 'desc' }];

const ts = (ms: number): string => microsToTs(ms * 1000);
const status = (...values: string[]): SearchFilter => (values.length === 1 ? { field: 'status', filter_type: 'equal', value: values[0]! } : { field: 'status', filter_type: 'intersection', value: values });
/** The stored band (the console filters risklevel by the bands' bounds: two formulations, one answer). */
const band = (b: string): SearchFilter => ({ field: 'risk', filter_type: 'equal', value: b });
const since = (ms: number): SearchFilter => ({ field: 'created_at', filter_type: 'range', value: [ts(NOW_MS - ms), null] });
const CUSTOM = { from: '2026-06-01', to: '2026-06-30' };
const custom: SearchFilter = { field: 'created_at', filter_type: 'range', value: [`${CUSTOM.from}T00:00:00.000000Z`, `${CUSTOM.to}T23:59:59.999999Z`] };

export const RANGES: { preset: string; label: string; filter: SearchFilter }[] = [
  { preset: '24h', label: 'last 24 hours', filter: since(DAY_MS) },
  { preset: '7d', label: 'last 7 days', filter: since(7 * DAY_MS) },
  { preset: '30d', label: 'last 30 days', filter: since(30 * DAY_MS) },
  { preset: '90d', label: 'last 90 days', filter: since(90 * DAY_MS) },
  { preset: '1y', label: 'last year', filter: since(365 * DAY_MS) },
];

interface Combo {
  label: string;
  base: string;
  filters: SearchFilter[];
}

const ALONE: Combo = { label: '', base: '', filters: [] };
const WITH_STATUS: Combo = { label: ' + status new', base: 'status=new', filters: [status('new')] };
const WITH_RISK: Combo = { label: ' + critical', base: 'risk=critical', filters: [band('critical')] };
const WITH_RANGE: Combo = { label: ' + last 30 days', base: 'range=30d', filters: [since(30 * DAY_MS)] };
const COMBOS = [ALONE, WITH_STATUS, WITH_RISK, WITH_RANGE];

export function views(fx: Fixtures): View[] {
  const out: View[] = [];
  const filterViews: { family: string; name: string; act: Act; filters: SearchFilter[]; text?: string }[] = [
    { family: 'text', name: `text "${WORDS.latinRare}" (Latin, rare)`, act: { kind: 'text', text: WORDS.latinRare }, filters: [], text: WORDS.latinRare },
    { family: 'text', name: `text "${WORDS.latinFrequent}" (Latin, frequent)`, act: { kind: 'text', text: WORDS.latinFrequent }, filters: [], text: WORDS.latinFrequent },
    { family: 'text', name: `text "${WORDS.cyrillicRare}" (Cyrillic, rare)`, act: { kind: 'text', text: WORDS.cyrillicRare }, filters: [], text: WORDS.cyrillicRare },
    { family: 'text', name: `text "${WORDS.cyrillicFrequent}" (Cyrillic, frequent)`, act: { kind: 'text', text: WORDS.cyrillicFrequent }, filters: [], text: WORDS.cyrillicFrequent },
    { family: 'asset', name: `asset ${fx.asset.name}`, act: { kind: 'pick', picker: 'assets', find: fx.asset.name }, filters: [{ field: 'service_asset_id', filter_type: 'equal', value: fx.asset.id }] },
    { family: 'finding type', name: `finding type "${fx.finding.title}"`, act: { kind: 'pick', picker: 'findings', find: fx.finding.title }, filters: [{ field: 'finding_id', filter_type: 'equal', value: fx.finding.id }] },
    { family: 'owner', name: 'owner: me', act: { kind: 'quick', testId: 'quick-mine' }, filters: [{ field: 'user_id', filter_type: 'equal', value: LOCAL_USER_ID }] },
    { family: 'owner', name: 'owner: none (unassigned)', act: { kind: 'quick', testId: 'quick-unassigned' }, filters: [{ field: 'user_id', filter_type: 'exists', value: null }] },
    { family: 'owner', name: `owner: ${fx.person.name}`, act: { kind: 'address', params: `owner=${fx.person.id}` }, filters: [{ field: 'user_id', filter_type: 'equal', value: fx.person.id }] },
    { family: 'group', name: 'group: mine', act: { kind: 'quick', testId: 'quick-my-group' }, filters: [{ field: 'group_id', filter_type: 'intersection', value: MY_GROUPS }] },
    { family: 'group', name: `group: ${fx.group.name}`, act: { kind: 'address', params: `team=${fx.group.id}` }, filters: [{ field: 'group_id', filter_type: 'equal', value: fx.group.id }] },
  ];
  for (const f of filterViews) {
    for (const c of COMBOS) {
      // A view opened by its address takes the combination's filters in the same address.
      const act: Act = f.act.kind === 'address' ? { kind: 'address', params: [c.base, f.act.params].filter(Boolean).join('&') } : f.act;
      out.push({ family: f.family, name: `${f.name}${c.label}`, base: c.base, act, filters: [...c.filters, ...f.filters], text: f.text ?? '' });
    }
  }
  for (const text of [WORDS.latinMiddle, WORDS.cyrillicMiddle]) {
    for (const c of [ALONE, WITH_RANGE]) out.push({ family: 'text', name: `text "${text}"${c.label}`, base: c.base, act: { kind: 'text', text }, filters: [...c.filters], text });
  }

  // Status and risk chips
  out.push({ family: 'status', name: 'status new', base: '', act: { kind: 'status', status: 'new' }, filters: [status('new')], text: '' });
  out.push({ family: 'status', name: 'status new + assigned', base: 'status=new', act: { kind: 'status', status: 'assigned_customer' }, filters: [status('new', 'assigned_customer')], text: '' });
  out.push({ family: 'status', name: 'status new + critical', base: 'risk=critical', act: { kind: 'status', status: 'new' }, filters: [status('new'), band('critical')], text: '' });
  out.push({ family: 'status', name: 'status new + last 30 days', base: 'range=30d', act: { kind: 'status', status: 'new' }, filters: [status('new'), since(30 * DAY_MS)], text: '' });
  out.push({ family: 'risk', name: 'critical', base: '', act: { kind: 'risk', band: 'critical' }, filters: [band('critical')], text: '' });
  out.push({ family: 'risk', name: 'critical + status new', base: 'status=new', act: { kind: 'risk', band: 'critical' }, filters: [status('new'), band('critical')], text: '' });
  out.push({ family: 'risk', name: 'critical + last 30 days', base: 'range=30d', act: { kind: 'risk', band: 'critical' }, filters: [band('critical'), since(30 * DAY_MS)], text: '' });

  // Time ranges: relative and custom, alone and with a status or risk
  for (const c of [ALONE, WITH_STATUS, WITH_RISK]) {
    for (const r of RANGES) out.push({ family: 'range', name: `${r.label}${c.label}`, base: c.base, act: { kind: 'range', preset: r.preset }, filters: [...c.filters, r.filter], text: '' });
    const base = [c.base, `range=custom&from=${CUSTOM.from}T00:00:00.000000Z`].filter(Boolean).join('&');
    out.push({ family: 'range', name: `custom ${CUSTOM.from}..${CUSTOM.to}${c.label}`, base, act: { kind: 'rangeTo', day: CUSTOM.to }, filters: [...c.filters, custom], text: '' });
  }

  // Groupings by each field, a large group opened
  for (const field of ['finding_id', 'service_asset_id', 'status', 'user_id', 'group_id']) {
    out.push({ family: 'grouping', name: `group by ${field}`, base: '', act: { kind: 'groupBy', field }, filters: [], text: '', groupBy: field });
  }
  out.push({ family: 'grouping', name: 'group by finding_id + status new', base: 'status=new', act: { kind: 'groupBy', field: 'finding_id' }, filters: [status('new')], text: '', groupBy: 'finding_id' });
  out.push({ family: 'grouping', name: 'open the largest group (by service_asset_id)', base: 'by=service_asset_id', act: { kind: 'expand' }, filters: [], text: '', groupBy: 'service_asset_id' });
  out.push({ family: 'grouping', name: 'open the largest group (by finding_id, status new)', base: 'status=new&by=finding_id', act: { kind: 'expand' }, filters: [status('new')], text: '', groupBy: 'finding_id' });

  // Sorting by each sortable column shown (the default order is the newest first)
  const sorts: { column: string; label: string; direction: 'asc' | 'desc' }[] = [
    { column: 'display_id', label: '#', direction: 'desc' },
    { column: 'title', label: 'Title', direction: 'asc' },
    { column: 'status', label: 'Status', direction: 'asc' },
    { column: 'risklevel', label: 'Risk', direction: 'desc' },
    { column: 'created_at', label: 'Created', direction: 'asc' },
  ];
  for (const s of sorts) {
    out.push({ family: 'sort', name: `sort by ${s.column} ${s.direction}`, base: '', act: { kind: 'sort', column: s.column, label: s.label }, filters: [], text: '', ordering: [{ field: s.column, direction: s.direction }] });
  }
  // Last: every title is nearly its own group (hundreds of thousands of them): the console reads them a page at a time.
  out.push({ family: 'grouping', name: 'group by title', base: '', act: { kind: 'groupBy', field: 'title' }, filters: [], text: '', groupBy: 'title' });
  // With a status (the largest, closed, too), a risk band or a range: each first request counts that slice's titles.
  for (const st of ['new', 'assigned_customer', 'closed']) {
    out.push({ family: 'grouping', name: `group by title + status ${st}`, base: `status=${st}`, act: { kind: 'groupBy', field: 'title' }, filters: [status(st)], text: '', groupBy: 'title' });
  }
  for (const c of [WITH_RISK, WITH_RANGE]) {
    out.push({ family: 'grouping', name: `group by title${c.label}`, base: c.base, act: { kind: 'groupBy', field: 'title' }, filters: [...c.filters], text: '', groupBy: 'title' });
  }
  return out;
}
