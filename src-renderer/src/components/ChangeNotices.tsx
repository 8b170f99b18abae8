// A held change (its countdown, Undo, Send now) and the outcome of the last change sent (with
// Revert, and the reason of each failure).
import { useEffect, useState } from 'react';
import { runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { useChanges } from '../state/changes';

export function HeldChange() {
  const { t, lang } = useI18n();
  const pending = useChanges((s) => s.pending);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [pending]);
  if (!pending) return null;
  const left = Math.max(0, Math.ceil((pending.deadline - now) / 1000));
  return (
    <div className="notice is-held" role="status" data-testid="held-change">
      <span>
        {t(`held.${pending.kind}`, { count: pending.refs.length, n: formatNumber(lang, pending.refs.length), value: pending.label })}{' '}
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

export function ChangeResult() {
  const { t, lang } = useI18n();
  const result = useChanges((s) => s.result);
  const last = useChanges((s) => s.last);
  const [hidden, setHidden] = useState<unknown>(null);
  useEffect(() => {
    if (!result || result.res.failed.length) return;
    const timer = setTimeout(() => setHidden(result), 12_000);
    return () => clearTimeout(timer);
  }, [result]);
  if (!result || hidden === result) return null;
  const { res } = result;
  const ok = res.failed.length === 0 && res.cancelled === 0;
  const reasons = [...new Set(res.failed.map((f) => f.reason))].slice(0, 3).join('; ');
  return (
    <div className={`notice ${ok ? 'is-success' : 'is-error'}`} role={ok ? 'status' : 'alert'} data-testid="change-result">
      <span>
        {result.revert
          ? t('notices.reverted', { count: res.ok, n: formatNumber(lang, res.ok) })
          : t(`notices.changed.${result.kind}`, { count: res.ok, n: formatNumber(lang, res.ok), value: result.label })}
        {res.failed.length > 0 && ` ${t('notices.failedFor', { count: res.failed.length, n: formatNumber(lang, res.failed.length), reasons })}`}
        {res.cancelled > 0 && ` ${t('notices.cancelledFor', { count: res.cancelled, n: formatNumber(lang, res.cancelled) })}`}
      </span>
      {!result.revert && last && (
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
