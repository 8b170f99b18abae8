// The incident list's quick filters: search, time range, assets, finding types, and the status
// and risk-band chips with their counts.
import { forwardRef, useEffect, useState, type ReactNode } from 'react';
import { INCIDENT_STATUSES, RISK_BANDS, type IncidentStatus, type RiskBand } from '../../../../src-shared/resources/fields';
import { normalizeTs } from '../../../../src-shared/time';
import { jumpTo } from '../../actions/incidents';
import { runAction } from '../../actions/registry';
import { ActionButton } from '../../components/ActionButton';
import { ExportMenu } from '../../components/ExportMenu';
import { DateInput } from '../../components/DateInput';
import { Picker } from '../../components/Picker';
import { useSession } from '../../state/session';
import { useI18n } from '../../i18n';
import { formatDateTime, formatNumber } from '../../i18n/format';
import { GROUP_FIELDS, incidentNumber, RANGE_PRESETS, type GroupField, type IncidentQuery, type TimeRange } from './query';

export interface Counts {
  status: Partial<Record<string, number>>;
  risk: Partial<Record<string, number>>;
}

export const SearchBox = forwardRef<HTMLInputElement, { value: string; onChange(v: string): void; onSubmit?(v: string): void; label?: string; placeholder?: string; testId?: string }>(function SearchBox(
  { value, onChange, onSubmit, label, placeholder, testId },
  ref,
) {
  const { t } = useI18n();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onChange(text), 250);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <div className="search-box">
      <input
        ref={ref}
        type="search"
        placeholder={placeholder ?? t('filters.searchPlaceholder')}
        aria-label={label ?? t('filters.search')}
        value={text}
        onChange={(e) => setText(e.target.value)}
        data-search={testId}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            onChange(text);
            onSubmit?.(text);
          }
          if (e.key === 'Escape') {
            e.preventDefault();
            (e.target as HTMLInputElement).blur();
          }
        }}
      />
      <kbd aria-hidden="true">/</kbd>
    </div>
  );
});

/** A local date (yyyy-mm-dd from a date input) as the platform timestamp of its midnight. */
function localDateTs(d: string): string | undefined {
  if (!d) return undefined;
  const [y, m, day] = d.split('-').map(Number);
  const dt = new Date(y!, (m ?? 1) - 1, day ?? 1);
  return normalizeTs(dt.toISOString()) ?? undefined;
}

function tsLocalDate(ts: string | undefined): string {
  if (!ts) return '';
  const d = new Date(ts);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

function RangeControl({ range, onChange }: { range: TimeRange; onChange(r: TimeRange): void }) {
  const { t, lang } = useI18n();
  const custom = range.preset === 'custom';
  return (
    <div className="range-control">
      <select
        aria-label={t('filters.range')}
        value={range.preset}
        onChange={(e) => {
          const v = e.target.value as TimeRange['preset'];
          onChange(v === 'custom' ? { preset: 'custom', from: range.from, to: range.to } : { preset: v });
        }}
      >
        {RANGE_PRESETS.map((p) => (
          <option key={p} value={p}>
            {t(`filters.ranges.${p}`)}
          </option>
        ))}
        <option value="custom">{t('filters.ranges.custom')}</option>
      </select>
      {custom && (
        <>
          <DateInput label={t('filters.from')} value={tsLocalDate(range.from)} onChange={(day) => onChange({ ...range, from: localDateTs(day) })} title={range.from ? formatDateTime(lang, range.from) : undefined} />
          <span className="muted">–</span>
          <DateInput
            label={t('filters.to')}
            value={range.to ? tsLocalDate(new Date(Date.parse(range.to) - 1).toISOString()) : ''}
            onChange={(day) => {
              const start = localDateTs(day);
              onChange({ ...range, to: start ? (normalizeTs(new Date(Date.parse(start) + 86_400_000).toISOString()) ?? undefined) : undefined });
            }}
            title={range.to ? formatDateTime(lang, range.to) : undefined}
          />
        </>
      )}
    </div>
  );
}

export function FilterBar(props: { query: IncidentQuery; instance: string | null; onChange(update: (q: IncidentQuery) => IncidentQuery): void }) {
  const { t } = useI18n();
  const { query: q, onChange } = props;
  const me = useSession((s) => s.me);
  const quick = (label: string, on: boolean, action: string, testId: string) => (
    <button
      type="button"
      className={`chip quick-chip${on ? ' is-on' : ''}`}
      aria-pressed={on}
      onClick={() => runAction(action)}
      data-testid={testId}
      title={me ? undefined : t('filters.noMe')}
    >
      {label}
    </button>
  );
  return (
    <div className="toolbar">
      <div className="filter-bar" role="search" aria-label={t('filters.label')}>
        <SearchBox
          value={q.search}
          onChange={(search) => onChange((x) => ({ ...x, search }))}
          onSubmit={(text) => {
            const n = incidentNumber(text);
            if (n !== null) void jumpTo(n).then((ok) => ok && onChange((x) => ({ ...x, search: '' })));
          }}
          placeholder={t('filters.searchPlaceholder')}
          testId="incidents"
        />
        <RangeControl range={q.range} onChange={(range) => onChange((x) => ({ ...x, range }))} />
        <Picker resource="service_assets" instance={props.instance} label={t('filters.assets')} chosen={q.assets} onChange={(assets) => onChange((x) => ({ ...x, assets }))} />
        <Picker resource="findings" instance={props.instance} label={t('filters.findings')} chosen={q.findings} onChange={(findings) => onChange((x) => ({ ...x, findings }))} />
        <span className="quick" role="group" aria-label={t('filters.ownership')}>
          {quick(t('filters.mine'), q.owner === 'me', 'incidents.mine', 'quick-mine')}
          {quick(t('filters.unassigned'), q.owner === 'none', 'incidents.unassigned', 'quick-unassigned')}
          {quick(t('filters.myGroup'), q.team === 'mine', 'incidents.myGroup', 'quick-my-group')}
        </span>
      </div>
      <div className="toolbar-actions">
        <ActionButton id="incidents.clearFilters" className="ghost" short />
        <GroupControl value={q.groupBy} onChange={(groupBy) => onChange((x) => ({ ...x, groupBy }))} />
        <ActionButton id="incidents.views" className="ghost" short />
        <ActionButton id="incidents.columns" className="ghost" short />
        <ActionButton id="view.charts" className="ghost" short />
        <ExportMenu source={null} incidents />
      </div>
    </div>
  );
}

function GroupControl({ value, onChange }: { value: GroupField | null; onChange(v: GroupField | null): void }) {
  const { t } = useI18n();
  return (
    <label className="group-control">
      <span className="sr-only">{t('groups.by')}</span>
      <select aria-label={t('groups.by')} value={value ?? ''} onChange={(e) => onChange((e.target.value || null) as GroupField | null)}>
        <option value="">{t('groups.none')}</option>
        {GROUP_FIELDS.map((f) => (
          <option key={f} value={f}>
            {t(`groups.fields.${f}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Chips(props: {
  query: IncidentQuery;
  /** null while counting; undefined when the view does not count them (a grouped view counts its groups). */
  counts: Counts | null | undefined;
  onChange(update: (q: IncidentQuery) => IncidentQuery): void;
  /** Shown at the end of the risk row (how fresh the data is). */
  aside?: ReactNode;
}) {
  const { t, lang } = useI18n();
  const { query: q, counts, onChange } = props;
  const toggleStatus = (s: IncidentStatus) =>
    onChange((x) => ({ ...x, statuses: x.statuses.includes(s) ? x.statuses.filter((v) => v !== s) : [...x.statuses, s] }));
  const toggleRisk = (r: RiskBand) => onChange((x) => ({ ...x, risks: x.risks.includes(r) ? x.risks.filter((v) => v !== r) : [...x.risks, r] }));
  const n = (v: number | undefined) => (counts ? formatNumber(lang, v ?? 0) : '…');
  return (
    <>
      <div className="chips" role="group" aria-label={t('filters.statuses')}>
        <span className="chips-label">{t('filters.status')}</span>
        {INCIDENT_STATUSES.map((s) => (
          <button
            key={s}
            type="button"
            className={`chip status-chip status-${s}${q.statuses.includes(s) ? ' is-on' : ''}`}
            aria-pressed={q.statuses.includes(s)}
            onClick={() => toggleStatus(s)}
          >
            <span className="chip-dot" aria-hidden="true" />
            <span className="chip-label">{t(`status.${s}`)}</span>
            {counts !== undefined && (
              <span className="chip-count" data-testid={`count-status-${s}`}>
                {n(counts?.status[s])}
              </span>
            )}
          </button>
        ))}
      </div>
      <div className="chips" role="group" aria-label={t('filters.risks')}>
        <span className="chips-label">{t('filters.risk')}</span>
        {[...RISK_BANDS].reverse().map((r) => (
          <button
            key={r}
            type="button"
            className={`chip risk-chip risk-${r}${q.risks.includes(r) ? ' is-on' : ''}`}
            aria-pressed={q.risks.includes(r)}
            onClick={() => toggleRisk(r)}
          >
            <span className="chip-dot" aria-hidden="true" />
            <span className="chip-label">{t(`risk.${r}`)}</span>
            {counts !== undefined && (
              <span className="chip-count" data-testid={`count-risk-${r}`}>
                {n(counts?.risk[r])}
              </span>
            )}
          </button>
        ))}
        {props.aside}
      </div>
    </>
  );
}
