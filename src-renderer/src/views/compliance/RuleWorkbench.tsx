// The rule workbench (#/compliance, #/compliance/rules/<id>): the rule sets and rules of the
// instance, and the editor of a rule's query. As the query is typed: whether PostgreSQL would
// accept it (its message and the position where reading stopped) and its normalised form, read
// in the console at each keystroke; the database's software it matches (the count and a page of
// records), asked of the server once typing pauses.
// A valid changed query can be saved to the rule.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiFailure, isAbort } from '../../api/client';
import { useI18n } from '../../i18n';
import { hrefOf } from '../../router';
import { targetOf, useInstances } from '../../state/instances';
import { useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import { type MatchPage, matchPage, type RuleRec, type RuleSetRec, ruleSets, rules as loadRules, saveQuery, type TsQueryResult } from './api';
import { toTsQuery, tsqueryToString } from '../../../../src-shared/textsearch';
import { reasonText } from './reason';
import './compliance.css';

const PAGE = 50;
const TYPING_MS = 120;

function useTarget() {
  const view = useInstances((s) => s.selected);
  return useMemo(() => targetOf(view === 'all' ? 'main' : view), [view]);
}

export function RuleWorkbench({ rule }: { rule?: string }) {
  const { t } = useI18n();
  const api = useSession((s) => s.api);
  const target = useTarget();
  const [sets, setSets] = useState<RuleSetRec[] | null>(null);
  const [list, setList] = useState<RuleRec[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const reload = useCallback(
    (signal?: AbortSignal) => {
      if (!api) return;
      Promise.all([ruleSets(api, target, signal), loadRules(api, target, signal)]).then(
        ([s, r]) => {
          setSets(s);
          setList(r);
          setFailed(null);
        },
        (e: unknown) => {
          if (!isAbort(e)) setFailed(e instanceof Error ? e.message : String(e));
        },
      );
    },
    [api, target],
  );
  useEffect(() => {
    const ctl = new AbortController();
    reload(ctl.signal);
    return () => ctl.abort();
  }, [reload]);
  const selected = list?.find((r) => r.id === rule) ?? null;
  const shown = (list ?? []).filter((r) => !filter || r.name.toLowerCase().includes(filter.toLowerCase()) || r.query.toLowerCase().includes(filter.toLowerCase()));
  return (
    <div className="page cw">
      <header className="page-head">
        <h1>{t('compliance.title')}</h1>
        <p className="muted">{t('compliance.intro')}</p>
      </header>
      {failed && <p className="error">{t('compliance.loadFailed', { error: failed })}</p>}
      <div className="cw-layout">
        <aside className="cw-side" aria-label={t('compliance.rules')}>
          <h2>{t('compliance.ruleSets')}</h2>
          {sets && !sets.length && <p className="muted">{t('compliance.noRuleSets')}</p>}
          <ul className="cw-list">
            {(sets ?? []).map((s) => (
              <li key={s.id}>
                <a href={hrefOf({ view: 'ruleSet', id: s.id })}>{s.name}</a>
                <span className="muted small"> · {s.create_service_asset_findings ? t('compliance.createsIncidents') : t('compliance.noIncidents')}</span>
              </li>
            ))}
          </ul>
          <h2>{t('compliance.rules')}</h2>
          <input type="search" className="cw-filter" placeholder={t('compliance.filterRules')} aria-label={t('compliance.filterRules')} value={filter} onChange={(e) => setFilter(e.target.value)} />
          {list && !list.length && <p className="muted">{t('compliance.noRules')}</p>}
          <ul className="cw-list cw-rules">
            <li>
              <a href={hrefOf({ view: 'compliance' })} aria-current={!rule ? 'page' : undefined} className={!rule ? 'is-on' : ''}>
                {t('compliance.newDraft')}
              </a>
            </li>
            {shown.map((r) => (
              <li key={r.id}>
                <a href={hrefOf({ view: 'compliance', rule: r.id })} aria-current={r.id === rule ? 'page' : undefined} className={r.id === rule ? 'is-on' : ''}>
                  {r.name}
                </a>
                <span className={`cw-kind ${r.blacklist_entry ? 'is-black' : 'is-white'}`}>{r.blacklist_entry ? t('compliance.blacklist') : t('compliance.whitelist')}</span>
              </li>
            ))}
          </ul>
        </aside>
        <section className="cw-main">
          <RuleEditor key={selected?.id ?? 'draft'} rule={selected} onSaved={() => reload()} />
        </section>
      </div>
    </div>
  );
}

/**
 * The query as typed: PostgreSQL's verdict on it, read here at each keystroke by the same
 * to_tsquery('simple', ...) the server runs (src-shared/textsearch), and, once typing pauses,
 * the database's matching software from the server.
 */
function useQueryChecks(query: string, offset: number) {
  const api = useSession((s) => s.api);
  const target = useTarget();
  const parsed = useMemo(() => readQuery(query), [query]);
  const [page, setPage] = useState<MatchPage | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    if (!api) return;
    setFailure(null);
    if ('error' in parsed) {
      setPage(null);
      setBusy(false);
      return;
    }
    const ctl = new AbortController();
    setBusy(true);
    const timer = setTimeout(() => {
      matchPage(api, target, query, PAGE, offset, ctl.signal)
        .then((p) => setPage(p))
        .catch((e: unknown) => {
          if (isAbort(e)) return;
          setFailure(e instanceof ApiFailure || e instanceof Error ? e.message : String(e));
        })
        .finally(() => {
          if (!ctl.signal.aborted) setBusy(false);
        });
    }, TYPING_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [api, target, query, parsed, offset]);
  return { parsed, page, busy, failure };
}

/** to_tsquery('simple', query) as the API's tsquery operation answers it. */
function readQuery(query: string): TsQueryResult {
  const r = toTsQuery(query);
  if (!r.ok) return { error: r.error.message, reason: r.error.reason, position: r.error.position };
  return { tsquery: tsqueryToString(r.query), ...(r.notice ? { notice: r.notice } : {}) };
}

function RuleEditor({ rule, onSaved }: { rule: RuleRec | null; onSaved(): void }) {
  const { t } = useI18n();
  const api = useSession((s) => s.api);
  const target = useTarget();
  const [query, setQuery] = useState(rule?.query ?? '');
  const [offset, setOffset] = useState(0);
  const [saving, setSaving] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const { parsed, page, busy, failure } = useQueryChecks(query, offset);
  useEffect(() => setOffset(0), [query]);
  const changed = rule !== null && query !== rule.query;
  const refused = parsed && 'error' in parsed ? parsed : null;
  const accepted = parsed && !('error' in parsed) ? parsed : null;
  const save = async () => {
    if (!api || !rule) return;
    setSaving(true);
    try {
      await saveQuery(api, target, rule.id, query);
      useUi.getState().notify('success', t('compliance.saved', { name: rule.name }));
      onSaved();
    } catch (e) {
      useUi.getState().notify('error', e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="cw-editor">
      {rule && (
        <div className="cw-rule-head">
          <h2>{rule.name}</h2>
          <span className={`cw-kind ${rule.blacklist_entry ? 'is-black' : 'is-white'}`} title={rule.blacklist_entry ? t('compliance.blacklistHint') : t('compliance.whitelistHint')}>
            {rule.blacklist_entry ? t('compliance.blacklist') : t('compliance.whitelist')}
          </span>
          {!!rule.rule_sets?.length && (
            <span className="muted small">
              {t('compliance.inSets')}:{' '}
              {rule.rule_sets.map((s, i) => (
                <span key={s.id}>
                  {i > 0 && ', '}
                  <a href={hrefOf({ view: 'ruleSet', id: s.id })}>{s.name}</a>
                </span>
              ))}
            </span>
          )}
        </div>
      )}
      <label className="cw-query-label" htmlFor="cw-query">
        {t('compliance.query')} <span className="muted small">{t('compliance.queryHint')}</span>
      </label>
      <textarea
        id="cw-query"
        ref={ref}
        className="cw-query mono"
        rows={3}
        spellCheck={false}
        value={query}
        aria-invalid={!!refused}
        aria-describedby="cw-verdict"
        onChange={(e) => setQuery(e.target.value)}
      />
      <div id="cw-verdict" className="cw-verdict" role="status" aria-live="polite">
        {failure && <span className="error">{failure}</span>}
        {refused && (
          <div className="cw-refused">
            <strong className="error">{t('compliance.refused')}</strong> <span className="muted">{t('compliance.atPosition', { n: refused.position })}</span>
            <div className="mono">{refused.error}</div>
            <pre className="cw-echo mono" aria-label={reasonText(refused.reason, t)}>
              {query.slice(0, refused.position)}
              <mark className="cw-at">{query.slice(refused.position, refused.position + 1) || ' '}</mark>
              {query.slice(refused.position + 1)}
            </pre>
            <div className="muted small cw-reason">{reasonText(refused.reason, t)}</div>
          </div>
        )}
        {accepted && (
          <div className="cw-accepted">
            <strong className="cw-ok">{accepted.tsquery ? t('compliance.accepted') : t('compliance.noWord')}</strong>
            {accepted.tsquery && (
              <span>
                {' '}
                · {t('compliance.normalised')}: <code className="mono">{accepted.tsquery}</code>
              </span>
            )}
            {busy && <span className="muted small"> · {t('compliance.checking')}</span>}
          </div>
        )}
      </div>
      {rule && (
        <div className="cw-actions">
          <button type="button" className="primary" disabled={!changed || !accepted || saving} onClick={() => void save()}>
            {t('compliance.save')}
          </button>
          <button type="button" className="ghost" disabled={!changed} onClick={() => setQuery(rule.query)}>
            {t('compliance.revert')}
          </button>
          {changed && <span className="muted small">{t('compliance.changed')}</span>}
        </div>
      )}
      {page && <Matches page={page} onPage={setOffset} />}
    </div>
  );
}

function Matches({ page, onPage }: { page: MatchPage; onPage(offset: number): void }) {
  const { t } = useI18n();
  const last = Math.min(page.offset + page.items.length, page.total);
  return (
    <div className="cw-matches">
      <div className="cw-matches-head">
        <strong data-testid="match-count">{t('compliance.matches', { count: page.total, n: page.total })}</strong>{' '}
        <span className="muted">
          {t('compliance.ofTotal', { n: page.software_total })} · {t('compliance.tookMs', { ms: page.took_ms })}
        </span>
        <span className="spacer" />
        {page.total > 0 && <span className="muted small">{t('compliance.pageOf', { from: page.offset + 1, to: last, total: page.total })}</span>}
        <button type="button" className="ghost" disabled={page.offset === 0} onClick={() => onPage(Math.max(0, page.offset - page.limit))}>
          {t('compliance.prev')}
        </button>
        <button type="button" className="ghost" disabled={last >= page.total} onClick={() => onPage(page.offset + page.limit)}>
          {t('compliance.next')}
        </button>
      </div>
      {page.unreadable > 0 && <p className="muted small">{t('compliance.unreadable', { count: page.unreadable, n: page.unreadable })}</p>}
      {page.total === 0 ? (
        <p className="muted">{t('compliance.noMatches')}</p>
      ) : (
        <table className="cw-table">
          <thead>
            <tr>
              <th>{t('compliance.softwareName')}</th>
              <th>{t('compliance.version')}</th>
              <th>{t('compliance.vector')}</th>
              <th className="num">{t('compliance.assets')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={hrefOf({ view: 'record', resource: 'software', id: s.id })}>{s.name}</a>
                </td>
                <td className="mono">{s.version ?? ''}</td>
                <td className="mono cw-vector">
                  {s.tsvector}
                  {s.stored_tsvector && <span className="cw-tag">{t('compliance.stored')}</span>}
                </td>
                <td className="num">{s.asset_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
