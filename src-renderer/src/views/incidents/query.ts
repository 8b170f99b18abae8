// The incident list's query (quick filters, search, sorting, grouping, columns) and what it
// becomes on the wire: the v2 search request the table pages through, and the standard query of
// the aggregates. A relative range ("last 7 days") is resolved against `asOf`, the instant of the
// user's last action (a filter change, a refresh), so every request of one action agrees.
import { formatStandardQuery, type StandardFilter } from '../../../../src-shared/public/standard-filters';
import { INCIDENT_STATUSES, RISK_BANDS, type IncidentStatus, type RiskBand } from '../../../../src-shared/resources/fields';
import { emptySearch } from '../../../../src-shared/client/empty-search';
import type { SearchFilter, SearchRequest } from '../../../../src-shared/schemas/search';
import { microsToTs, normalizeTs } from '../../../../src-shared/time';

export const RANGE_PRESETS = ['all', '24h', '7d', '30d', '90d', '1y'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

const PRESET_MS: Record<Exclude<RangePreset, 'all'>, number> = {
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
  '1y': 365 * 86_400_000,
};

export interface TimeRange {
  preset: RangePreset | 'custom';
  /** Inclusive start and exclusive end (platform timestamps), for custom ranges. */
  from?: string;
  to?: string;
}

export interface SortKey {
  id: string;
  desc: boolean;
}

/** Whose incidents: anyone's, the local analyst's, nobody's, or one person's (a uuid). */
export type OwnerFilter = 'any' | 'me' | 'none' | string;
/** Which responsible group: any, the local analyst's groups, or one group (a uuid). */
export type TeamFilter = 'any' | 'mine' | string;

/** Fields the list can be grouped by (the resource's `group` operation). */
export const GROUP_FIELDS = ['finding_id', 'service_asset_id', 'status', 'user_id', 'group_id', 'title'] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];

export interface IncidentQuery {
  statuses: IncidentStatus[];
  risks: RiskBand[];
  /** Asset and finding type ids. */
  assets: string[];
  findings: string[];
  /** Pivots: correlation rules whose incidents are shown, and what is hidden (assets, finding
   * types, rules, owners, groups); `owner` and `team` hold one person or group shown. */
  rules: string[];
  notAssets: string[];
  notFindings: string[];
  notRules: string[];
  notOwners: string[];
  notTeams: string[];
  owner: OwnerFilter;
  team: TeamFilter;
  range: TimeRange;
  search: string;
  sorting: SortKey[];
  groupBy: GroupField | null;
  /** The columns shown, in order; null: the user's defaults. */
  columns: string[] | null;
}

export const DEFAULT_SORT: SortKey[] = [{ id: 'created_at', desc: true }];

export function emptyQuery(): IncidentQuery {
  return {
    statuses: [],
    risks: [],
    assets: [],
    findings: [],
    rules: [],
    notAssets: [],
    notFindings: [],
    notRules: [],
    notOwners: [],
    notTeams: [],
    owner: 'any',
    team: 'any',
    range: { preset: 'all' },
    search: '',
    sorting: DEFAULT_SORT,
    groupBy: null,
    columns: null,
  };
}

/** How many pivot conditions the query holds (shown, hidden, by rule). */
export function pivotCount(q: IncidentQuery): number {
  return q.rules.length + q.notAssets.length + q.notFindings.length + q.notRules.length + q.notOwners.length + q.notTeams.length;
}

export function isFiltered(q: IncidentQuery): boolean {
  return (
    q.statuses.length + q.risks.length + q.assets.length + q.findings.length + pivotCount(q) > 0 ||
    q.owner !== 'any' ||
    q.team !== 'any' ||
    q.range.preset !== 'all' ||
    q.search.trim() !== ''
  );
}

/** The range's bounds at `asOf`: [from, to), either open. */
export function rangeBounds(r: TimeRange, asOf: number): { from: string | null; to: string | null } {
  if (r.preset === 'all') return { from: null, to: null };
  if (r.preset === 'custom') return { from: r.from ?? null, to: r.to ?? null };
  return { from: microsToTs((asOf - PRESET_MS[r.preset]) * 1000), to: null };
}

/** One microsecond before a timestamp: turns an exclusive end into an inclusive one. */
export function justBefore(ts: string): string {
  const n = normalizeTs(ts);
  if (!n) return ts;
  const ms = Date.parse(n);
  const micros = ms * 1000 + Number(n.slice(23, 26));
  return microsToTs(micros - 1);
}

/** Fields every incident row of the table carries, whichever columns are shown. */
export const ROW_FIELDS = ['id', 'display_id', 'title', 'status', 'risk', 'risklevel', 'service_asset_id', 'finding_id', 'created_at', 'user_id', 'group_id'];

/** Who "me" is and which groups are "mine", to resolve the owner and team filters. */
export interface Identity {
  me: string | null;
  myGroups: readonly string[];
}

export const NO_IDENTITY: Identity = { me: null, myGroups: [] };

/** What a query is resolved against: the instant of the last action and the local analyst. */
export interface Resolve {
  asOf: number;
  who: Identity;
  /** Rows created after this are held back (live list: new incidents announced, not shown). */
  until?: string | null;
  /**
   * The status sorts in workflow order (the sort-only key `status_rank`, which this server's
   * instances know); otherwise as the values' text (remote platforms do not know the key).
   */
  statusRank?: boolean;
}

const NOBODY = '00000000-0000-0000-0000-000000000000';

function ownershipFilters(q: IncidentQuery, who: Identity): SearchFilter[] {
  const out: SearchFilter[] = [];
  if (q.owner === 'none') out.push({ field: 'user_id', filter_type: 'exists', value: null });
  else if (q.owner === 'me') out.push({ field: 'user_id', filter_type: 'equal', value: who.me ?? NOBODY });
  else if (q.owner !== 'any') out.push({ field: 'user_id', filter_type: 'equal', value: q.owner });
  if (q.team === 'mine') out.push({ field: 'group_id', filter_type: 'intersection', value: who.myGroups.length ? [...who.myGroups] : [NOBODY] });
  else if (q.team !== 'any') out.push({ field: 'group_id', filter_type: 'equal', value: q.team });
  return out;
}

export function toSearchFilters(q: IncidentQuery, res: Resolve, omit: { status?: boolean; risk?: boolean } = {}): SearchFilter[] {
  const filters: SearchFilter[] = [];
  if (!omit.status && q.statuses.length) filters.push({ field: 'status', filter_type: 'intersection', value: sortedStatuses(q.statuses) });
  if (!omit.risk && q.risks.length) filters.push(...riskFilters(q.risks));
  if (q.assets.length) filters.push({ field: 'service_asset_id', filter_type: 'intersection', value: [...q.assets] });
  if (q.findings.length) filters.push({ field: 'finding_id', filter_type: 'intersection', value: [...q.findings] });
  if (q.rules.length) filters.push({ field: 'engine_go_rules', filter_type: 'related', value: [...q.rules] });
  filters.push(...hidden(q).map((h) => (h.field === 'engine_go_rules' ? { field: h.field, filter_type: 'related' as const, value: h.ids, negation: true } : { field: h.field, filter_type: 'intersection' as const, value: h.ids, negation: true })));
  filters.push(...ownershipFilters(q, res.who));
  const { from, to } = rangeBounds(q.range, res.asOf);
  const upper = to ? justBefore(to) : null;
  const cap = res.until && (!upper || res.until < upper) ? res.until : upper;
  if (from || cap) filters.push({ field: 'created_at', filter_type: 'range', value: [from, cap] });
  return filters;
}

/** What the pivots hide, by the field (or relation) they test. */
function hidden(q: IncidentQuery): { field: string; ids: string[] }[] {
  return [
    { field: 'service_asset_id', ids: q.notAssets },
    { field: 'finding_id', ids: q.notFindings },
    { field: 'engine_go_rules', ids: q.notRules },
    { field: 'user_id', ids: q.notOwners },
    { field: 'group_id', ids: q.notTeams },
  ].filter((h) => h.ids.length > 0);
}

/** Whether the aggregates can come from the server's standard query (rules are a relation it does not filter by). */
export const statsByServer = (q: IncidentQuery): boolean => q.rules.length + q.notRules.length === 0;

const sortedStatuses = (s: readonly IncidentStatus[]): IncidentStatus[] => INCIDENT_STATUSES.filter((x) => s.includes(x));
const sortedRisks = (s: readonly RiskBand[]): RiskBand[] => RISK_BANDS.filter((x) => s.includes(x));

/** Where each band starts (inclusive) and the next one begins; CVSS v3 bands of risklevel. */
const BAND_LOWER: Record<RiskBand, SearchFilter | null> = {
  none: null,
  low: { field: 'risklevel', filter_type: 'range', value: [null, 0], negation: true },
  medium: { field: 'risklevel', filter_type: 'range', value: [4, null] },
  high: { field: 'risklevel', filter_type: 'range', value: [7, null] },
  critical: { field: 'risklevel', filter_type: 'range', value: [9, null] },
};
const BAND_UPPER: Record<RiskBand, SearchFilter | null> = {
  none: { field: 'risklevel', filter_type: 'range', value: [null, 0] },
  low: { field: 'risklevel', filter_type: 'range', value: [4, null], negation: true },
  medium: { field: 'risklevel', filter_type: 'range', value: [7, null], negation: true },
  high: { field: 'risklevel', filter_type: 'range', value: [9, null], negation: true },
  critical: null,
};

/**
 * Risk bands as filters on risklevel (indexed): a run of adjacent bands is one range; bands
 * that are not adjacent fall back to the stored band (`risk`), which the server keeps in step.
 */
export function riskFilters(risks: readonly RiskBand[]): SearchFilter[] {
  const sorted = sortedRisks(risks);
  if (!sorted.length || sorted.length === RISK_BANDS.length) return [];
  const lo = RISK_BANDS.indexOf(sorted[0]!);
  const hi = RISK_BANDS.indexOf(sorted[sorted.length - 1]!);
  if (hi - lo + 1 !== sorted.length) return [{ field: 'risk', filter_type: 'intersection', value: sorted }];
  return [BAND_LOWER[sorted[0]!], BAND_UPPER[sorted[sorted.length - 1]!]].filter((f): f is SearchFilter => f !== null);
}

export function toSearchRequest(q: IncidentQuery, res: Resolve, fields: readonly string[], limit = 100, offset = 0): SearchRequest {
  return {
    ...emptySearch(limit, offset),
    include_fields: [...new Set([...ROW_FIELDS, ...fields])],
    filters: toSearchFilters(q, res),
    ordering: orderingOf(q, res.statusRank),
    virtual_search: { value: searchText(q), strict: false },
  };
}

/** The sort as v2 ordering; the Status column sorts in workflow order where the instance can. */
export function orderingOf(q: IncidentQuery, statusRank = false): SearchRequest['ordering'] {
  return q.sorting.map((s) => ({ field: statusRank && s.id === 'status' ? 'status_rank' : s.id, direction: s.desc ? 'desc' : 'asc' }));
}

/** The text searched: the search box less an incident number typed as `#398` (that one opens). */
export function searchText(q: IncidentQuery): string {
  return incidentNumber(q.search) === null ? q.search.trim() : '';
}

/** `#398` (or `398` alone with the hash) as an incident number; null otherwise. */
export function incidentNumber(text: string): number | null {
  const m = /^\s*#(\d{1,12})\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The standard query (public API grammar) of the aggregates, without status and risk: the
 * console slices those itself so each chip can show its count. */
export function toStatsQuery(q: IncidentQuery, res: Resolve, bucket: 'day' | 'week' | 'month' | 'auto'): string {
  const filters: StandardFilter[] = [];
  if (q.assets.length) filters.push({ field: 'service_asset_id', op: 'in', values: [...q.assets] });
  if (q.findings.length) filters.push({ field: 'finding_id', op: 'in', values: [...q.findings] });
  for (const h of hidden(q)) if (h.field !== 'engine_go_rules') filters.push({ field: h.field, op: 'notin', values: [...h.ids] });
  for (const f of ownershipFilters(q, res.who)) {
    if (f.filter_type === 'exists') filters.push({ field: f.field, op: 'isnull', values: [] });
    else if (f.filter_type === 'equal') filters.push({ field: f.field, op: 'eq', values: [String(f.value)] });
    else filters.push({ field: f.field, op: 'in', values: (f.value as string[]).map(String) });
  }
  const { from, to } = rangeBounds(q.range, res.asOf);
  if (from) filters.push({ field: 'created_at', op: 'gt', values: [justBefore(from)] });
  const cap = res.until && (!to || res.until < to) ? res.until : null;
  if (cap) filters.push({ field: 'created_at', op: 'lt', values: [nextMicro(cap)] });
  else if (to) filters.push({ field: 'created_at', op: 'lt', values: [to] });
  const qs = formatStandardQuery({ filters, search: searchText(q) });
  return qs ? `${qs}&bucket=${bucket}` : `bucket=${bucket}`;
}

function nextMicro(ts: string): string {
  const n = normalizeTs(ts);
  if (!n) return ts;
  return microsToTs(Date.parse(n) * 1000 + Number(n.slice(23, 26)) + 1);
}

/** The bucket unit for a range: days up to two months, weeks up to a year, else chosen by the data. */
export function bucketFor(r: TimeRange, asOf: number): 'day' | 'week' | 'month' | 'auto' {
  const { from, to } = rangeBounds(r, asOf);
  if (!from) return 'auto';
  const span = (to ? Date.parse(to) : asOf) - Date.parse(from);
  if (span <= 62 * 86_400_000) return 'day';
  if (span <= 366 * 86_400_000) return 'week';
  return 'month';
}

/** The end (exclusive) of the bucket starting on `day`. */
export function bucketEnd(day: string, unit: 'day' | 'week' | 'month'): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (unit === 'day') d.setUTCDate(d.getUTCDate() + 1);
  else if (unit === 'week') d.setUTCDate(d.getUTCDate() + 7);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return microsToTs(d.getTime() * 1000);
}

/** What the rows depend on (not the columns shown, nor the grouping). */
export const queryKey = (q: IncidentQuery): string =>
  JSON.stringify([q.statuses, q.risks, q.assets, q.findings, q.rules, q.notAssets, q.notFindings, q.notRules, q.notOwners, q.notTeams, q.owner, q.team, q.range, q.search, q.sorting]);
