// Notices (results of actions, with an undo where it applies), the progress of a change, and
// the transfers (exports downloading, an import running with its dialog hidden).
import { runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { useChanges } from '../state/changes';
import { useUi } from '../state/ui';
import { TransferTray } from './TransferTray';

export function Notices() {
  const { t, lang } = useI18n();
  const notices = useUi((s) => s.notices);
  const dismiss = useUi((s) => s.dismiss);
  const progress = useChanges((s) => s.progress);
  return (
    <div className="notices">
      <TransferTray />
      <div className="notices-live" aria-live="polite">
      {progress && (
        <div className="notice is-progress" role="status">
          <span>
            {t(progress.undo ? 'progress.undoing' : progress.kind === 'status' ? 'progress.status' : 'progress.risk', {
              done: formatNumber(lang, progress.done),
              total: formatNumber(lang, progress.total),
            })}
          </span>
          <progress max={progress.total} value={progress.done} aria-label={t('progress.label')} />
          {progress.failed > 0 && <span className="error">{t('progress.failed', { count: progress.failed })}</span>}
        </div>
      )}
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
