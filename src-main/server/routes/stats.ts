// Incident aggregates for the console's counts and charts, per instance (so the routing port
// serves them per instance and fans them out): counts by status, by risk band, and over time by
// bucket, status and risk band, for any standard query of the public API. Computed in SQL.
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { badRequest } from '../../../src-shared/errors';
import { publicEntity, publicResource } from '../../../src-shared/public/entities';
import { parseStandardQuery, StandardQueryError } from '../../../src-shared/public/standard-filters';
import { INCIDENT_STATUSES, RISK_BANDS, riskBandSql } from '../../../src-shared/resources/fields';
import { compileStandardQuery } from '../../public/query';
import { STAT_BUCKETS, type StatBucket } from '../../../src-shared/schemas/stats';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

export const STATS_URL = '/console/v1/stats/incidents';

export { STAT_BUCKETS, type IncidentStats, type StatBucket } from '../../../src-shared/schemas/stats';

/** `auto` picks days for spans up to this many days, weeks up to AUTO_WEEK_DAYS, else months. */
const AUTO_DAY_DAYS = 62;
const AUTO_WEEK_DAYS = 366;

/** The risk band of the row aliased `t`: the CVSS band its risk level falls in (contract.md §3),
 * read from the (status, risklevel, created_at) index rather than the row. */
const RISK_SQL = riskBandSql('t.risklevel');

/** The first day of the bucket holding `day` (a 'YYYY-MM-DD' expression). */
function bucketSql(bucket: StatBucket, day: string): string {
  switch (bucket) {
    case 'day':
      return day;
    case 'week':
      // Weeks start on Monday (ISO 8601).
      return `date(${day}, '-' || ((CAST(strftime('%w', ${day}) AS INTEGER) + 6) % 7) || ' days')`;
    case 'month':
      return `substr(${day}, 1, 7) || '-01'`;
  }
}

function autoBucket(first: string | null, last: string | null): StatBucket {
  if (!first || !last) return 'day';
  const days = (Date.parse(last.slice(0, 10)) - Date.parse(first.slice(0, 10))) / 86_400_000;
  if (days <= AUTO_DAY_DAYS) return 'day';
  if (days <= AUTO_WEEK_DAYS) return 'week';
  return 'month';
}

const order = <T extends string>(list: readonly T[], v: string): number => {
  const i = (list as readonly string[]).indexOf(v);
  return i < 0 ? list.length : i;
};

export function registerStats(app: FastifyInstance, deps: ApiDeps): void {
  const entity = publicEntity('incidents')!;
  const r = publicResource(entity);
  serve(app, consoleOperations().stats, async (req) => {
    const { bucket: requested = 'day', ...rest } = req.query as Record<string, string | string[] | undefined> & { bucket?: (typeof STAT_BUCKETS)[number] };
    for (const k of ['page', 'per_page', 'order']) delete rest[k];
    let where;
    try {
      where = compileStandardQuery(r, parseStandardQuery(rest)).where;
    } catch (e) {
      if (e instanceof StandardQueryError) throw badRequest(e.message);
      throw e;
    }
    const store = deps.store();
    const from = `FROM service_asset_findings t WHERE ${where.sql}`;
    let bucket: StatBucket;
    if (requested === 'auto') {
      // Two scalar subqueries: each can take its end of the created_at index.
      const span = store.get1<{ first: string | null; last: string | null }>(
        `SELECT (SELECT MIN(t.created_at) ${from}) AS first, (SELECT MAX(t.created_at) ${from}) AS last`,
        [...where.params, ...where.params],
      );
      bucket = autoBucket(span?.first ?? null, span?.last ?? null);
    } else {
      bucket = requested;
    }
    // Grouped by day first (a cheap prefix of the timestamp), then rolled up to the bucket.
    const days = `SELECT substr(t.created_at, 1, 10) AS day, t.status AS status, ${RISK_SQL} AS risk, COUNT(*) AS n ${from} GROUP BY 1, 2, 3`;
    const rows = store.all<{ bucket: string; status: string; risk: string; count: number }>(
      `SELECT ${bucketSql(bucket, 'd.day')} AS bucket, d.status AS status, d.risk AS risk, SUM(d.n) AS count FROM (${days}) d GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      where.params,
    );
    const byStatus = new Map<string, number>();
    const byRisk = new Map<string, number>();
    let total = 0;
    for (const row of rows) {
      total += row.count;
      byStatus.set(row.status, (byStatus.get(row.status) ?? 0) + row.count);
      byRisk.set(row.risk, (byRisk.get(row.risk) ?? 0) + row.count);
    }
    return {
      total,
      bucket,
      by_status: [...byStatus]
        .map(([status, count]) => ({ status, count }))
        .sort((a, b) => order(INCIDENT_STATUSES, a.status) - order(INCIDENT_STATUSES, b.status) || a.status.localeCompare(b.status)),
      by_risk: [...byRisk]
        .map(([risk, count]) => ({ risk, count }))
        .sort((a, b) => order(RISK_BANDS, a.risk) - order(RISK_BANDS, b.risk) || a.risk.localeCompare(b.risk)),
      over_time: rows,
    };
  });
}
