// The detail panel of an incident: the incident, its asset, occurrences, status history and
// messages, with the same status and risk actions as the list.
import { useEffect, useState } from 'react';
import { getRecord, type Rec } from '../../api/radar';
import { isAbort } from '../../api/client';
import { ActionButton } from '../../components/ActionButton';
import { RiskBadge, StatusBadge } from '../../components/Badges';
import { useI18n } from '../../i18n';
import { formatDateTime, formatDateTimeLong, formatNumber } from '../../i18n/format';
import { hrefOf } from '../../router';
import { useChanges } from '../../state/changes';
import type { RowRef } from '../../state/triage';
import { targetOf, useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { failureText } from '../../data/source';

const RELATIONS = ['service_asset', 'finding', 'occurrences', 'status_changes', 'messages'];

type Tab = 'overview' | 'occurrences' | 'history' | 'messages';

const s = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const list = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);

export function IncidentDetail({ detail, onClose }: { detail: RowRef; onClose(): void }) {
  const { t, lang } = useI18n();
  const api = useSession((st) => st.api);
  const seq = useChanges((st) => st.seq);
  const [rec, setRec] = useState<Rec | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [tab, setTab] = useState<Tab>('overview');
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    setError(null);
    getRecord(api, targetOf(detail.instance.id), 'service_asset_findings', detail.id, RELATIONS, ctl.signal).then(
      (r) => setRec(r),
      (e: unknown) => {
        if (isAbort(e)) return;
        checkAuth(e);
        setError(e instanceof Error ? e : new Error(String(e)));
      },
    );
    return () => ctl.abort();
  }, [api, detail.id, detail.instance.id, seq]);
  const shown = rec && rec.id === detail.id ? rec : null;
  const asset = shown?.service_asset as Rec | null | undefined;
  const finding = shown?.finding as Rec | null | undefined;
  const occurrences = list(shown?.occurrences);
  const history = [...list(shown?.status_changes)].sort((a, b) => s(b.created_at).localeCompare(s(a.created_at)));
  const messages = list(shown?.messages);
  const tabs: { id: Tab; label: string; n?: number }[] = [
    { id: 'overview', label: t('detail.overview') },
    { id: 'occurrences', label: t('detail.occurrences'), n: occurrences.length },
    { id: 'history', label: t('detail.history'), n: history.length },
    { id: 'messages', label: t('detail.messages'), n: messages.length },
  ];
  const inst = detail.instance.id;
  const instanceName = useInstances((st) => (inst === 'main' ? st.list.find((i) => i.kind === 'main')?.name : st.list.find((i) => i.id === inst)?.name)) ?? detail.instance.name;
  return (
    <aside className="detail" aria-label={t('detail.label')}>
      <header className="detail-head">
        <div className="detail-title">
          <span className="mono muted">#{s(shown?.display_id ?? detail.display_id)}</span>
          <h2>{s(shown?.title ?? detail.title) || t('incidents.untitled')}</h2>
        </div>
        <button type="button" className="icon" onClick={onClose} aria-label={t('actions.closeDetail')} title={`${t('actions.closeDetail')} (Esc)`}>
          ×
        </button>
      </header>
      <div className="detail-badges">
        <StatusBadge status={s(shown?.status ?? detail.status)} />
        <RiskBadge level={(shown?.risklevel as number | undefined) ?? detail.risklevel} />
        {instanceName && <span className="tag">{instanceName}</span>}
      </div>
      <div className="detail-actions">
        <ActionButton id="incidents.setStatus" short />
        <ActionButton id="incidents.setRisk" short />
        <a className="button" href={hrefOf({ view: 'record', resource: 'service_asset_findings', id: detail.id, instance: inst })}>
          {t('detail.allFields')}
        </a>
      </div>
      <div role="tablist" className="tabs" aria-label={t('detail.sections')}>
        {tabs.map((x) => (
          <button key={x.id} type="button" role="tab" aria-selected={tab === x.id} className={tab === x.id ? 'is-on' : ''} onClick={() => setTab(x.id)}>
            {x.label}
            {x.n !== undefined && shown && <span className="count-pill">{formatNumber(lang, x.n)}</span>}
          </button>
        ))}
      </div>
      <div className="detail-body" role="tabpanel">
        {error && !shown && (
          <p role="alert" className="error">
            {failureText(error)}
          </p>
        )}
        {!shown && !error && <p className="muted">{t('states.loading')}</p>}
        {shown && tab === 'overview' && (
          <>
            <dl className="kv">
              <dt>{t('fields.asset')}</dt>
              <dd>
                {asset ? (
                  <a href={hrefOf({ view: 'record', resource: 'service_assets', id: asset.id, instance: inst })}>{s(asset.name)}</a>
                ) : (
                  <span className="muted">—</span>
                )}
                {asset && (
                  <span className="muted">
                    {' '}
                    · {s(asset.type)}
                    {asset.location ? ` · ${s(asset.location)}` : ''}
                  </span>
                )}
              </dd>
              <dt>{t('fields.finding')}</dt>
              <dd>
                {finding ? <a href={hrefOf({ view: 'record', resource: 'findings', id: finding.id, instance: inst })}>{s(finding.title)}</a> : <span className="muted">—</span>}
              </dd>
              <dt>{t('fields.created_at')}</dt>
              <dd>{formatDateTimeLong(lang, s(shown.created_at))}</dd>
              <dt>{t('fields.updated_at')}</dt>
              <dd>{formatDateTimeLong(lang, s(shown.updated_at))}</dd>
              <dt>{t('fields.acknowledged_at')}</dt>
              <dd>{formatDateTimeLong(lang, s(shown.acknowledged_at)) || '—'}</dd>
              <dt>{t('fields.reopened_at')}</dt>
              <dd>
                {formatDateTimeLong(lang, s(shown.reopened_at)) || '—'}
                {Number(shown.c_reopened_count ?? 0) > 0 && <span className="muted"> · {t('detail.reopened', { count: Number(shown.c_reopened_count) })}</span>}
              </dd>
              <dt>{t('fields.alert_type')}</dt>
              <dd>{s(shown.alert_type) || '—'}</dd>
            </dl>
            {(['description', 'analysis_output', 'synopsis', 'risk_impact', 'solution', 'mitigation', 'internal_note', 'client_note'] as const).map((f) =>
              shown[f] ? (
                <section key={f} className="detail-text">
                  <h3>{t(`fields.${f}`)}</h3>
                  <p>{s(shown[f])}</p>
                </section>
              ) : null,
            )}
          </>
        )}
        {shown && tab === 'occurrences' && (
          <table className="mini" aria-label={t('detail.occurrences')}>
            <thead>
              <tr>
                <th>{t('fields.created_at')}</th>
                <th>{t('fields.event_type')}</th>
                <th>{t('fields.ip')}</th>
                <th>{t('fields.fqdn')}</th>
                <th>{t('fields.port')}</th>
              </tr>
            </thead>
            <tbody>
              {occurrences.map((o) => (
                <tr key={o.id}>
                  <td className="mono">{formatDateTime(lang, s(o.created_at))}</td>
                  <td>{t(`eventTypes.${s(o.event_type)}`, { defaultValue: s(o.event_type) })}</td>
                  <td className="mono">{s(o.ip)}</td>
                  <td>{s(o.fqdn)}</td>
                  <td className="mono">{s(o.port)}</td>
                </tr>
              ))}
              {!occurrences.length && (
                <tr>
                  <td colSpan={5} className="muted">
                    {t('detail.noOccurrences')}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        )}
        {shown && tab === 'history' && (
          <ol className="history">
            {history.map((h) => (
              <li key={h.id}>
                <span className="mono muted">{formatDateTimeLong(lang, s(h.created_at))}</span>
                <span>
                  {h.previous_status ? <StatusBadge status={s(h.previous_status)} /> : <span className="muted">—</span>} →{' '}
                  <StatusBadge status={s(h.status)} />
                </span>
                {h.user_id ? <span className="muted mono">{s(h.user_id)}</span> : null}
              </li>
            ))}
            {!history.length && <li className="muted">{t('detail.noHistory')}</li>}
          </ol>
        )}
        {shown && tab === 'messages' && (
          <ul className="messages">
            {messages.map((m) => (
              <li key={m.id}>
                <div className="msg-head">
                  <strong>{s(m.subject) || t('detail.noSubject')}</strong>
                  <span className="mono muted">{formatDateTime(lang, s(m.created_at))}</span>
                  {m.automated === true && <span className="tag">{t('detail.automated')}</span>}
                </div>
                <p>{s(m.body)}</p>
              </li>
            ))}
            {!messages.length && <li className="muted">{t('detail.noMessages')}</li>}
          </ul>
        )}
      </div>
    </aside>
  );
}
