// The incident list's query in the address (after `?` in the hash), so a view can be reloaded,
// bookmarked and shared: `#/incidents?status=new,closed&risk=high&range=7d&sort=-risklevel&by=finding_id`;
// pivots: `rule=` (incidents a correlation rule raised) and what is hidden, `xasset= xfinding= xrule=
// xowner= xteam=`.
// Only what differs from the empty query is written; unknown values are dropped.
import { INCIDENT_STATUSES, RISK_BANDS, type IncidentStatus, type RiskBand } from '../../../../src-shared/resources/fields';
import { normalizeTs } from '../../../../src-shared/time';
import { DEFAULT_SORT, emptyQuery, GROUP_FIELDS, RANGE_PRESETS, type GroupField, type IncidentQuery, type SortKey, type TimeRange } from './query';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const list = (v: string | null): string[] => (v ? v.split(',').map((x) => x.trim()).filter(Boolean) : []);
const ids = (v: string | null): string[] => list(v).filter((x) => UUID.test(x)).map((x) => x.toLowerCase());
const SORT_ID = /^[a-z_][a-z0-9_]*$/;

function sortOf(v: string | null): SortKey[] {
  const keys = list(v)
    .map((k) => ({ id: k.replace(/^-/, ''), desc: k.startsWith('-') }))
    .filter((k) => SORT_ID.test(k.id));
  return keys.length ? keys : DEFAULT_SORT;
}

const sortText = (s: readonly SortKey[]): string => s.map((k) => `${k.desc ? '-' : ''}${k.id}`).join(',');

function rangeOf(p: URLSearchParams): TimeRange {
  const preset = p.get('range');
  if (preset === 'custom') {
    const from = normalizeTs(p.get('from') ?? '') ?? undefined;
    const to = normalizeTs(p.get('to') ?? '') ?? undefined;
    // Chosen without dates yet (the date inputs are open): still custom, filtering nothing.
    return { preset: 'custom', from, to };
  }
  return (RANGE_PRESETS as readonly string[]).includes(preset ?? '') ? { preset: preset as TimeRange['preset'] } : { preset: 'all' };
}

function ownerOf(v: string | null): string {
  if (v === 'me' || v === 'none') return v;
  return v && UUID.test(v) ? v.toLowerCase() : 'any';
}

function teamOf(v: string | null): string {
  if (v === 'mine') return v;
  return v && UUID.test(v) ? v.toLowerCase() : 'any';
}

export function queryFromParams(p: URLSearchParams): IncidentQuery {
  const by = p.get('by');
  const cols = list(p.get('cols')).filter((c) => SORT_ID.test(c));
  return {
    statuses: list(p.get('status')).filter((s): s is IncidentStatus => (INCIDENT_STATUSES as readonly string[]).includes(s)),
    risks: list(p.get('risk')).filter((s): s is RiskBand => (RISK_BANDS as readonly string[]).includes(s)),
    assets: ids(p.get('asset')),
    findings: ids(p.get('finding')),
    rules: ids(p.get('rule')),
    notAssets: ids(p.get('xasset')),
    notFindings: ids(p.get('xfinding')),
    notRules: ids(p.get('xrule')),
    notOwners: ids(p.get('xowner')),
    notTeams: ids(p.get('xteam')),
    owner: ownerOf(p.get('owner')),
    team: teamOf(p.get('team')),
    range: rangeOf(p),
    search: p.get('q') ?? '',
    sorting: sortOf(p.get('sort')),
    groupBy: (GROUP_FIELDS as readonly string[]).includes(by ?? '') ? (by as GroupField) : null,
    columns: cols.length ? cols : null,
  };
}

export function paramsOfQuery(q: IncidentQuery): URLSearchParams {
  const p = new URLSearchParams();
  const e = emptyQuery();
  if (q.search.trim()) p.set('q', q.search);
  if (q.statuses.length) p.set('status', q.statuses.join(','));
  if (q.risks.length) p.set('risk', q.risks.join(','));
  if (q.assets.length) p.set('asset', q.assets.join(','));
  if (q.findings.length) p.set('finding', q.findings.join(','));
  if (q.rules.length) p.set('rule', q.rules.join(','));
  if (q.notAssets.length) p.set('xasset', q.notAssets.join(','));
  if (q.notFindings.length) p.set('xfinding', q.notFindings.join(','));
  if (q.notRules.length) p.set('xrule', q.notRules.join(','));
  if (q.notOwners.length) p.set('xowner', q.notOwners.join(','));
  if (q.notTeams.length) p.set('xteam', q.notTeams.join(','));
  if (q.owner !== e.owner) p.set('owner', q.owner);
  if (q.team !== e.team) p.set('team', q.team);
  if (q.range.preset !== 'all') {
    p.set('range', q.range.preset);
    if (q.range.preset === 'custom') {
      if (q.range.from) p.set('from', q.range.from);
      if (q.range.to) p.set('to', q.range.to);
    }
  }
  if (sortText(q.sorting) !== sortText(DEFAULT_SORT)) p.set('sort', sortText(q.sorting));
  if (q.groupBy) p.set('by', q.groupBy);
  if (q.columns) p.set('cols', q.columns.join(','));
  return p;
}

/** The query part of an incidents address ('' for the empty query), without the `?`. */
export const queryString = (q: IncidentQuery): string => paramsOfQuery(q).toString().replace(/%2C/gi, ',');
