// Browsing every resource of the registry: an index, a list per resource and a record view
// with its relations, all derived from the resource declarations.
import { useEffect, useMemo, useState } from 'react';
import { fieldsOf, findResource, getResource, relationsOf, RESOURCES, type RelationDef } from '../../../../src-shared/resources/index';
import { emptySearch, type SearchFilter } from '../../../../src-shared/schemas/search';
import { getRecord, search, type Rec } from '../../api/radar';
import { isAbort } from '../../api/client';
import { visibleColumnIds } from '../../components/DataTable';
import { ExportMenu } from '../../components/ExportMenu';
import { RecordLabel } from '../../components/Label';
import type { ExportSource } from '../../data/exports';
import { useLabelsVersion } from '../../data/lookup';
import { failureText } from '../../data/source';
import { useI18n } from '../../i18n';
import { formatNumber, sortByText } from '../../i18n/format';
import { hrefOf } from '../../router';
import { useChanges } from '../../state/changes';
import { targetOf, useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import { SearchBox } from '../incidents/Filters';
import type { SortKey } from '../incidents/query';
import { fieldLabel, FieldValue, recordHref, resourceColumns } from './fields';
import { defaultSorting, ResourceTable } from './ResourceTable';

export function ResourcesIndex() {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const view = useInstances((s) => s.selected);
  const seq = useChanges((s) => s.seq);
  const [counts, setCounts] = useState<Record<string, number | string>>({});
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    setCounts({});
    const target = view === 'all' ? null : targetOf(view);
    for (const r of RESOURCES) {
      if (!target) break;
      search(api, target, r.name, { ...emptySearch(0), include_fields: ['id'] }, ctl.signal).then(
        (p) => setCounts((c) => ({ ...c, [r.name]: p.total })),
        (e: unknown) => {
          if (!isAbort(e)) setCounts((c) => ({ ...c, [r.name]: '!' }));
        },
      );
    }
    return () => ctl.abort();
  }, [api, view, seq]);
  const sorted = sortByText(lang, RESOURCES, (r) => r.title[lang]);
  return (
    <div className="page">
      <header className="page-head">
        <h1>{t('resources.title')}</h1>
        <p className="muted">{t('resources.intro')}</p>
      </header>
      <ul className="resource-grid">
        {sorted.map((r) => (
          <li key={r.name}>
            <a href={r.name === 'service_asset_findings' ? '#/incidents' : hrefOf({ view: 'resource', resource: r.name })}>
              <span className="resource-title">{r.title[lang]}</span>
              <span className="mono muted">{r.name}</span>
              <span className="resource-count">{typeof counts[r.name] === 'number' ? formatNumber(lang, counts[r.name] as number) : (counts[r.name] ?? '')}</span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ResourceList({ resource }: { resource: string }) {
  const { t, lang } = useI18n();
  const view = useInstances((s) => s.selected);
  const r = findResource(resource);
  const [text, setText] = useState('');
  const [total, setTotal] = useState<number | null>(null);
  const [sorting, setSorting] = useState<SortKey[]>(() => (r ? defaultSorting(r) : []));
  const tableId = `res:${resource}`;
  const prefs = useUi((s) => s.columns[tableId]);
  const columns = useMemo(() => (r ? resourceColumns(r, t, lang, view === 'all') : []), [r, t, lang, view]);
  const visibleKey = r ? visibleColumnIds(tableId, columns, prefs).join(',') : '';
  const search = text.trim();
  // The export: the list's request (search, order), every match, whole records.
  const exportSource = useMemo<ExportSource | null>(() => {
    if (!r) return null;
    return {
      resource: r.name,
      search: { filters: [], ordering: sorting.map((s) => ({ field: s.id, direction: s.desc ? 'desc' : 'asc' })), virtual_search: { value: search, strict: false } },
      columns: fieldsOf(r)
        .filter((f) => !f.def?.secret)
        .map((f) => ({ id: f.name, label: fieldLabel(t, f.name) })),
      visible: visibleKey.split(',').filter(Boolean),
      title: r.title[lang],
    };
  }, [r, sorting, search, t, lang, visibleKey]);
  if (!r) return <div className="page state-error">{t('resources.unknown', { name: resource })}</div>;
  return (
    <div className="page page-list">
      <header className="page-head row">
        <a href="#/r" className="crumb">
          {t('resources.title')}
        </a>
        <span className="crumb-sep">/</span>
        <h1>{r.title[lang]}</h1>
        <span className="mono muted">{r.name}</span>
        <span className="total">{total === null ? '…' : t('resources.total', { count: total, n: formatNumber(lang, total) })}</span>
        <span className="spacer" />
        <SearchBox value={text} onChange={setText} label={t('resources.search')} placeholder={t('resources.searchPlaceholder')} />
        <button type="button" className="ghost" onClick={() => useUi.getState().openDialog({ kind: 'columns', table: tableId })}>
          {t('actions.columnsShort')}
        </button>
        <ExportMenu source={exportSource} />
      </header>
      <div className="page-table">
        <ResourceTable
          key={`${resource}|${view}`}
          resource={resource}
          instance={view}
          tableId={tableId}
          label={r.title[lang]}
          search={text}
          empty={text ? t('resources.emptyFiltered') : t('resources.empty')}
          onTotal={setTotal}
          sorting={sorting}
          onSortingChange={setSorting}
        />
      </div>
    </div>
  );
}

/** The filter selecting `target` records related to record `id` through relation `rel`. */
export function relatedFilter(rel: RelationDef, id: string): SearchFilter | null {
  if (rel.kind === 'hasMany') return { field: rel.fk, filter_type: 'equal', value: id };
  if (rel.kind === 'manyToMany') {
    const back = relationsOf(getResource(rel.target)).find(([, b]) => b.kind === 'manyToMany' && b.link === rel.link);
    return back ? { field: back[0], filter_type: 'related', value: [id] } : null;
  }
  return null;
}

export function RecordView({ resource, id, instance }: { resource: string; id: string; instance?: string }) {
  const { t, lang } = useI18n();
  // The linked records' names (finding type, last occurrence, responsible group) arrive after the
  // record: drawn again when they do, never left at "…".
  useLabelsVersion();
  const api = useSession((s) => s.api);
  const selected = useInstances((s) => s.selected);
  const inst = instance ?? (selected === 'all' ? 'main' : selected);
  const r = findResource(resource);
  const [rec, setRec] = useState<Rec | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const lists = useMemo(() => (r ? relationsOf(r).filter(([, rel]) => rel.kind !== 'belongsTo') : []), [r]);
  const [tab, setTab] = useState<string>('fields');
  const [counts, setCounts] = useState<Record<string, number>>({});
  useEffect(() => {
    if (!api || !r) return;
    const ctl = new AbortController();
    setRec(null);
    setError(null);
    setTab('fields');
    getRecord(api, targetOf(inst), resource, id, [], ctl.signal).then(setRec, (e: unknown) => {
      if (isAbort(e)) return;
      checkAuth(e);
      setError(e instanceof Error ? e : new Error(String(e)));
    });
    setCounts({});
    for (const [name, rel] of lists) {
      const f = relatedFilter(rel, id);
      if (!f) continue;
      search(api, targetOf(inst), rel.target, { ...emptySearch(0), include_fields: ['id'], filters: [f] }, ctl.signal).then(
        (p) => setCounts((c) => ({ ...c, [name]: p.total })),
        () => {},
      );
    }
    return () => ctl.abort();
  }, [api, resource, id, inst, r, lists]);
  if (!r) return <div className="page state-error">{t('resources.unknown', { name: resource })}</div>;
  const label = rec ? String(rec[r.label] ?? '') || rec.id : id;
  const belongs = relationsOf(r).filter(([, rel]) => rel.kind === 'belongsTo');
  const activeRel = lists.find(([n]) => n === tab);
  return (
    <div className="page page-record">
      <header className="page-head row">
        <a href="#/r" className="crumb">
          {t('resources.title')}
        </a>
        <span className="crumb-sep">/</span>
        <a href={resource === 'service_asset_findings' ? '#/incidents' : hrefOf({ view: 'resource', resource })} className="crumb">
          {r.title[lang]}
        </a>
        <span className="crumb-sep">/</span>
        <h1 className="record-title">{label}</h1>
        {resource === 'service_asset_findings' && (
          <a className="button" href={recordHref(resource, id, inst)}>
            {t('resources.openInTriage')}
          </a>
        )}
      </header>
      {error && (
        <p role="alert" className="state-error">
          {failureText(error)}
        </p>
      )}
      {!rec && !error && <p className="muted pad">{t('states.loading')}</p>}
      {rec && (
        <>
          {belongs.length > 0 && (
            <nav className="links" aria-label={t('resources.links')}>
              {belongs.map(([name, rel]) => {
                const fk = rel.kind === 'belongsTo' ? rel.fk : '';
                const target = rec[fk] as string | null;
                return (
                  <span key={name} className="link-item">
                    <span className="muted">{fieldLabel(t, name)}:</span> <RecordLabel instance={inst} resource={rel.target} id={target} link />
                  </span>
                );
              })}
            </nav>
          )}
          <div role="tablist" className="tabs" aria-label={t('resources.sections')}>
            <button type="button" role="tab" aria-selected={tab === 'fields'} className={tab === 'fields' ? 'is-on' : ''} onClick={() => setTab('fields')}>
              {t('resources.fields')}
            </button>
            {lists.map(([name, rel]) => (
              <button key={name} type="button" role="tab" aria-selected={tab === name} className={tab === name ? 'is-on' : ''} onClick={() => setTab(name)}>
                {getResource(rel.target).title[lang]}
                <span className="mono muted"> {name}</span>
                {counts[name] !== undefined && <span className="count-pill">{formatNumber(lang, counts[name]!)}</span>}
              </button>
            ))}
          </div>
          {tab === 'fields' && (
            <div role="tabpanel">
              <dl className="kv kv-wide">
                {fieldsOf(r).map((f) => (
                  <div key={f.name} className="kv-row">
                    <dt title={f.name}>
                      {fieldLabel(t, f.name)}
                      {fieldLabel(t, f.name) !== f.name && <span className="mono muted"> {f.name}</span>}
                    </dt>
                    <dd>
                      {f.kind === 'json' && rec[f.name] !== null && rec[f.name] !== undefined ? (
                        <pre className="json">{JSON.stringify(rec[f.name], null, 2)}</pre>
                      ) : (
                        <FieldValue r={r} f={f} value={rec[f.name]} lang={lang} t={t} instance={inst} />
                      )}
                    </dd>
                  </div>
                ))}
              </dl>
            </div>
          )}
          {activeRel && (
            <div className="page-table" role="tabpanel">
              <ResourceTable
                key={`${activeRel[0]}|${id}|${inst}`}
                resource={activeRel[1].target}
                instance={inst}
                tableId={`rel:${activeRel[1].target}`}
                label={getResource(activeRel[1].target).title[lang]}
                filters={[relatedFilter(activeRel[1], id)!]}
                empty={t('resources.noRelated')}
              />
            </div>
          )}
        </>
      )}
    </div>
  );
}
