// Incidents over time, stacked by status and by risk band: two bar charts drawn as plain SVG. A
// click on a bar filters the table to that bucket and that status or band; the legend names the
// series, the tooltip (mouse or arrow keys) gives a bucket's counts and their total.
//
// Drawn by hand rather than with a charting library: a view change redraws both charts, and a
// general-purpose chart spent hundreds of milliseconds per redraw (selectors and props per bar,
// layout reads) on a page whose table must come first. Here a redraw is one pass over the
// buckets; the bars are memoised on their series and size, so a tooltip moving or a label
// arriving redraws nothing but itself.
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent, type MouseEvent, type ReactElement, type RefObject } from 'react';
import { INCIDENT_STATUSES, RISK_BANDS, type IncidentStatus, type RiskBand } from '../../../../src-shared/resources/fields';
import type { Stats } from '../../api/radar';
import { useI18n, type Lang } from '../../i18n';
import { formatBucket, formatBucketLong, formatNumber } from '../../i18n/format';
import { RISK_COLORS, STATUS_COLORS } from '../../lib/colors';
import { useUi } from '../../state/ui';

export interface ChartsProps {
  stats: Stats;
  /** The range shown, as days ('YYYY-MM-DD', UTC like the buckets): from its first day (null: the data's first) to its last (today for an open range). */
  span: { from: string | null; to: string };
  statuses: readonly IncidentStatus[];
  risks: readonly RiskBand[];
  onPick(pick: { bucket: string; status?: IncidentStatus; risk?: RiskBand }): void;
}

/** One bucket: its first day and a count per series key. */
interface Point {
  bucket: string;
  counts: Record<string, number>;
}

function series(stats: Stats, dim: 'status' | 'risk', statuses: readonly string[], risks: readonly string[], span: ChartsProps['span']): Point[] {
  const byBucket = new Map<string, Point>();
  for (const o of stats.over_time) {
    if (statuses.length && !statuses.includes(o.status)) continue;
    if (risks.length && !risks.includes(o.risk)) continue;
    let p = byBucket.get(o.bucket);
    if (!p) byBucket.set(o.bucket, (p = { bucket: o.bucket, counts: {} }));
    const k = dim === 'status' ? o.status : o.risk;
    p.counts[k] = (p.counts[k] ?? 0) + o.count;
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
  for (let b = start, n = 0; b <= last && n < 5000; b = nextBucket(b, unit), n++) out.push(byBucket.get(b) ?? { bucket: b, counts: {} });
  return out;
}

/** Round steps for the counts' axis: about `count` intervals of 1, 2, 2.5 or 5 times a power of ten, whole numbers. */
export function countTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1, 2, 3, 4];
  const raw = max / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 2.5, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow);
  const whole = Number.isInteger(step) ? step : Math.ceil(step);
  const ticks: number[] = [];
  for (let v = 0; v < max + whole; v += whole) {
    ticks.push(v);
    if (v >= max) break;
  }
  return ticks;
}

// The plot's geometry (px): the counts' axis on the left, the buckets' axis below.
const Y_AXIS = 44;
const X_AXIS = 20;
const TOP = 6;
const RIGHT = 8;
/** The gap between two buckets' bars. */
const GAP = 1;
/** The least room between two bucket labels. */
const MIN_TICK_GAP = 16;
/** A label's width estimate per character at the axes' size (10 px). */
const CHAR_PX = 6;

interface Geometry {
  width: number;
  height: number;
  plotW: number;
  plotH: number;
  band: number;
  max: number;
}

interface PlotProps {
  data: readonly Point[];
  keys: readonly string[];
  colors: readonly string[];
  geo: Geometry;
}

/** The stacked bars, one path per bucket and series (the first key at the bottom). */
const Bars = memo(function Bars({ data, keys, colors, geo }: PlotProps) {
  const barW = geo.band > GAP * 2 + 1 ? geo.band - GAP * 2 : geo.band;
  const off = (geo.band - barW) / 2;
  const scale = geo.max > 0 ? geo.plotH / geo.max : 0;
  const out: ReactElement[] = [];
  data.forEach((p, i) => {
    let y = TOP + geo.plotH;
    const x = Y_AXIS + i * geo.band + off;
    keys.forEach((k, j) => {
      const n = p.counts[k];
      if (!n) return;
      const h = n * scale;
      y -= h;
      out.push(
        <path
          key={`${p.bucket}|${k}`}
          className={`chart-bar bar bar-${k}`}
          d={`M${x.toFixed(2)},${y.toFixed(2)}h${barW.toFixed(2)}v${h.toFixed(2)}h${(-barW).toFixed(2)}Z`}
          fill={colors[j]}
          data-bucket={p.bucket}
          data-key={k}
        />,
      );
    });
  });
  return <g className="chart-bars">{out}</g>;
});

/** The grid's horizontal lines and both axes' labels. */
const Axes = memo(function Axes({ data, geo, yTicks, lang, unit }: { data: readonly Point[]; geo: Geometry; yTicks: readonly number[]; lang: Lang; unit: Stats['bucket'] }) {
  const y = (v: number) => TOP + geo.plotH - (geo.max > 0 ? (v / geo.max) * geo.plotH : 0);
  const labels = data.map((p) => formatBucket(lang, p.bucket, unit));
  const widest = labels.reduce((w, l) => Math.max(w, l.length * CHAR_PX), 0);
  // Every k-th bucket is labelled, counted from the last (the newest bucket always has its label).
  const every = Math.max(1, Math.ceil((widest + MIN_TICK_GAP) / Math.max(geo.band, 0.001)));
  const last = data.length - 1;
  return (
    <g className="chart-axes">
      <g className="chart-grid">
        {yTicks.map((v) => (
          <line key={v} x1={Y_AXIS} x2={Y_AXIS + geo.plotW} y1={y(v)} y2={y(v)} />
        ))}
      </g>
      <g className="chart-axis chart-axis-y">
        {yTicks.map((v) => (
          <text key={v} className="chart-tick" x={Y_AXIS - 6} y={y(v)} dy="0.355em" textAnchor="end">
            {formatNumber(lang, v)}
          </text>
        ))}
      </g>
      <g className="chart-axis chart-axis-x">
        {labels.map((l, i) =>
          (last - i) % every === 0 ? (
            <text key={data[i]!.bucket} className="chart-tick" x={Y_AXIS + (i + 0.5) * geo.band} y={TOP + geo.plotH + 6} dy="0.71em" textAnchor="middle">
              {l}
            </text>
          ) : null,
        )}
      </g>
    </g>
  );
});

/** The tooltip: the bucket, its series in the legend's order with their counts, and the total. */
function ChartTip({ point, keys, colors, names, unit }: { point: Point; keys: readonly string[]; colors: readonly string[]; names: readonly string[]; unit: Stats['bucket'] }) {
  const { t, lang } = useI18n();
  const items = keys.map((k, i) => ({ k, n: point.counts[k] ?? 0, color: colors[i], name: names[i] })).filter((x) => x.n > 0);
  const total = items.reduce((n, x) => n + x.n, 0);
  return (
    <div className="chart-tip">
      <div className="chart-tip-label">{formatBucketLong(lang, point.bucket, unit)}</div>
      {items.map((x) => (
        <div key={x.k} className="chart-tip-row">
          <span className="chart-tip-dot" style={{ background: x.color }} aria-hidden="true" />
          <span>{x.name}</span>
          <span className="chart-tip-n">{formatNumber(lang, x.n)}</span>
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

interface ChartProps {
  id: string;
  title: string;
  data: readonly Point[];
  /** The series shown, bottom to top of a stack (the legend and the tooltip list them in this order). */
  keys: readonly string[];
  colors: readonly string[];
  names: readonly string[];
  unit: Stats['bucket'];
  onPick(bucket: string, key: string): void;
}

/** The plot area's size, followed as the window or the panels around it change. */
function useSize(): [RefObject<HTMLDivElement | null>, { width: number; height: number }] {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const set = (width: number, height: number) => setSize((s) => (s.width === Math.floor(width) && s.height === Math.floor(height) ? s : { width: Math.floor(width), height: Math.floor(height) }));
    set(el.clientWidth, el.clientHeight);
    const ro = new ResizeObserver((entries) => {
      const r = entries[entries.length - 1]!.contentRect;
      set(r.width, r.height);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, size];
}

const Chart = memo(function Chart({ id, title, data, keys, colors, names, unit, onPick }: ChartProps) {
  const { t, lang } = useI18n();
  const [plotRef, size] = useSize();
  const [active, setActive] = useState<{ index: number; x: number } | null>(null);
  const max = useMemo(() => {
    let m = 0;
    for (const p of data) {
      let s = 0;
      for (const k of keys) s += p.counts[k] ?? 0;
      if (s > m) m = s;
    }
    return m;
  }, [data, keys]);
  const yTicks = useMemo(() => countTicks(max), [max]);
  const geo = useMemo<Geometry>(() => {
    const plotW = Math.max(0, size.width - Y_AXIS - RIGHT);
    const plotH = Math.max(0, size.height - TOP - X_AXIS);
    return { width: size.width, height: size.height, plotW, plotH, band: data.length ? plotW / data.length : 0, max: yTicks[yTicks.length - 1] ?? 0 };
  }, [size.width, size.height, data.length, yTicks]);
  const empty = data.length > 0 && max === 0;

  const indexAt = (clientX: number, rect: DOMRect) => {
    const i = Math.floor((clientX - rect.left - Y_AXIS) / geo.band);
    return i >= 0 && i < data.length ? i : null;
  };
  const onMove = (e: MouseEvent<SVGSVGElement>) => {
    if (!geo.band) return;
    const rect = e.currentTarget.getBoundingClientRect();
    const i = indexAt(e.clientX, rect);
    setActive(i === null ? null : { index: i, x: e.clientX - rect.left });
  };
  const onClick = (e: MouseEvent<SVGSVGElement>) => {
    const target = e.target as Element;
    const bucket = target.getAttribute('data-bucket');
    const key = target.getAttribute('data-key');
    if (bucket && key) onPick(bucket, key);
  };
  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    if (!data.length) return;
    const cur = active?.index;
    let i: number | null = null;
    if (e.key === 'ArrowRight') i = cur === undefined ? 0 : Math.min(data.length - 1, cur + 1);
    else if (e.key === 'ArrowLeft') i = cur === undefined ? data.length - 1 : Math.max(0, cur - 1);
    else if (e.key === 'Home') i = 0;
    else if (e.key === 'End') i = data.length - 1;
    else if (e.key === 'Escape' && active) {
      e.stopPropagation();
      setActive(null);
      return;
    } else return;
    e.preventDefault();
    setActive({ index: i, x: Y_AXIS + (i + 0.5) * geo.band });
  };

  const point = active ? data[active.index] : undefined;
  const right = active ? active.x > size.width / 2 : false;
  return (
    <figure className={`chart chart-${id}`} aria-label={title} data-first-bucket={data[0]?.bucket} data-last-bucket={data[data.length - 1]?.bucket}>
      <figcaption>
        {title} <span className="muted">· {t(`charts.unit.${unit}`)}</span>
      </figcaption>
      <div className="chart-area">
        {data.length === 0 ? (
          <p className="muted chart-empty">{t('charts.empty')}</p>
        ) : (
          <>
            {keys.length > 0 && (
              <ul className="chart-legend">
                {keys.map((k, i) => (
                  <li key={k} className="chart-legend-item">
                    <span className="chart-legend-icon" style={{ background: colors[i] }} aria-hidden="true" />
                    <span className="chart-legend-item-text">{names[i]}</span>
                  </li>
                ))}
              </ul>
            )}
            <div className="chart-plot" ref={plotRef}>
              {empty && <p className="muted chart-empty chart-empty-over">{t('charts.empty')}</p>}
              {size.width > 0 && (
                <svg
                  className="chart-surface"
                  role="application"
                  aria-label={title}
                  aria-describedby={`chart-keys-${id}`}
                  tabIndex={0}
                  width={size.width}
                  height={size.height}
                  onMouseMove={onMove}
                  onMouseLeave={() => setActive(null)}
                  onBlur={() => setActive(null)}
                  onClick={onClick}
                  onKeyDown={onKey}
                >
                  <title>{title}</title>
                  <desc id={`chart-keys-${id}`}>{t('charts.keys')}</desc>
                  {active && <rect className="chart-cursor" x={Y_AXIS + active.index * geo.band} y={TOP} width={geo.band} height={geo.plotH} />}
                  <Axes data={data} geo={geo} yTicks={yTicks} lang={lang} unit={unit} />
                  <Bars data={data} keys={keys} colors={colors} geo={geo} />
                </svg>
              )}
              {point && (
                <div className="chart-tip-wrap" style={{ left: active!.x + (right ? -12 : 12), top: 0, transform: right ? 'translateX(-100%)' : undefined }}>
                  <ChartTip point={point} keys={keys} colors={colors} names={names} unit={unit} />
                </div>
              )}
            </div>
          </>
        )}
      </div>
    </figure>
  );
});

let darkQuery: MediaQueryList | null = null;
const systemDark = () => (darkQuery ??= window.matchMedia('(prefers-color-scheme: dark)'));

/** Whether the dark theme is on: chosen, or the system's while the choice is "system" (followed as it changes). */
function useDark(): boolean {
  const theme = useUi((s) => s.theme);
  const system = useSyncExternalStore(
    (cb) => {
      systemDark().addEventListener('change', cb);
      return () => systemDark().removeEventListener('change', cb);
    },
    () => systemDark().matches,
  );
  return theme === 'dark' || (theme === 'system' && system);
}

function Charts({ stats, statuses, risks, onPick, span }: ChartsProps) {
  const { t } = useI18n();
  const dark = useDark();
  const byStatus = useMemo(() => series(stats, 'status', statuses, risks, span), [stats, statuses, risks, span]);
  const byRisk = useMemo(() => series(stats, 'risk', statuses, risks, span), [stats, statuses, risks, span]);
  const statusKeys = useMemo(() => INCIDENT_STATUSES.filter((s) => byStatus.some((p) => p.counts[s] !== undefined)), [byStatus]);
  const riskKeys = useMemo(() => [...RISK_BANDS].reverse().filter((r) => byRisk.some((p) => p.counts[r] !== undefined)), [byRisk]);
  const statusColors = useMemo(() => statusKeys.map((k) => STATUS_COLORS[k][dark ? 'dark' : 'light']), [statusKeys, dark]);
  const riskColors = useMemo(() => riskKeys.map((k) => RISK_COLORS[k][dark ? 'dark' : 'light']), [riskKeys, dark]);
  const statusNames = useMemo(() => statusKeys.map((k) => t(`status.${k}`)), [statusKeys, t]);
  const riskNames = useMemo(() => riskKeys.map((k) => t(`risk.${k}`)), [riskKeys, t]);
  const pickStatus = useCallback((bucket: string, k: string) => onPick({ bucket, status: k as IncidentStatus }), [onPick]);
  const pickRisk = useCallback((bucket: string, k: string) => onPick({ bucket, risk: k as RiskBand }), [onPick]);
  return (
    <div className="charts">
      <Chart id="status" title={t('charts.byStatus')} data={byStatus} keys={statusKeys} colors={statusColors} names={statusNames} unit={stats.bucket} onPick={pickStatus} />
      <Chart id="risk" title={t('charts.byRisk')} data={byRisk} keys={riskKeys} colors={riskColors} names={riskNames} unit={stats.bucket} onPick={pickRisk} />
    </div>
  );
}

export default memo(Charts);
