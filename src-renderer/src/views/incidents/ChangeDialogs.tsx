// Confirming a status or risk change for one incident, a selection, or every incident of a
// selected query (the confirmation names how many).
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { INCIDENT_STATUSES, riskBand, type IncidentStatus } from '../../../../src-shared/resources/fields';
import { RiskBadge, StatusBadge } from '../../components/Badges';
import { Dialog } from '../../components/Dialog';
import { useI18n } from '../../i18n';
import { formatNumber } from '../../i18n/format';
import { groupBy } from '../../api/radar';
import { INCIDENTS } from '../../data/incidentList';
import { scopeResolve } from '../../state/bulk';
import { targetSize, useChanges, type ChangeKind, type ChangeNote, type ChangeTarget } from '../../state/changes';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { useSession } from '../../state/session';
import type { Scope } from '../../state/triage';
import { useUi } from '../../state/ui';
import { toSearchFilters } from './query';

/** Above this many incidents the dialog spells out the size of the change. */
export const LARGE_CHANGE = 50;

/** Statuses that end the work on an incident ask why, from a short list plus free text. */
export const REASONS: Partial<Record<IncidentStatus, readonly string[]>> = {
  closed: ['resolved', 'duplicate', 'noAction', 'falsePositive', 'other'],
  invalid: ['falsePositive', 'test', 'misconfigured', 'duplicate', 'other'],
  risk_accepted: ['compensating', 'businessNeed', 'lowImpact', 'scheduledFix', 'other'],
};

/** How many incidents of a selected query hold each status or risk band now (the group operation). */
function useScopeCounts(scope: Scope | null, field: 'status' | 'risk'): [string, number][] | null {
  const api = useSession((st) => st.api);
  const [counts, setCounts] = useState<[string, number][] | null>(null);
  useEffect(() => {
    if (!scope || !api) return;
    const ctl = new AbortController();
    const tags = instancesOf(scope.view, useInstances.getState());
    Promise.all(tags.map((tag) => groupBy(api, targetOf(tag.id), INCIDENTS, field, [...toSearchFilters(scope.query, scopeResolve(scope, tag.id)), ...scope.extra], ctl.signal))).then(
      (parts) => {
        const m = new Map<string, number>();
        for (const g of parts.flat()) m.set(String(g.value), (m.get(String(g.value)) ?? 0) + g.count);
        setCounts([...m].sort((a, b) => b[1] - a[1]));
      },
      () => setCounts([]),
    );
    return () => ctl.abort();
  }, [scope, api, field]);
  return counts;
}

function Summary({ target, kind, counts: scopeCounts }: { target: ChangeTarget; kind: ChangeKind; counts: [string, number][] | null }) {
  const { t, lang } = useI18n();
  const refs = 'refs' in target ? target.refs : null;
  const counts = useMemo(() => {
    if (!refs) return scopeCounts ?? [];
    const m = new Map<string, number>();
    for (const r of refs) {
      const k = kind === 'status' ? r.status : riskBand(r.risklevel);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return [...m];
  }, [refs, scopeCounts, kind]);
  if (refs?.length === 1) {
    const r = refs[0]!;
    return (
      <p className="dialog-text">
        <span className="mono">#{r.display_id ?? '—'}</span> {r.title}
      </p>
    );
  }
  return (
    <>
      {!refs && (
        <p className="dialog-text" data-testid="scope-summary">
          {t('change.scope', { count: targetSize(target), n: formatNumber(lang, targetSize(target)) })}
        </p>
      )}
      <p className="dialog-text">
        {t('change.now')}{' '}
        {!refs && !scopeCounts ? (
          <span className="muted">{t('states.loading')}</span>
        ) : (
          counts.map(([k, n], i) => (
            <span key={k}>
              {i > 0 && ', '}
              {kind === 'status' ? t(`status.${k}`, { defaultValue: k }) : t(`risk.${k}`, { defaultValue: k })} — {formatNumber(lang, n)}
            </span>
          ))
        )}
      </p>
    </>
  );
}

export function StatusDialog({ target }: { target: ChangeTarget }) {
  const { t, lang } = useI18n();
  const close = () => useUi.getState().openDialog(null);
  const refs = 'refs' in target ? target.refs : null;
  const scopeCounts = useScopeCounts('scope' in target ? target.scope : null, 'status');
  const size = targetSize(target);
  const initial = refs?.length === 1 ? (refs[0]!.status as IncidentStatus) : null;
  const [status, setStatus] = useState<IncidentStatus | null>(initial);
  const [reason, setReason] = useState('');
  const [comment, setComment] = useState('');
  const reasonRef = useRef<HTMLSelectElement>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const unchanged = status !== null && (refs ? refs.every((r) => r.status === status) : !!scopeCounts && scopeCounts.length === 1 && scopeCounts[0]![0] === status);
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
    useChanges.getState().apply('status', status, target, { label, note });
  };
  // The status's number picks it, then the keyboard goes on to what is asked next: the reason
  // where one is asked, else the comment.
  const [focusNext, setFocusNext] = useState(0);
  useEffect(() => {
    if (!focusNext) return;
    (reasonRef.current ?? commentRef.current)?.focus();
  }, [focusNext]);
  return (
    <Dialog title={t('change.statusTitle', { count: size, n: formatNumber(lang, size) })} onClose={close}>
      <form
        onSubmit={submit}
        className="change-form"
        onKeyDown={(e) => {
          const el = e.target as HTMLElement;
          if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement || (el instanceof HTMLInputElement && el.type !== 'radio')) return;
          if (e.ctrlKey || e.metaKey || e.altKey) return;
          const n = Number(e.key);
          if (/^[1-9]$/.test(e.key) && n <= INCIDENT_STATUSES.length) {
            e.preventDefault();
            setStatus(INCIDENT_STATUSES[n - 1]!);
            setFocusNext((x) => x + 1);
          }
        }}
      >
        <Summary target={target} kind="status" counts={scopeCounts} />
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
            <select ref={reasonRef} value={reason} onChange={(e) => setReason(e.target.value)} aria-required="true" aria-invalid={needsReason}>
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
          <textarea ref={commentRef} rows={3} value={comment} onChange={(e) => setComment(e.target.value)} placeholder={t('reasons.commentHint')} />
        </label>
        {size > LARGE_CHANGE && <p className="dialog-warn">{t('change.large', { count: size, n: formatNumber(lang, size) })}</p>}
        <div className="dialog-actions">
          <span className="muted small dialog-keys">{t('change.submitKeys')}</span>
          <button type="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={!status || unchanged || needsReason}>
            {t('change.applyStatus', { count: size, n: formatNumber(lang, size) })}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function RiskDialog({ target }: { target: ChangeTarget }) {
  const { t, lang } = useI18n();
  const close = () => useUi.getState().openDialog(null);
  const refs = 'refs' in target ? target.refs : null;
  const scopeCounts = useScopeCounts('scope' in target ? target.scope : null, 'risk');
  const size = targetSize(target);
  const [text, setText] = useState(refs?.length === 1 ? String(refs[0]!.risklevel) : '');
  const value = text.trim() === '' ? NaN : Number(text.replace(',', '.'));
  const valid = Number.isFinite(value) && value >= 0 && value <= 10;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    const v = Math.round(value * 10) / 10;
    close();
    useChanges.getState().apply('risk', v, target, { label: `${formatNumber(lang, v, 1)} (${t(`risk.${riskBand(v)}`)})` });
  };
  return (
    <Dialog title={t('change.riskTitle', { count: size, n: formatNumber(lang, size) })} onClose={close}>
      <form onSubmit={submit} className="change-form">
        <Summary target={target} kind="risk" counts={scopeCounts} />
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
        {size > LARGE_CHANGE && <p className="dialog-warn">{t('change.large', { count: size, n: formatNumber(lang, size) })}</p>}
        <div className="dialog-actions">
          <span className="muted small dialog-keys">{t('change.submitKeys')}</span>
          <button type="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={!valid}>
            {t('change.applyRisk', { count: size, n: formatNumber(lang, size) })}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
