// The line above the table: the total and the selection, the live list (interval, pause, when
// it was read, new incidents announced), and the triage actions.
import type { TFunction } from 'i18next';
import { useSyncExternalStore } from 'react';
import { ActionButton } from '../../components/ActionButton';
import { failureText, type RowSource } from '../../data/source';
import { useI18n } from '../../i18n';
import { formatNumber, formatTime } from '../../i18n/format';
import { LIVE_INTERVALS, useTriage } from '../../state/triage';

function useTotal(source: RowSource | null): number | null {
  return useSyncExternalStore(
    (cb) => source?.subscribe(cb) ?? (() => {}),
    () => source?.state().total ?? null,
  );
}

/** Why the last read of the rows failed (rows already shown stay). */
function useReadError(source: RowSource | null): unknown {
  return useSyncExternalStore(
    (cb) => source?.subscribe(cb) ?? (() => {}),
    () => source?.state().error ?? null,
  );
}

function intervalLabel(t: TFunction, ms: number): string {
  if (ms === 0) return t('live.off');
  return ms < 60_000 ? t('live.seconds', { count: ms / 1000 }) : t('live.minutes', { count: ms / 60_000 });
}

export function StatusLine({ view, source, selection }: { view: string; source: RowSource | null; selection: number; statsTotal: number | null }) {
  const { t, lang } = useI18n();
  const total = useTotal(source);
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
        <span className="selected-count" data-testid="selected-count">
          {t('incidents.selected', { count: selection, n: formatNumber(lang, selection) })}
        </span>
      )}
      {readError !== null && total !== null && (
        <span className="error small" role="alert" data-testid="read-error">
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
        <span className="muted small" data-testid="read-at">
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
      <ActionButton id="incidents.selectAll" className="ghost" short />
      <ActionButton id="incidents.clearSelection" className="ghost" short />
      <ActionButton id="incidents.undo" className="ghost" short />
    </div>
  );
}
