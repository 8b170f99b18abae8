// The aggregates of a query the server's aggregates cannot take (a correlation rule is a relation,
// which the standard query of the stats does not filter by): counted here from the matching
// incidents' creation time, status and risk level, read through the search, with the server's
// rules (UTC days, weeks from Monday, the CVSS bands, `auto` by the span of the matches).
import { INCIDENT_STATUSES, RISK_BANDS, riskBand } from '../../../src-shared/resources/fields';
import { emptySearch, type SearchFilter } from '../../../src-shared/schemas/search';
import { search, type Stats } from '../api/radar';
import type { Api, Target } from '../api/client';

const PAGE = 10_000;
/** Past this many matches the counts are not made here (the query is too wide for a pivot). */
export const LOCAL_STATS_MAX = 200_000;

function bucketStart(day: string, unit: Stats['bucket']): string {
  if (unit === 'day') return day;
  if (unit === 'month') return `${day.slice(0, 7)}-01`;
  const d = Date.parse(`${day}T00:00:00Z`);
  return new Date(d - ((new Date(d).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
}

function autoBucket(first: string | undefined, last: string | undefined): Stats['bucket'] {
  if (!first || !last) return 'day';
  const days = (Date.parse(last) - Date.parse(first)) / 86_400_000;
  return days <= 62 ? 'day' : days <= 366 ? 'week' : 'month';
}

const rank = (list: readonly string[], v: string) => (list.indexOf(v) < 0 ? list.length : list.indexOf(v));

export async function localStats(api: Api, target: Target, filters: SearchFilter[], text: string, requested: Stats['bucket'] | 'auto', signal?: AbortSignal): Promise<Stats> {
  const rows: { day: string; status: string; risk: string }[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await search(
      api,
      target,
      'service_asset_findings',
      { ...emptySearch(PAGE, offset), include_fields: ['id', 'created_at', 'status', 'risklevel'], filters, ordering: [{ field: 'created_at', direction: 'asc' }], virtual_search: { value: text, strict: false } },
      signal,
    );
    if (page.total > LOCAL_STATS_MAX) throw new Error(`too many incidents to count here (${page.total})`);
    for (const r of page.items) rows.push({ day: String(r.created_at).slice(0, 10), status: String(r.status), risk: riskBand(Number(r.risklevel ?? 0)) });
    if (page.items.length < PAGE || offset + page.items.length >= page.total) break;
  }
  const bucket = requested === 'auto' ? autoBucket(rows[0]?.day, rows[rows.length - 1]?.day) : requested;
  const cube = new Map<string, { bucket: string; status: string; risk: string; count: number }>();
  const byStatus = new Map<string, number>();
  const byRisk = new Map<string, number>();
  for (const r of rows) {
    const b = bucketStart(r.day, bucket);
    const k = `${b}|${r.status}|${r.risk}`;
    const cell = cube.get(k);
    if (cell) cell.count++;
    else cube.set(k, { bucket: b, status: r.status, risk: r.risk, count: 1 });
    byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    byRisk.set(r.risk, (byRisk.get(r.risk) ?? 0) + 1);
  }
  return {
    total: rows.length,
    bucket,
    by_status: [...byStatus].map(([status, count]) => ({ status, count })).sort((a, b) => rank(INCIDENT_STATUSES, a.status) - rank(INCIDENT_STATUSES, b.status)),
    by_risk: [...byRisk].map(([risk, count]) => ({ risk, count })).sort((a, b) => rank(RISK_BANDS, a.risk) - rank(RISK_BANDS, b.risk)),
    over_time: [...cube.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0)),
  };
}
