// Transfers in the corner: each export downloading (bytes, rows of the total, Cancel), and an
// import whose dialog was hidden while it runs (its progress, Show, Cancel).
import { useI18n } from '../i18n';
import { formatBytes, formatNumber, formatPercent } from '../i18n/format';
import { FINISHED, useTransfers, type ExportTask } from '../state/transfers';
import { useUi } from '../state/ui';
import { importFraction, usePhaseText } from './ImportDialog';

function ExportItem({ x }: { x: ExportTask }) {
  const { t, lang } = useI18n();
  const cancel = useTransfers((s) => s.cancelExport);
  const dismiss = useTransfers((s) => s.dismissExport);
  const of = x.expected ?? x.total;
  const what = t('exports.what', { title: x.title, format: x.format.toUpperCase(), instance: x.instanceName });
  const kind = x.state === 'failed' ? 'error' : x.state === 'done' ? 'success' : 'info';
  return (
    <div className={`notice transfer is-${kind}`} role="group" data-testid="export-progress" data-state={x.state} aria-label={what}>
      <div className="transfer-body">
        <span className="transfer-title" role={x.state === 'failed' ? 'alert' : 'status'}>
          {x.state === 'running' && t('exports.running', { what })}
          {x.state === 'done' && t('exports.saved', { file: x.filename ?? '' })}
          {x.state === 'cancelled' && t('exports.cancelled', { what })}
          {x.state === 'failed' && t('exports.failed', { what, error: x.error ?? '' })}
        </span>
        {x.state === 'running' && (
          <progress max={of ?? 1} value={of ? Math.min(x.rows, of) : undefined} aria-label={t('exports.progress', { what })} aria-valuetext={of ? formatPercent(lang, Math.min(1, x.rows / of)) : undefined} />
        )}
        {x.state !== 'failed' && (
          <span className="transfer-numbers muted" data-testid="export-numbers">
            {of === null ? t('exports.rowsOnly', { count: x.rows, n: formatNumber(lang, x.rows) }) : t('exports.rows', { count: of, done: formatNumber(lang, x.rows), n: formatNumber(lang, of) })} · {formatBytes(lang, x.bytes)}
          </span>
        )}
      </div>
      {x.state === 'running' ? (
        <button type="button" onClick={() => cancel(x.id)}>
          {t('common.cancel')}
        </button>
      ) : (
        <button type="button" className="icon" aria-label={t('common.dismiss')} onClick={() => dismiss(x.id)}>
          ×
        </button>
      )}
    </div>
  );
}

function ImportItem() {
  const { t, lang } = useI18n();
  const task = useTransfers((s) => s.task)!;
  const phase = usePhaseText(task);
  const fraction = importFraction(task);
  const running = !FINISHED.includes(task.stage);
  const label = task.files.length === 1 ? task.files[0]!.name : t('import.titleMany', { count: task.files.length });
  return (
    <div className={`notice transfer is-${task.stage === 'failed' ? 'error' : task.stage === 'done' ? 'success' : 'info'}`} role="group" aria-label={label} data-testid="import-tray">
      <div className="transfer-body">
        <span className="transfer-title" role="status">{t('import.trayTitle', { name: label, phase })}</span>
        {running && <progress max={1} value={fraction ?? undefined} aria-label={t('import.progress')} />}
        {running && task.job && (
          <span className="transfer-numbers muted">
            {t('import.trayRecords', { count: task.job.progress.records, n: formatNumber(lang, task.job.progress.records) })}
            {fraction !== null ? ` · ${formatPercent(lang, fraction)}` : ''}
          </span>
        )}
      </div>
      <button type="button" onClick={() => useUi.getState().openDialog({ kind: 'import' })}>
        {t('import.show')}
      </button>
      {running && (
        <button type="button" onClick={() => void useTransfers.getState().cancelImport()} disabled={task.stage === 'cancelling'}>
          {t('common.cancel')}
        </button>
      )}
    </div>
  );
}

export function TransferTray() {
  const exports = useTransfers((s) => s.exports);
  const task = useTransfers((s) => s.task);
  const dialog = useUi((s) => s.dialog);
  const importHidden = task !== null && task.stage !== 'options' && dialog?.kind !== 'import';
  return (
    <>
      {importHidden && <ImportItem />}
      {exports.map((x) => (
        <ExportItem key={x.id} x={x} />
      ))}
    </>
  );
}
