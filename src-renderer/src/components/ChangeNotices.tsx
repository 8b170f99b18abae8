// A held change (its countdown, Undo, Send now) and the outcome of the last change sent (with
// Revert, and the reason of each failure).
import { useEffect, useState } from 'react';
import { runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { targetSize, useChanges } from '../state/changes';
import { useQueue } from '../state/queue';

export function HeldChange() {
  const { t, lang } = useI18n();
  const pending = useChanges((s) => s.pending);
  const [, tick] = useState(0);
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [pending]);
  if (!pending) return null;
  // Counted from the change's own deadline at every render: it starts at the hold's length.
  const left = Math.min(Math.ceil(pending.holdMs / 1000), Math.max(0, Math.ceil((pending.deadline - Date.now()) / 1000)));
  const size = targetSize(pending.target);
  return (
    <div className="notice is-held" role="status" data-testid="held-change">
      <span>
        {t(`held.${pending.kind}`, { count: size, n: formatNumber(lang, size), value: pending.label })}{' '}
        <span className="muted">{t('held.sendingIn', { count: left })}</span>
      </span>
      <span className="countdown" style={{ animationDuration: `${Math.max(0, pending.deadline - Date.now())}ms` }} aria-hidden="true" />
      <button type="button" className="link" onClick={() => runAction('incidents.undo')}>
        {t('actions.undo')}
      </button>
      <button type="button" className="link" onClick={() => runAction('incidents.sendNow')}>
        {t('actions.sendNow')}
      </button>
    </div>
  );
}

/** Deleted incidents named in the notice (the list of changes names them all). */
const GONE_NAMED = 5;

export function ChangeResult() {
  const { t, lang } = useI18n();
  const result = useChanges((s) => s.result);
  const last = useChanges((s) => s.last);
  const [hidden, setHidden] = useState<unknown>(null);
  // The part that waited is no longer news once it was sent, undone or listed as not applied
  // (the list of waiting changes and its own notice say what became of it).
  const stillWaiting = useQueue((s) => (result?.res.queuedIds.length ? s.entries.some((e) => e.state === 'waiting' && result.res.queuedIds.includes(e.id)) : false));
  const queued = stillWaiting ? (result?.res.queued ?? 0) : 0;
  useEffect(() => {
    if (!result || result.res.failed.length || queued) return;
    const timer = setTimeout(() => setHidden(result), 12_000);
    return () => clearTimeout(timer);
  }, [result, queued]);
  if (!result || hidden === result) return null;
  const res = { ...result.res, queued };
  if (res.ok === 0 && !res.failed.length && !res.cancelled && !queued && !result.revert) return null;
  const ok = res.failed.length === 0 && res.cancelled === 0 && res.queued === 0;
  // A change cancelled before any incident was changed (a job over a query rolls back whole) says so.
  const noneChanged = !result.revert && res.ok === 0 && res.cancelled > 0 && !res.failed.length && !res.queued;
  // Incidents deleted by someone else meanwhile are named, and the rest said to be changed.
  const gone = res.failed.filter((f) => f.gone);
  const refused = res.failed.filter((f) => !f.gone);
  const reasons = [...new Set(refused.map((f) => f.reason))].slice(0, 3).join('; ');
  const goneNames = `${gone
    .slice(0, GONE_NAMED)
    .map((f) => f.gone)
    .join(', ')}${gone.length > GONE_NAMED ? ', …' : ''}`;
  const listed = res.queued > 0 || res.failed.some((f) => f.id !== '');
  return (
    <div className={`notice ${ok ? 'is-success' : res.failed.length || res.cancelled ? 'is-error' : 'is-waiting'}`} role={ok ? 'status' : 'alert'} data-testid="change-result">
      <span>
        {result.revert
          ? t('notices.reverted', { count: res.ok, n: formatNumber(lang, res.ok) })
          : res.ok === 0 && res.queued > 0
            ? `${t(`held.${result.kind}`, { count: res.queued, n: formatNumber(lang, res.queued), value: result.label })} ${t('notices.waitsForInstance', { count: res.queued })}`
            : noneChanged
              ? t('notices.cancelledAll', { count: res.cancelled, n: formatNumber(lang, res.cancelled) })
              : t(`notices.changed.${result.kind}`, { count: res.ok, n: formatNumber(lang, res.ok), value: result.label })}
        {gone.length > 0 && ` ${t('notices.goneFor', { count: gone.length, n: formatNumber(lang, gone.length), which: goneNames })}`}
        {refused.length > 0 && ` ${t('notices.failedFor', { count: refused.length, n: formatNumber(lang, refused.length), reasons })}`}
        {res.cancelled > 0 && !noneChanged && ` ${t('notices.cancelledFor', { count: res.cancelled, n: formatNumber(lang, res.cancelled) })}`}
        {res.queued > 0 && res.ok > 0 && ` ${t('notices.queuedFor', { count: res.queued, n: formatNumber(lang, res.queued) })}`}
      </span>
      {listed && (
        <button type="button" className="link" onClick={() => useQueue.getState().setOpen(true)}>
          {t('queue.show')}
        </button>
      )}
      {/* Revert undoes this notice's change: offered only when it changed something (a change
          that changed nothing, a cancelled job, leaves the previous change as the last one). */}
      {!result.revert && last && res.ok > 0 && (
        <button type="button" className="link" onClick={() => runAction('incidents.undo')}>
          {t('actions.revert')}
        </button>
      )}
      <button type="button" className="icon" aria-label={t('common.dismiss')} onClick={() => setHidden(result)}>
        ×
      </button>
    </div>
  );
}
