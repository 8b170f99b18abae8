// Notices (results of actions, with an undo where it applies), the progress of a change, and
// the transfers (exports downloading, an import running with its dialog hidden).
import { runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { useChanges } from '../state/changes';
import { useUi } from '../state/ui';
import { ChangeResult, HeldChange } from './ChangeNotices';
import { TransferTray } from './TransferTray';

export function Notices() {
  const { t, lang } = useI18n();
  const notices = useUi((s) => s.notices);
  const dismiss = useUi((s) => s.dismiss);
  const running = useChanges((s) => s.running);
  return (
    <div className="notices">
      <TransferTray />
      <div className="notices-live" aria-live="polite">
      <HeldChange />
      {running && (
        <div className="notice is-progress" role="status">
          <span>
            {t(running.phase === 'reading' ? 'progress.reading' : running.revert ? 'progress.undoing' : `progress.${running.kind}`, {
              done: formatNumber(lang, running.done),
              total: formatNumber(lang, running.total),
            })}
          </span>
          <progress max={Math.max(1, running.total)} value={running.done} aria-label={t('progress.label')} />
          {running.failed > 0 && <span className="error">{t('progress.failed', { count: running.failed })}</span>}
          <button type="button" className="link" disabled={running.cancelling} onClick={() => useChanges.getState().cancel()}>
            {running.cancelling ? t('progress.cancelling') : t('common.cancel')}
          </button>
        </div>
      )}
      <ChangeResult />
      {notices.map((n) => (
        <div key={n.id} className={`notice is-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <span>{n.text}</span>
          {n.action && (
            <button
              type="button"
              className="link"
              onClick={() => {
                runAction(n.action!.id);
                dismiss(n.id);
              }}
            >
              {n.action.label}
            </button>
          )}
          <button type="button" className="icon" aria-label={t('common.dismiss')} onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
      </div>
    </div>
  );
}
