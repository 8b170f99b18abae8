// Confirming a status or risk change for one incident or a selection.
import { useMemo, useState, type FormEvent } from 'react';
import { INCIDENT_STATUSES, riskBand, type IncidentStatus } from '../../../../src-shared/resources/fields';
import { RiskBadge, StatusBadge } from '../../components/Badges';
import { Dialog } from '../../components/Dialog';
import { useI18n } from '../../i18n';
import { formatNumber } from '../../i18n/format';
import { useChanges, type ChangeKind, type ChangeNote } from '../../state/changes';
import type { RowRef } from '../../state/triage';
import { useUi } from '../../state/ui';

/** Above this many incidents the dialog spells out the size of the change. */
export const LARGE_CHANGE = 50;

/** Statuses that end the work on an incident ask why, from a short list plus free text. */
export const REASONS: Partial<Record<IncidentStatus, readonly string[]>> = {
  closed: ['resolved', 'duplicate', 'noAction', 'falsePositive', 'other'],
  invalid: ['falsePositive', 'test', 'misconfigured', 'duplicate', 'other'],
  risk_accepted: ['compensating', 'businessNeed', 'lowImpact', 'scheduledFix', 'other'],
};

function Summary({ refs, kind }: { refs: RowRef[]; kind: ChangeKind }) {
  const { t, lang } = useI18n();
  const counts = useMemo(() => {
    const m = new Map<string, number>();
    for (const r of refs) {
      const k = kind === 'status' ? r.status : riskBand(r.risklevel);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return [...m];
  }, [refs, kind]);
  if (refs.length === 1) {
    const r = refs[0]!;
    return (
      <p className="dialog-text">
        <span className="mono">#{r.display_id ?? '—'}</span> {r.title}
      </p>
    );
  }
  return (
    <p className="dialog-text">
      {t('change.now')}{' '}
      {counts.map(([k, n], i) => (
        <span key={k}>
          {i > 0 && ', '}
          {kind === 'status' ? t(`status.${k}`) : t(`risk.${k}`)} — {formatNumber(lang, n)}
        </span>
      ))}
    </p>
  );
}

export function StatusDialog({ refs }: { refs: RowRef[] }) {
  const { t, lang } = useI18n();
  const close = () => useUi.getState().openDialog(null);
  const initial = refs.length === 1 ? (refs[0]!.status as IncidentStatus) : null;
  const [status, setStatus] = useState<IncidentStatus | null>(initial);
  const [reason, setReason] = useState('');
  const [comment, setComment] = useState('');
  const unchanged = status !== null && refs.every((r) => r.status === status);
  const reasons = status ? REASONS[status] : undefined;
  const needsReason = !!reasons && !reason;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!status || unchanged || needsReason) return;
    close();
    const label = t(`status.${status}`);
    const reasonText = reason ? t(`reasons.${reason}`) : '';
    const note: ChangeNote | undefined =
      reasonText || comment.trim() ? { subject: reasonText ? t('reasons.subject', { status: label, reason: reasonText }) : t('reasons.commentSubject', { status: label }), body: comment.trim() } : undefined;
    useChanges.getState().apply('status', status, refs, { label, note });
  };
  return (
    <Dialog title={t('change.statusTitle', { count: refs.length, n: formatNumber(lang, refs.length) })} onClose={close}>
      <form
        onSubmit={submit}
        className="change-form"
        onKeyDown={(e) => {
          const n = Number(e.key);
          if (Number.isInteger(n) && n >= 1 && n <= INCIDENT_STATUSES.length) {
            e.preventDefault();
            setStatus(INCIDENT_STATUSES[n - 1]!);
          }
        }}
      >
        <Summary refs={refs} kind="status" />
        <fieldset className="status-choices">
          <legend className="sr-only">{t('change.newStatus')}</legend>
          {INCIDENT_STATUSES.map((s, i) => (
            <label key={s} className={`choice${status === s ? ' is-checked' : ''}`}>
              <input type="radio" name="status" value={s} checked={status === s} onChange={() => setStatus(s)} autoFocus={status === s || (!status && i === 0)} />
              <kbd>{i + 1}</kbd>
              <StatusBadge status={s} />
            </label>
          ))}
        </fieldset>
        {reasons && (
          <label className="field">
            <span>{t('reasons.label')}</span>
            <select value={reason} onChange={(e) => setReason(e.target.value)} aria-required="true" aria-invalid={needsReason}>
              <option value="">{t('reasons.choose')}</option>
              {reasons.map((r) => (
                <option key={r} value={r}>
                  {t(`reasons.${r}`)}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="field">
          <span>{t('reasons.comment')}</span>
          <textarea
            rows={3}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            onKeyDown={(e) => e.stopPropagation()}
            placeholder={t('reasons.commentHint')}
          />
        </label>
        {refs.length > LARGE_CHANGE && <p className="dialog-warn">{t('change.large', { count: refs.length, n: formatNumber(lang, refs.length) })}</p>}
        <div className="dialog-actions">
          <button type="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={!status || unchanged || needsReason}>
            {t('change.applyStatus', { count: refs.length, n: formatNumber(lang, refs.length) })}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function RiskDialog({ refs }: { refs: RowRef[] }) {
  const { t, lang } = useI18n();
  const close = () => useUi.getState().openDialog(null);
  const [text, setText] = useState(refs.length === 1 ? String(refs[0]!.risklevel) : '');
  const value = text.trim() === '' ? NaN : Number(text.replace(',', '.'));
  const valid = Number.isFinite(value) && value >= 0 && value <= 10;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    const v = Math.round(value * 10) / 10;
    close();
    useChanges.getState().apply('risk', v, refs, { label: `${formatNumber(lang, v, 1)} (${t(`risk.${riskBand(v)}`)})` });
  };
  return (
    <Dialog title={t('change.riskTitle', { count: refs.length, n: formatNumber(lang, refs.length) })} onClose={close}>
      <form onSubmit={submit} className="change-form">
        <Summary refs={refs} kind="risk" />
        <label className="field">
          <span>{t('change.riskLevel')}</span>
          <input
            type="text"
            inputMode="decimal"
            autoFocus
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={text !== '' && !valid}
            aria-describedby="risk-help"
          />
        </label>
        <input type="range" min={0} max={10} step={0.1} value={valid ? value : 0} onChange={(e) => setText(e.target.value)} aria-label={t('change.riskLevel')} />
        <p id="risk-help" className="muted">
          {valid ? <RiskBadge level={value} /> : t('change.riskHelp')}
        </p>
        <div className="preset-row">
          {[0, 2, 5, 7.5, 9.5].map((v) => (
            <button type="button" key={v} onClick={() => setText(String(v))}>
              <RiskBadge level={v} />
            </button>
          ))}
        </div>
        {refs.length > LARGE_CHANGE && <p className="dialog-warn">{t('change.large', { count: refs.length, n: formatNumber(lang, refs.length) })}</p>}
        <div className="dialog-actions">
          <button type="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={!valid}>
            {t('change.applyRisk', { count: refs.length, n: formatNumber(lang, refs.length) })}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
