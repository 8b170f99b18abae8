// Parts both search builders share: the request as JSON / URL / curl with the copy buttons,
// saved searches, and the answer.
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ResourceDef } from '../../../../src-shared/resources/index';
import { DataTable, registerColumns } from '../../components/DataTable';
import { StaticSource, failureText, type Row } from '../../data/source';
import { displayName } from '../../lib/instanceName';
import { useI18n } from '../../i18n';
import { formatDateTime, formatNumber, sortByText } from '../../i18n/format';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import { recordHref, resourceColumns } from '../resources/fields';
import { copyText, curlCommand, type CurlOptions } from './requestText';
import { deleteSearch, saveSearch, useSaved } from './saved';
import type { Issue } from './validate';

/** Where a request for an instance goes: the main origin, or the routing port with the header. */
export function useEndpoint(): (path: string) => { url: string; instanceId?: string } {
  const selected = useInstances((s) => s.selected);
  const list = useInstances((s) => s.list);
  const routing = useSession((s) => s.routing);
  return (path: string) => {
    if (selected === 'main' || selected === 'all') return { url: `${window.location.origin}${path}` };
    const base = routing ?? list.find((i) => i.kind === 'local')?.url ?? `${window.location.origin}/console/v1/route`;
    return { url: `${base}${path}`, instanceId: selected };
  };
}

/** Where an issue is, in the form's words ("Value of filter 2"), not the request's path ("filters.1.value"). */
export function issuePlace(t: (k: string, v?: Record<string, unknown>) => string, path: string): string {
  let m = /^filters\.(\d+)(?:\.(field|filter_type|value|negation))?$/.exec(path);
  if (m) {
    const n = Number(m[1]) + 1;
    const key = { field: 'builder.filterField', filter_type: 'builder.filterType', value: 'builder.value', negation: 'builder.negation' }[m[2] ?? ''] ?? 'builder.filterN';
    return t(key, { n });
  }
  m = /^ordering\.(\d+)(?:\.(field|direction))?$/.exec(path);
  if (m) return t(m[2] === 'direction' ? 'builder.direction' : m[2] === 'field' ? 'builder.orderField' : 'builder.orderN', { n: Number(m[1]) + 1 });
  return path;
}

export function IssueList({ issues, valid }: { issues: Issue[]; valid: boolean }) {
  const { t } = useI18n();
  if (valid) {
    return (
      <p className="valid" role="status" data-testid="validity">
        ✓ {t('builder.valid')}
      </p>
    );
  }
  return (
    <ul className="issues" role="alert" data-testid="validity">
      {issues.map((i, n) => (
        <li key={n}>
          {i.path && (issuePlace(t, i.path) === i.path ? <code>{i.path}</code> : <strong title={i.path}>{issuePlace(t, i.path)}:</strong>)} {t(i.key, i.values ?? {})}
          {i.marker && (
            <pre className="json-marker" data-testid="json-marker">
              {i.marker.text}
              {'\n'}
              {' '.repeat(i.marker.column)}
              <span className="caret">^</span>
            </pre>
          )}
        </li>
      ))}
    </ul>
  );
}

export function RequestPanel(props: { firstTab: 'json' | 'query'; json: ReactNode; url: string; curl: Omit<CurlOptions, 'apiKey'>; copyJson: string; disabled: boolean }) {
  const { t } = useI18n();
  const [tab, setTab] = useState<'json' | 'url' | 'curl'>('json');
  const [withKey, setWithKey] = useState(false);
  const apiKey = useSession((s) => s.api?.apiKey ?? null);
  const curl = curlCommand({ ...props.curl, apiKey: withKey ? apiKey : null });
  const copy = async (what: 'json' | 'url' | 'curl') => {
    const text = what === 'json' ? props.copyJson : what === 'url' ? props.url : curl;
    try {
      await copyText(text);
      useUi.getState().notify('success', t(`builder.copied.${what}`));
    } catch (e) {
      useUi.getState().notify('error', t('builder.copyFailed', { error: e instanceof Error ? e.message : String(e) }));
    }
  };
  return (
    <section className="request-panel" aria-label={t('builder.request')}>
      <div role="tablist" className="tabs" aria-label={t('builder.request')}>
        {(['json', 'url', 'curl'] as const).map((x) => (
          <button key={x} type="button" role="tab" aria-selected={tab === x} className={tab === x ? 'is-on' : ''} onClick={() => setTab(x)}>
            {t(`builder.tabs.${x === 'json' ? props.firstTab : x}`)}
          </button>
        ))}
      </div>
      <div role="tabpanel" className="request-body">
        {tab === 'json' && props.json}
        {tab === 'url' && (
          <pre className="code" data-testid="request-url">
            {props.curl.method} {props.url}
            {props.curl.instanceId ? `\nPgrSelectedInstance: ${props.curl.instanceId}` : ''}
          </pre>
        )}
        {tab === 'curl' && (
          <pre className="code" data-testid="request-curl">
            {curl}
          </pre>
        )}
      </div>
      <div className="request-actions">
        <button type="button" onClick={() => void copy('json')} disabled={props.disabled}>
          {t('builder.copyJson')}
        </button>
        <button type="button" onClick={() => void copy('url')} disabled={props.disabled}>
          {t('builder.copyUrl')}
        </button>
        <button type="button" onClick={() => void copy('curl')} disabled={props.disabled}>
          {t('builder.copyCurl')}
        </button>
        <label className="inline">
          <input type="checkbox" checked={withKey} onChange={(e) => setWithKey(e.target.checked)} />
          {t('builder.withKey')}
        </label>
      </div>
    </section>
  );
}

export function SavedPanel<T>(props: { builder: 'v2' | 'public'; current: T | null; onLoad(v: T): void; describe(v: T): string }) {
  const { t, lang } = useI18n();
  const selected = useInstances((s) => s.selected);
  const saved = sortByText(lang, useSaved<T>(props.builder, selected), (s) => s.name);
  const [name, setName] = useState('');
  return (
    <section className="saved" aria-label={t('builder.saved')}>
      <h2 className="subhead">{t('builder.saved')}</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (!props.current || !name.trim()) return;
          saveSearch(props.builder, selected, name.trim(), props.current);
          useUi.getState().notify('success', t('builder.savedAs', { name: name.trim() }));
          setName('');
        }}
      >
        <input type="text" value={name} onChange={(e) => setName(e.target.value)} placeholder={t('builder.saveName')} aria-label={t('builder.saveName')} />
        <button type="submit" disabled={!props.current || !name.trim()}>
          {t('builder.save')}
        </button>
      </form>
      {saved.length === 0 ? (
        <p className="muted">{t('builder.noSaved')}</p>
      ) : (
        <ul className="saved-list">
          {saved.map((s) => (
            <li key={s.name}>
              <button type="button" className="link" onClick={() => props.onLoad(s.value)} title={props.describe(s.value)}>
                {s.name}
              </button>
              <span className="muted">{formatDateTime(lang, s.savedAt)}</span>
              <button type="button" className="icon" aria-label={t('builder.deleteSaved', { name: s.name })} onClick={() => deleteSearch(props.builder, selected, s.name)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A text area editing a value the form also edits: the typed text is kept while focused. */
export function TextEditor({ value, onText, label, className }: { value: string; onText(text: string): void; label: string; className: string }) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <textarea
      className={className}
      spellCheck={false}
      aria-label={label}
      value={editing ?? value}
      onFocus={() => setEditing(value)}
      onBlur={() => setEditing(null)}
      onChange={(e) => {
        setEditing(e.target.value);
        onText(e.target.value);
      }}
    />
  );
}

type Page = { items: Record<string, unknown>[]; total: number };
type Tag = ReturnType<typeof instancesOf>[number];

/**
 * Running a builder's request on the selected instance, or on every instance ("All instances":
 * one answer each, merged, an instance's failure kept beside the others), with its timing.
 */
export function useBuilderRun(fetchPage: (api: NonNullable<ReturnType<typeof useSession.getState>['api']>, target: ReturnType<typeof targetOf>) => Promise<Page>) {
  const api = useSession((s) => s.api);
  const selected = useInstances((s) => s.selected);
  const [result, setResult] = useState<RunResult | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [running, setRunning] = useState(false);
  useEffect(() => setResult(null), [selected]);
  const run = async () => {
    if (!api) return;
    setRunning(true);
    setError(null);
    const started = performance.now();
    try {
      const tags = instancesOf(selected, useInstances.getState());
      const parts = await Promise.all(
        tags.map(async (tag: Tag) => {
          try {
            return { tag, page: await fetchPage(api, targetOf(tag.id)) };
          } catch (e) {
            checkAuth(e);
            if (selected !== 'all') throw e;
            return { tag, error: e instanceof Error ? e.message : String(e) };
          }
        }),
      );
      const pages = parts.map((p) => ('page' in p ? p.page : null));
      setResult({
        key: `${Date.now()}`,
        rows: parts.flatMap((p, i) => (pages[i] ? pages[i]!.items.map((it) => ({ ...it, _instance: p.tag }) as Row) : [])),
        total: pages.reduce((n, page) => n + (page ? page.total : 0), 0),
        parts: selected === 'all' ? parts.map((p, i) => ({ id: p.tag.id, name: p.tag.name, total: pages[i]?.total ?? null, error: 'error' in p ? p.error : undefined })) : undefined,
        ms: performance.now() - started,
      });
    } catch (e) {
      checkAuth(e);
      setError(e instanceof Error ? e : new Error(String(e)));
      setResult(null);
    } finally {
      setRunning(false);
    }
  };
  /** Forgets the last answer (the request it answered no longer stands). */
  const reset = () => {
    setResult(null);
    setError(null);
  };
  return { result, error, running, run, reset };
}

export interface RunResult {
  key: string;
  rows: Row[];
  total: number;
  /** Per-instance answers of a fan-out. */
  parts?: { id: string; name: string; total: number | null; error?: string }[];
  ms: number;
}

export function Results(props: { resource: ResourceDef; linkResource: string; tableId: string; result: RunResult | null; error: Error | null; running: boolean; instanceColumn: boolean }) {
  const { t, lang } = useI18n();
  const columns = useMemo(() => resourceColumns(props.resource, t, lang, props.instanceColumn), [props.resource, t, lang, props.instanceColumn]);
  useEffect(() => registerColumns(props.tableId, columns), [props.tableId, columns]);
  const source = useMemo(() => (props.result ? new StaticSource(props.result.key, props.result.rows, props.result.total) : null), [props.result]);
  return (
    <section className="results" aria-label={t('builder.results')} aria-busy={props.running}>
      <div className="results-head">
        <h2 className="subhead">{t('builder.results')}</h2>
        {props.result && (
          <span data-testid="result-total">
            {t('builder.resultTotal', { count: props.result.total, n: formatNumber(lang, props.result.total), shown: formatNumber(lang, props.result.rows.length) })}
          </span>
        )}
        {props.result && <span className="muted">{t('builder.took', { ms: formatNumber(lang, props.result.ms, 0) })}</span>}
        {props.result?.parts?.map((p) => (
          <span key={p.name} className={p.error ? 'error' : 'muted'}>
            {displayName(p, t)}: {p.error ?? formatNumber(lang, p.total ?? 0)}
          </span>
        ))}
        <span className="spacer" />
        <button type="button" className="ghost" onClick={() => useUi.getState().openDialog({ kind: 'columns', table: props.tableId })}>
          {t('actions.columnsShort')}
        </button>
      </div>
      {props.error && (
        <p role="alert" className="state-error">
          {failureText(props.error)}
        </p>
      )}
      {!props.result && !props.error && <p className="muted pad">{props.running ? t('states.loading') : t('builder.notRun')}</p>}
      {props.result && (
        <div className="results-table">
          <DataTable id={props.tableId} label={t('builder.results')} columns={columns} source={source} sorting={[]} rowKey={(r) => `${r._instance.id}:${r.id}`} empty={<div className="state-empty">{t('states.nothingFound')}</div>} onOpen={(r) => (window.location.hash = recordHref(props.linkResource, r.id, r._instance.id))} />
        </div>
      )}
    </section>
  );
}
