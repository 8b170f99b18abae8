// Incidents over time, stacked by status and by risk band (recharts). A click on a bar filters
// the table to that bucket and that status or band.
import { memo } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { INCIDENT_STATUSES, RISK_BANDS, type IncidentStatus, type RiskBand } from '../../../../src-shared/resources/fields';
import type { Stats } from '../../api/radar';
import { useI18n } from '../../i18n';
import { formatBucket, formatBucketLong, formatNumber } from '../../i18n/format';
import { riskColor, statusColor } from '../../lib/colors';
import { useUi } from '../../state/ui';

export interface ChartsProps {
  stats: Stats;
  statuses: readonly IncidentStatus[];
  risks: readonly RiskBand[];
  onPick(pick: { bucket: string; status?: IncidentStatus; risk?: RiskBand }): void;
}

type Point = Record<string, number | string> & { bucket: string };

function series(stats: Stats, dim: 'status' | 'risk', statuses: readonly string[], risks: readonly string[]): Point[] {
  const byBucket = new Map<string, Point>();
  for (const o of stats.over_time) {
    if (statuses.length && !statuses.includes(o.status)) continue;
    if (risks.length && !risks.includes(o.risk)) continue;
    let p = byBucket.get(o.bucket);
    if (!p) byBucket.set(o.bucket, (p = { bucket: o.bucket }));
    const k = dim === 'status' ? o.status : o.risk;
    p[k] = ((p[k] as number | undefined) ?? 0) + o.count;
  }
  return fill([...byBucket.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : 1)), stats.bucket);
}

/** The next bucket's first day ('YYYY-MM-DD'). */
function nextBucket(day: string, unit: Stats['bucket']): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (unit === 'day') d.setUTCDate(d.getUTCDate() + 1);
  else if (unit === 'week') d.setUTCDate(d.getUTCDate() + 7);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 10);
}

/** Every bucket between the first and the last, empty ones included (a quiet week shows as one). */
function fill(points: Point[], unit: Stats['bucket']): Point[] {
  if (points.length < 2) return points;
  const out: Point[] = [];
  const byBucket = new Map(points.map((p) => [p.bucket, p]));
  const last = points[points.length - 1]!.bucket;
  for (let b = points[0]!.bucket, n = 0; b <= last && n < 5000; b = nextBucket(b, unit), n++) out.push(byBucket.get(b) ?? { bucket: b });
  return out;
}

function Charts({ stats, statuses, risks, onPick }: ChartsProps) {
  const { t, lang } = useI18n();
  useUi((s) => s.theme);
  const byStatus = series(stats, 'status', statuses, risks);
  const byRisk = series(stats, 'risk', statuses, risks);
  const tick = (v: string) => formatBucket(lang, v, stats.bucket);
  const num = (v: number) => formatNumber(lang, v);
  const shownStatuses = INCIDENT_STATUSES.filter((s) => byStatus.some((p) => p[s] !== undefined));
  const shownRisks = [...RISK_BANDS].reverse().filter((r) => byRisk.some((p) => p[r] !== undefined));
  const axis = { fontSize: 10, fill: 'var(--muted)' };
  const chart = (id: string, title: string, data: Point[], keys: readonly string[], color: (k: string) => string, name: (k: string) => string, pick: (bucket: string, k: string) => void) => (
    <figure className={`chart chart-${id}`} aria-label={title}>
      <figcaption>
        {title} <span className="muted">· {t(`charts.unit.${stats.bucket}`)}</span>
      </figcaption>
      <div className="chart-area">
        {data.length === 0 ? (
          <p className="muted chart-empty">{t('charts.empty')}</p>
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
              <CartesianGrid vertical={false} stroke="var(--line)" />
              <XAxis dataKey="bucket" tickFormatter={tick} tick={axis} tickLine={false} axisLine={false} minTickGap={16} />
              <YAxis tick={axis} tickFormatter={num} width={44} tickLine={false} axisLine={false} allowDecimals={false} />
              <Tooltip
                cursor={{ fill: 'var(--hover)' }}
                labelFormatter={(v) => formatBucketLong(lang, String(v), stats.bucket)}
                formatter={(v, n) => [num(Number(v)), String(n)]}
                contentStyle={{ background: 'var(--panel)', border: '1px solid var(--line)', fontSize: 12 }}
              />
              <Legend verticalAlign="top" align="right" iconSize={8} wrapperStyle={{ fontSize: 11, lineHeight: '14px', paddingBottom: 2 }} itemSorter={(item) => keys.indexOf(String(item.dataKey))} />
              {keys.map((k) => (
                <Bar
                  key={k}
                  dataKey={k}
                  name={name(k)}
                  stackId="s"
                  fill={color(k)}
                  isAnimationActive={false}
                  className={`bar bar-${k}`}
                  cursor="pointer"
                  onClick={(d) => pick(String((d.payload as Point | undefined)?.bucket ?? ''), k)}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        )}
      </div>
    </figure>
  );
  return (
    <div className="charts">
      {chart(
        'status',
        t('charts.byStatus'),
        byStatus,
        shownStatuses,
        statusColor,
        (k) => t(`status.${k}`),
        (bucket, k) => bucket && onPick({ bucket, status: k as IncidentStatus }),
      )}
      {chart(
        'risk',
        t('charts.byRisk'),
        byRisk,
        shownRisks,
        riskColor,
        (k) => t(`risk.${k}`),
        (bucket, k) => bucket && onPick({ bucket, risk: k as RiskBand }),
      )}
    </div>
  );
}

export default memo(Charts);
