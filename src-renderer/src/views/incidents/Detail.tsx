// The detail panel of an incident: the incident (owner, group, asset, the finding type and the
// correlation rules that raised it, each with its pivots: the list filtered in or out by it), its
// timeline (status changes with their reasons, messages, notes, custom fields: one story), custom
// fields and occurrences, with the same actions as the list. Each incident opens on its overview.
import { useEffect, useState } from 'react';
import { getRecord, type Rec } from '../../api/radar';
import { isAbort } from '../../api/client';
import { ActionButton } from '../../components/ActionButton';
import { RiskBadge, StatusBadge } from '../../components/Badges';
import { displayName } from '../../components/InstanceSwitcher';
import { failureText } from '../../data/source';
import { useI18n } from '../../i18n';
import { formatDateTime, formatNumber } from '../../i18n/format';
import { hrefOf } from '../../router';
import { useChanges } from '../../state/changes';
import { useInstances } from '../../state/instances';
import { groupName, personName, usePeople } from '../../state/people';
import { checkAuth, useSession } from '../../state/session';
import type { RowRef } from '../../state/triage';
import { targetOf } from '../../state/instances';
import { CustomFields } from './detail/CustomFields';
import { Timeline } from './detail/Timeline';
import { PivotButtons } from './pivots';

const RELATIONS = ['service_asset', 'finding', 'occurrences', 'status_changes', 'messages', 'engine_go_rules'];

type Tab = 'overview' | 'timeline' | 'fields' | 'occurrences';

const s = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const list = (v: unknown): Rec[] => (Array.isArray(v) ? (v as Rec[]) : []);

export function IncidentDetail({ detail, onClose }: { detail: RowRef; onClose(): void }) {
  const { t, lang } = useI18n();
  const api = useSession((st) => st.api);
  const seq = useChanges((st) => st.seq);
  usePeople((st) => st.version);
  const [rec, setRec] = useState<Rec | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tab, setTab] = useState<Tab>('overview');
  const [reload, setReload] = useState(0);
  const inst = detail.instance.id;
  // The next incident opens on its overview, not on the tab the previous one was left on.
  useEffect(() => setTab('overview'), [detail.id, inst]);
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    setError(null);
    getRecord(api, targetOf(inst), 'service_asset_findings', detail.id, RELATIONS, ctl.signal).then(
      (r) => setRec(r),
      (e: unknown) => {
        if (isAbort(e)) return;
        checkAuth(e);
        setError(e);
      },
    );
    return () => ctl.abort();
  }, [api, detail.id, inst, seq, reload]);
  const shown = rec && rec.id === detail.id ? rec : null;
  const asset = shown?.service_asset as Rec | null | undefined;
  const finding = shown?.finding as Rec | null | undefined;
  const rules = list(shown?.engine_go_rules);
  const occurrences = list(shown?.occurrences);
  const history = list(shown?.status_changes);
  const messages = list(shown?.messages);
  const tabs: { id: Tab; label: string; n?: number }[] = [
    { id: 'overview', label: t('detail.overview') },
    { id: 'timeline', label: t('timeline.tab'), n: history.length + messages.length },
    { id: 'fields', label: t('detail.fields') },
    { id: 'occurrences', label: t('detail.occurrences'), n: occurrences.length },
  ];
  const instance = useInstances((st) => (inst === 'main' ? st.list.find((i) => i.kind === 'main') : st.list.find((i) => i.id === inst)));
  const title = s(shown?.title ?? detail.title) || t('incidents.untitled');
  const ownerId = s(shown?.user_id ?? detail.user_id);
  const groupId = s(shown?.group_id ?? detail.group_id);
  const withInstance = shown ? { ...shown, _instance: inst } : null;
  const refresh = () => setReload((n) => n + 1);
  return (
    <aside className="detail" aria-label={t('detail.label')}>
      <header className="detail-head">
        <div className="detail-title">
          <span className="mono muted">#{s(shown?.display_id ?? detail.display_id)}</span>
          <h2 title={title}>{title}</h2>
        </div>
        <button type="button" className="icon" onClick={onClose} aria-label={t('actions.closeDetail')} title={`${t('actions.closeDetail')} (Esc)`}>
          ×
        </button>
      </header>
      <div className="detail-badges">
        <StatusBadge status={s(shown?.status ?? detail.status)} />
        <RiskBadge level={(shown?.risklevel as number | undefined) ?? detail.risklevel} />
        {instance && <span className="tag" data-testid="detail-instance">{displayName(instance, t)}</span>}
      </div>
      <div className="detail-actions">
        <ActionButton id="incidents.setStatus" short />
        <ActionButton id="incidents.setRisk" short />
        <ActionButton id="incidents.assignMe" short />
        <ActionButton id="incidents.assign" short />
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
        {!!error && !shown && (
          <p role="alert" className="error">
            {failureText(error)}
          </p>
        )}
        {!shown && !error && <p className="muted">{t('states.loading')}</p>}
        {shown && tab === 'overview' && (
          <>
            <dl className="kv">
              <dt>{t('fields.owner')}</dt>
              <dd data-testid="detail-owner">
                {ownerId ? (personName(inst, ownerId, true) ?? ownerId) : <span className="muted">{t('assign.nobody')}</span>}
                {ownerId && <PivotButtons kind="owner" ids={[ownerId]} name={personName(inst, ownerId, true) ?? ownerId} />}
              </dd>
              <dt>{t('fields.group')}</dt>
              <dd>
                {groupId ? (groupName(inst, groupId) ?? groupId) : <span className="muted">—</span>}
                {groupId && <PivotButtons kind="group" ids={[groupId]} name={groupName(inst, groupId) ?? groupId} />}
              </dd>
              <dt>{t('fields.asset')}</dt>
              <dd>
                {asset ? <a href={hrefOf({ view: 'record', resource: 'service_assets', id: asset.id, instance: inst })}>{s(asset.name)}</a> : <span className="muted">—</span>}
                {asset && (
                  <span className="muted">
                    {' '}
                    · {t(`assetTypes.${s(asset.type)}`, { defaultValue: s(asset.type) })}
                    {asset.location ? ` · ${s(asset.location)}` : ''}
                  </span>
                )}
                {asset && <PivotButtons kind="asset" ids={[asset.id]} name={s(asset.name)} />}
              </dd>
              <dt>{t('fields.finding')}</dt>
              <dd>
                {finding ? <a href={hrefOf({ view: 'record', resource: 'findings', id: finding.id, instance: inst })}>{s(finding.title)}</a> : <span className="muted">—</span>}
                {finding && <PivotButtons kind="finding" ids={[finding.id]} name={s(finding.title)} />}
              </dd>
              <dt>{t('detail.rules')}</dt>
              <dd>
                {rules.length ? (
                  rules.map((r) => (
                    <span key={r.id} className="rule-item">
                      <a href={hrefOf({ view: 'record', resource: 'engine_go_rules', id: r.id, instance: inst })}>{s(r.name)}</a>
                      <PivotButtons kind="rule" ids={[r.id]} name={s(r.name)} />
                    </span>
                  ))
                ) : (
                  <span className="muted">—</span>
                )}
              </dd>
              <dt>{t('fields.created_at')}</dt>
              <dd>{formatDateTime(lang, s(shown.created_at))}</dd>
              <dt>{t('fields.acknowledged_at')}</dt>
              <dd>
                {formatDateTime(lang, s(shown.acknowledged_at)) || '—'}
                {shown.acknowledged_by ? <span className="muted"> · {personName(inst, s(shown.acknowledged_by), true) ?? s(shown.acknowledged_by)}</span> : null}
              </dd>
              <dt>{t('fields.reopened_at')}</dt>
              <dd>
                {formatDateTime(lang, s(shown.reopened_at)) || '—'}
                {Number(shown.c_reopened_count ?? 0) > 0 && <span className="muted"> · {t('detail.reopened', { count: Number(shown.c_reopened_count) })}</span>}
              </dd>
              <dt>{t('fields.alert_type')}</dt>
              <dd>{s(shown.alert_type) ? t(`alertTypes.${s(shown.alert_type)}`, { defaultValue: s(shown.alert_type) }) : '—'}</dd>
            </dl>
            {(['description', 'analysis_output', 'synopsis', 'risk_impact', 'solution', 'mitigation'] as const).map((f) =>
              shown[f] ? (
                <section key={f} className="detail-text">
                  <h3>{t(`fields.${f}`)}</h3>
                  <p>{s(shown[f])}</p>
                </section>
              ) : null,
            )}
          </>
        )}
        {withInstance && tab === 'timeline' && <Timeline incident={withInstance} instance={inst} seq={seq + reload} onChanged={refresh} />}
        {shown && tab === 'fields' && <CustomFields instance={inst} incidentId={detail.id} seq={seq} />}
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
      </div>
    </aside>
  );
}
