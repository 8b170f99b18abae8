// A rule set's page (#/compliance/sets/<id>): the check of its rules on the assets of its asset
// groups as a grid (assets × rules, each cell the verdict and the software that decided it),
// filtered by verdict and paged by asset; a draft of one rule's query compared with the saved
// one before saving (the assets whose verdict would change); and the incidents of the violations
// created on request, after a confirmation naming how many.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { CheckAnswer, CheckResult } from '../../../../src-shared/schemas/compliance';
import { isAbort } from '../../api/client';
import { Dialog } from '../../components/Dialog';
import { useI18n } from '../../i18n';
import { hrefOf } from '../../router';
import { targetOf, useInstances } from '../../state/instances';
import { useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import { check } from './api';
import './compliance.css';

const ASSETS_PER_PAGE = 100;
type VerdictFilter = 'all' | 'satisfied' | 'violated';

function useTarget() {
  const view = useInstances((s) => s.selected);
  return useMemo(() => targetOf(view === 'all' ? 'main' : view), [view]);
}

export function RuleSetView({ id }: { id: string }) {
  const { t } = useI18n();
  const api = useSession((s) => s.api);
  const target = useTarget();
  const [verdict, setVerdict] = useState<VerdictFilter>('all');
  const [offset, setOffset] = useState(0);
  const [answer, setAnswer] = useState<CheckAnswer | null>(null);
  const [running, setRunning] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [runs, setRuns] = useState(0);

  const run = useCallback(
    (signal?: AbortSignal) => {
      if (!api) return Promise.resolve();
      setRunning(true);
      return check(api, target, { rule_set_ids: [id], limit: ASSETS_PER_PAGE, offset, ...(verdict === 'all' ? {} : { verdict }) }, signal).then(
        (a) => {
          setAnswer(a);
          setFailed(null);
          setRunning(false);
        },
        (e: unknown) => {
          if (isAbort(e)) return;
          setFailed(e instanceof Error ? e.message : String(e));
          setRunning(false);
        },
      );
    },
    [api, target, id, offset, verdict],
  );
  useEffect(() => {
    const ctl = new AbortController();
    void run(ctl.signal);
    return () => ctl.abort();
  }, [run, runs]);

  const set = answer?.rule_sets[0];
  const s = answer?.summary;
  const raising = !!set?.create_service_asset_findings;
  const updates = s ? s.violated - s.incidents.would_create : 0;

  const createIncidents = async () => {
    if (!api) return;
    setConfirming(false);
    setRunning(true);
    try {
      const a = await check(api, target, { rule_set_ids: [id], create_incidents: true, limit: ASSETS_PER_PAGE, offset, ...(verdict === 'all' ? {} : { verdict }) });
      setAnswer(a);
      useUi.getState().notify('success', t('compliance.created', { created: a.summary.incidents.created, updated: a.summary.incidents.updated }));
    } catch (e) {
      useUi.getState().notify('error', e instanceof Error ? e.message : String(e));
    } finally {
      setRunning(false);
    }
  };

  return (
    <div className="page cw">
      <header className="page-head">
        <div className="crumb">
          <a href={hrefOf({ view: 'compliance' })}>{t('compliance.title')}</a>
          <span className="crumb-sep"> / </span>
          {t('compliance.ruleSets')}
        </div>
        <h1>{set?.name ?? '…'}</h1>
        {set && <p className="muted">{raising ? t('compliance.createsIncidents') : t('compliance.notRaising')}</p>}
      </header>
      {failed && <p className="error">{t('compliance.loadFailed', { error: failed })}</p>}
      <div className="toolbar cw-toolbar">
        <div role="radiogroup" aria-label={t('compliance.verdict')} className="cw-verdicts">
          {(['all', 'violated', 'satisfied'] as const).map((v) => (
            <button
              key={v}
              type="button"
              role="radio"
              aria-checked={verdict === v}
              className={verdict === v ? 'is-on' : 'ghost'}
              onClick={() => {
                setVerdict(v);
                setOffset(0);
              }}
            >
              {t(`compliance.${v}`)}
            </button>
          ))}
        </div>
        <button type="button" onClick={() => setRuns((n) => n + 1)} disabled={running}>
          {running ? t('compliance.running') : t('compliance.run')}
        </button>
        <span className="spacer" />
        <button type="button" className="primary" disabled={!raising || !s || s.violated === 0 || running} onClick={() => setConfirming(true)}>
          {t('compliance.createIncidents')}
        </button>
      </div>
      {s && (
        <p className="cw-summary" data-testid="check-summary">
          <strong>{t('compliance.summary', { rules: s.rules, assets: s.assets, satisfied: s.satisfied, violated: s.violated })}</strong>{' '}
          <span className="muted">{t('compliance.took', { ms: answer!.took_ms })}</span>
        </p>
      )}
      {s && s.incidents.resolved.length > 0 && <p className="muted">{t('compliance.resolved', { count: s.incidents.resolved.length, n: s.incidents.resolved.length })}</p>}
      {s && s.incidents.closed_but_violated.length > 0 && <p className="muted">{t('compliance.closedButViolated', { count: s.incidents.closed_but_violated.length, n: s.incidents.closed_but_violated.length })}</p>}
      {answer?.summary.invalid_rules.map((r) => (
        <p key={r.rule_id} className="error">
          {t('compliance.invalidRule', { name: r.rule_id, error: r.error })}
        </p>
      ))}
      {answer && <VerdictGrid answer={answer} />}
      {answer && answer.total_assets > ASSETS_PER_PAGE && (
        <div className="cw-pager">
          <span className="muted small">{t('compliance.pageOf', { from: offset + 1, to: Math.min(offset + ASSETS_PER_PAGE, answer.total_assets), total: answer.total_assets })}</span>
          <button type="button" className="ghost" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - ASSETS_PER_PAGE))}>
            {t('compliance.prev')}
          </button>
          <button type="button" className="ghost" disabled={offset + ASSETS_PER_PAGE >= answer.total_assets} onClick={() => setOffset(offset + ASSETS_PER_PAGE)}>
            {t('compliance.next')}
          </button>
        </div>
      )}
      {answer && answer.rules.length > 0 && <DraftDiff setId={id} answer={answer} />}
      {confirming && s && (
        <Dialog
          title={t('compliance.createTitle')}
          onClose={() => setConfirming(false)}
          footer={
            <>
              <button type="button" className="ghost" onClick={() => setConfirming(false)}>
                {t('compliance.cancel')}
              </button>
              {(s.incidents.would_create > 0 || updates > 0) && (
                <button type="button" className="primary" onClick={() => void createIncidents()}>
                  {s.incidents.would_create > 0
                    ? t('compliance.createConfirm', { count: s.incidents.would_create, n: s.incidents.would_create })
                    : t('compliance.updateConfirm', { count: updates, n: updates })}
                </button>
              )}
            </>
          }
        >
          <p className="dialog-text">
            {s.incidents.would_create > 0
              ? t('compliance.createText', { count: s.incidents.would_create, n: s.incidents.would_create })
              : t(s.violated > 0 ? 'compliance.createNone' : 'compliance.createNoViolations')}
          </p>
          {updates > 0 && <p className="dialog-text muted">{t('compliance.createUpdates', { count: updates, n: updates })}</p>}
        </Dialog>
      )}
    </div>
  );
}

function VerdictGrid({ answer }: { answer: CheckAnswer }) {
  const { t } = useI18n();
  const byCell = useMemo(() => new Map(answer.results.map((r) => [`${r.service_asset_id}|${r.rule_id}`, r])), [answer]);
  const software = useMemo(() => new Map(answer.software.map((s) => [s.id, s.version ? `${s.name} ${s.version}` : s.name])), [answer]);
  if (!answer.assets.length) return <p className="muted">{answer.summary.assets ? t('compliance.noResults') : t('compliance.noAssets')}</p>;
  return (
    <div className="cw-grid-wrap">
      <table className="cw-grid" aria-label={t('compliance.check')}>
        <thead>
          <tr>
            <th className="cw-asset">{t('compliance.asset')}</th>
            {answer.rules.map((r) => (
              <th key={r.id} title={`${r.query}\n${r.tsquery}`}>
                <a href={hrefOf({ view: 'compliance', rule: r.id })}>{r.name}</a>
                <div className={`cw-kind ${r.blacklist_entry ? 'is-black' : 'is-white'}`}>{r.blacklist_entry ? t('compliance.blacklist') : t('compliance.whitelist')}</div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {answer.assets.map((a) => (
            <tr key={a.id}>
              <th className="cw-asset" scope="row">
                <a href={hrefOf({ view: 'record', resource: 'service_assets', id: a.id })}>{a.name}</a>
              </th>
              {answer.rules.map((r) => (
                <VerdictCell key={r.id} r={byCell.get(`${a.id}|${r.id}`)} software={software} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function VerdictCell({ r, software }: { r: CheckResult | undefined; software: Map<string, string> }) {
  const { t } = useI18n();
  if (!r) return <td className="cw-cell is-none" />;
  const names = r.software_ids.map((id) => software.get(id) ?? id);
  const title = names.length ? names.join('\n') : t('compliance.noneInstalled');
  return (
    <td className={`cw-cell ${r.verdict === 'violated' ? 'is-violated' : 'is-satisfied'}`} title={title}>
      <span className="cw-mark" role="img" aria-label={t(`compliance.${r.verdict}`)}>
        {r.verdict === 'violated' ? '✗' : '✓'}
      </span>
      <span className="cw-soft">{names.length ? names.slice(0, 2).join('; ') + (names.length > 2 ? ` +${names.length - 2}` : '') : ''}</span>
      {r.incident_id && (
        <a className="cw-inc" href={hrefOf({ view: 'incidents', id: r.incident_id })} title={t('compliance.incident')}>
          ●
        </a>
      )}
    </td>
  );
}

/** A draft of one rule's query against the saved one: the assets whose verdict would change. */
function DraftDiff({ setId, answer }: { setId: string; answer: CheckAnswer }) {
  const { t } = useI18n();
  const api = useSession((s) => s.api);
  const target = useTarget();
  const [ruleId, setRuleId] = useState(answer.rules[0]!.id);
  const rule = answer.rules.find((r) => r.id === ruleId) ?? answer.rules[0]!;
  const [draft, setDraft] = useState(rule.query);
  const [diff, setDiff] = useState<{ asset: string; saved: string; draft: string; software: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setDraft(rule.query);
    setDiff(null);
  }, [rule.id, rule.query]);
  const compare = async () => {
    if (!api) return;
    setBusy(true);
    setError(null);
    try {
      const [saved, drafted] = await Promise.all([
        check(api, target, { rule_set_ids: [setId], rule_ids: [rule.id] }),
        check(api, target, { rule_set_ids: [setId], rule_ids: [rule.id], queries: { [rule.id]: draft } }),
      ]);
      const before = new Map(saved.results.map((r) => [r.service_asset_id, r.verdict]));
      const names = new Map(drafted.assets.map((a) => [a.id, a.name]));
      const sw = new Map(drafted.software.map((s) => [s.id, s.version ? `${s.name} ${s.version}` : s.name]));
      setDiff(
        drafted.results
          .filter((r) => before.get(r.service_asset_id) !== r.verdict)
          .map((r) => ({ asset: names.get(r.service_asset_id) ?? r.service_asset_id, saved: before.get(r.service_asset_id) ?? '', draft: r.verdict, software: r.software_ids.map((id) => sw.get(id) ?? id).join('; ') })),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setDiff(null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="cw-diff" aria-label={t('compliance.diff')}>
      <h2>{t('compliance.diff')}</h2>
      <div className="cw-diff-form">
        <label>
          {t('compliance.diffRule')}{' '}
          <select value={rule.id} onChange={(e) => setRuleId(e.target.value)}>
            {answer.rules.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
        <label className="cw-diff-draft">
          {t('compliance.diffDraft')}
          <input className="mono" value={draft} spellCheck={false} onChange={(e) => setDraft(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && void compare()} />
        </label>
        <button type="button" onClick={() => void compare()} disabled={busy}>
          {t('compliance.diffRun')}
        </button>
      </div>
      {error && <p className="error">{error}</p>}
      {diff && diff.length === 0 && <p className="muted">{t('compliance.diffSame')}</p>}
      {diff && diff.length > 0 && (
        <>
          <p>{t('compliance.diffChanged', { count: diff.length, n: diff.length })}</p>
          <table className="cw-table">
            <thead>
              <tr>
                <th>{t('compliance.asset')}</th>
                <th>{t('compliance.diffSaved')}</th>
                <th>{t('compliance.diffDraftCol')}</th>
                <th>{t('compliance.deciding')}</th>
              </tr>
            </thead>
            <tbody>
              {diff.map((d) => (
                <tr key={d.asset}>
                  <td>{d.asset}</td>
                  <td className={d.saved === 'violated' ? 'error' : 'cw-ok'}>{t(`compliance.${d.saved}`)}</td>
                  <td className={d.draft === 'violated' ? 'error' : 'cw-ok'}>{t(`compliance.${d.draft}`)}</td>
                  <td className="small">{d.software}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
