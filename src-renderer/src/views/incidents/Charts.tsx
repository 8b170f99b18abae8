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
  /** The range shown, as days ('YYYY-MM-DD', UTC like the buckets): from its first day (null: the data's first) to its last (today for an open range). */
  span: { from: string | null; to: string };
  statuses: readonly IncidentStatus[];
  risks: readonly RiskBand[];
  onPick(pick: { bucket: string; status?: IncidentStatus; risk?: RiskBand }): void;
}

type Point = Record<string, number | string> & { bucket: string };

function series(stats: Stats, dim: 'status' | 'risk', statuses: readonly string[], risks: readonly string[], span: ChartsProps['span']): Point[] {
  const byBucket = new Map<string, Point>();
  for (const o of stats.over_time) {
    if (statuses.length && !statuses.includes(o.status)) continue;
    if (risks.length && !risks.includes(o.risk)) continue;
    let p = byBucket.get(o.bucket);
    if (!p) byBucket.set(o.bucket, (p = { bucket: o.bucket }));
    const k = dim === 'status' ? o.status : o.risk;
    p[k] = ((p[k] as number | undefined) ?? 0) + o.count;
  }
  return fill([...byBucket.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : 1)), stats.bucket, span);
}

/** The first day of the bucket holding `day` (weeks start on Monday, as the server's). */
function bucketOf(day: string, unit: Stats['bucket']): string {
  if (unit === 'day') return day;
  if (unit === 'month') return `${day.slice(0, 7)}-01`;
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
}

/** The next bucket's first day ('YYYY-MM-DD'). */
function nextBucket(day: string, unit: Stats['bucket']): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (unit === 'day') d.setUTCDate(d.getUTCDate() + 1);
  else if (unit === 'week') d.setUTCDate(d.getUTCDate() + 7);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * Every bucket of the range, empty ones included, up to the range's end (today for an open range):
 * a quiet week shows as one, and data that stopped arriving shows as empty days up to now.
 */
function fill(points: Point[], unit: Stats['bucket'], span: ChartsProps['span']): Point[] {
  if (!points.length && !span.from) return points;
  const out: Point[] = [];
  const byBucket = new Map(points.map((p) => [p.bucket, p]));
  const first = span.from ? bucketOf(span.from, unit) : points[0]!.bucket;
  const dataLast = points.length ? points[points.length - 1]!.bucket : first;
  const spanLast = bucketOf(span.to, unit);
  const last = dataLast > spanLast ? dataLast : spanLast;
  const start = points.length && points[0]!.bucket < first ? points[0]!.bucket : first;
  for (let b = start, n = 0; b <= last && n < 5000; b = nextBucket(b, unit), n++) out.push(byBucket.get(b) ?? { bucket: b });
  return out;
}

/** The tooltip: the bucket, its series in the legend's order with their counts, and the total. */
function ChartTip(props: { active?: boolean; label?: unknown; payload?: readonly { dataKey?: unknown; value?: unknown; color?: string; name?: unknown }[]; keys: readonly string[]; unit: Stats['bucket'] }) {
  const { t, lang } = useI18n();
  if (!props.active || !props.payload?.length) return null;
  const items = [...props.payload].filter((p) => Number(p.value) > 0).sort((a, b) => props.keys.indexOf(String(a.dataKey)) - props.keys.indexOf(String(b.dataKey)));
  const total = items.reduce((n, p) => n + Number(p.value), 0);
  return (
    <div className="chart-tip">
      <div className="chart-tip-label">{formatBucketLong(lang, String(props.label), props.unit)}</div>
      {items.map((p) => (
        <div key={String(p.dataKey)} className="chart-tip-row">
          <span className="chart-tip-dot" style={{ background: p.color }} aria-hidden="true" />
          <span>{String(p.name)}</span>
          <span className="chart-tip-n">{formatNumber(lang, Number(p.value))}</span>
        </div>
      ))}
      <div className="chart-tip-row chart-tip-total">
        <span />
        <span>{t('charts.total')}</span>
        <span className="chart-tip-n">{formatNumber(lang, total)}</span>
      </div>
    </div>
  );
}

function Charts({ stats, statuses, risks, onPick, span }: ChartsProps) {
  const { t, lang } = useI18n();
  useUi((s) => s.theme);
  const byStatus = series(stats, 'status', statuses, risks, span);
  const byRisk = series(stats, 'risk', statuses, risks, span);
  const tick = (v: string) => formatBucket(lang, v, stats.bucket);
  const num = (v: number) => formatNumber(lang, v);
  const shownStatuses = INCIDENT_STATUSES.filter((s) => byStatus.some((p) => p[s] !== undefined));
  const shownRisks = [...RISK_BANDS].reverse().filter((r) => byRisk.some((p) => p[r] !== undefined));
  const axis = { fontSize: 10, fill: 'var(--muted)' };
  const chart = (id: string, title: string, data: Point[], keys: readonly string[], color: (k: string) => string, name: (k: string) => string, pick: (bucket: string, k: string) => void) => (
    <figure className={`chart chart-${id}`} aria-label={title} data-first-bucket={data[0]?.bucket} data-last-bucket={data[data.length - 1]?.bucket}>
      <figcaption>
        {title} <span className="muted">· {t(`charts.unit.${stats.bucket}`)}</span>
      </figcaption>
      <div className="chart-area">
        {data.length > 0 && !data.some((p) => keys.some((k) => p[k] !== undefined)) && <p className="muted chart-empty chart-empty-over">{t('charts.empty')}</p>}
        {data.length === 0 ? (
          <p className="muted chart-empty">{t('charts.empty')}</p>
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} barCategoryGap={1} title={title} desc={t('charts.keys')}>
              <CartesianGrid vertical={false} stroke="var(--line)" />
              <XAxis dataKey="bucket" tickFormatter={tick} tick={axis} tickLine={false} axisLine={false} minTickGap={16} />
              <YAxis tick={axis} tickFormatter={num} width={44} tickLine={false} axisLine={false} allowDecimals={false} />
              <Tooltip cursor={{ fill: 'var(--hover)' }} content={(p) => <ChartTip {...(p as object)} keys={keys} unit={stats.bucket} />} />
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
