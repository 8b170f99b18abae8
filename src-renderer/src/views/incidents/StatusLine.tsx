// The line above the table: the total and the selection, the live list (interval, pause, when
// it was read, new incidents announced), and the triage actions.
import type { TFunction } from 'i18next';
import { useSyncExternalStore } from 'react';
import { appState, getAction, keyLabel, runAction } from '../../actions/registry';
import { ActionButton, useActionState } from '../../components/ActionButton';
import { failureText, type RowSource } from '../../data/source';
import { useI18n } from '../../i18n';
import { microsToTs } from '../../../../src-shared/time';
import { useFreshness } from '../../data/freshness';
import { formatAgo, formatDateTime, formatNumber, formatTime } from '../../i18n/format';
import { LIVE_INTERVALS, useTriage } from '../../state/triage';

/** Why the last read of the rows failed (rows already shown stay). */
function useReadError(source: RowSource | null): unknown {
  return useSyncExternalStore(
    (cb) => source?.subscribe(cb) ?? (() => {}),
    () => source?.state().error ?? null,
  );
}

/** When the newest incident arrived (marked when it is more than a day old), and how many arrived since the last visit. */
export function FreshnessNote({ view }: { view: string }) {
  const { t, lang } = useI18n();
  const { newest, visit } = useFreshness(view);
  const setQuery = useTriage((s) => s.setQuery);
  if (!newest) return null;
  const at = Date.parse(newest);
  const stale = Date.now() - at > 86_400_000;
  return (
    <span className="freshness small" data-testid="freshness">
      <span className={stale ? 'stale' : 'muted'} data-testid="newest" title={formatDateTime(lang, newest)}>
        {t('fresh.newest', { date: formatDateTime(lang, newest), ago: formatAgo(lang, at) })}
      </span>
      {visit && visit.count > 0 && (
        <button
          type="button"
          className="link"
          data-testid="since-visit"
          onClick={() => setQuery((q) => ({ ...q, range: { preset: 'custom', from: microsToTs(visit.at * 1000), to: undefined } }))}
          title={t('fresh.sinceVisitHint', { date: formatDateTime(lang, new Date(visit.at).toISOString()) })}
        >
          {t('fresh.sinceVisit', { count: visit.count, n: formatNumber(lang, visit.count) })}
        </button>
      )}
      {visit && visit.count === 0 && (
        <span className="muted" data-testid="since-visit">
          {t('fresh.noneSinceVisit', { date: formatDateTime(lang, new Date(visit.at).toISOString()) })}
        </span>
      )}
    </span>
  );
}

/** "Select all N matching": the whole query, whatever its size. */
function SelectAllButton({ total }: { total: number | null }) {
  const { t, lang } = useI18n();
  useActionState();
  const a = getAction('incidents.selectAll')!;
  const enabled = a.predicate(appState());
  const n = total ?? 0;
  return (
    <button type="button" className="ghost" disabled={!enabled} onClick={() => runAction('incidents.selectAll')} title={`${t('actions.selectAll')} (${keyLabel('Shift+X')})`} aria-keyshortcuts="Shift+X">
      {!total ? t('actions.selectAllShort') : t('actions.selectAllN', { count: n, n: formatNumber(lang, n) })}
    </button>
  );
}

function intervalLabel(t: TFunction, ms: number): string {
  if (ms === 0) return t('live.off');
  return ms < 60_000 ? t('live.seconds', { count: ms / 1000 }) : t('live.minutes', { count: ms / 60_000 });
}

/** `total`: the list's total, or the sum of its groups when grouped (null until known). */
export function StatusLine({ view, source, total, selection, all }: { view: string; source: RowSource | null; total: number | null; selection: number; all: boolean }) {
  const { t, lang } = useI18n();
  const readError = useReadError(source);
  const live = useTriage((s) => s.live);
  const readAt = useTriage((s) => s.readAt);
  const fresh = useTriage((s) => s.fresh[view] ?? 0);
  const setLive = useTriage((s) => s.setLive);
  const refresh = useTriage((s) => s.refresh);
  return (
    <div className="selection-bar">
      <span className="total" data-testid="total" aria-live="polite">
        {total === null ? '…' : t('incidents.total', { count: total, n: formatNumber(lang, total) })}
      </span>
      {selection > 0 && (
        <span className={`selected-count${all ? ' is-all' : ''}`} data-testid="selected-count" title={all ? t('incidents.selectedAllHint') : undefined}>
          {t('incidents.selected', { count: selection, n: formatNumber(lang, selection) })}
        </span>
      )}
      {readError !== null && total !== null && (
        <span className="error small read-error" role="alert" data-testid="read-error" title={t('live.readFailed', { error: failureText(readError) })}>
          {t('live.readFailed', { error: failureText(readError) })}
        </span>
      )}
      {fresh > 0 && (
        <button type="button" className="fresh" data-testid="fresh" onClick={refresh} aria-live="polite">
          {t('live.fresh', { count: fresh, n: formatNumber(lang, fresh) })}
        </button>
      )}
      <span className="live" role="group" aria-label={t('live.label')}>
        <span className={`live-dot${live.everyMs && !live.paused ? ' is-on' : ''}`} aria-hidden="true" />
        <span className="muted small read-at" data-testid="read-at" title={t('live.readAt', { time: formatTime(lang, readAt) })}>
          {t('live.readAt', { time: formatTime(lang, readAt) })}
        </span>
        <select aria-label={t('live.interval')} value={live.everyMs} onChange={(e) => setLive({ everyMs: Number(e.target.value), paused: false })}>
          {LIVE_INTERVALS.map((ms) => (
            <option key={ms} value={ms}>
              {intervalLabel(t, ms)}
            </option>
          ))}
        </select>
        {live.everyMs > 0 && (
          <button type="button" className="ghost" aria-pressed={live.paused} onClick={() => setLive({ paused: !live.paused })} title={t('actions.liveToggle')}>
            {live.paused ? t('live.resume') : t('live.pause')}
          </button>
        )}
        <ActionButton id="incidents.refresh" className="ghost" short />
      </span>
      <span className="spacer" />
      <ActionButton id="incidents.setStatus" className="primary" short />
      <ActionButton id="incidents.setRisk" short />
      <ActionButton id="incidents.assignMe" short />
      <ActionButton id="incidents.assign" short />
      <SelectAllButton total={total} />
      <ActionButton id="incidents.clearSelection" className="ghost" short />
      <ActionButton id="incidents.undo" className="ghost" short />
    </div>
  );
}
