// Incident triage: quick filters with counts, charts, the server-paged virtualized table, the
// detail panel, and the actions (status, risk, select, undo) on one incident or a selection.
import { lazy, startTransition, Suspense, useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import type { IncidentStatus, RiskBand } from '../../../../src-shared/resources/fields';
import { fieldOf, fieldsOf, getResource } from '../../../../src-shared/resources/index';
import { announce, ACTIONS, actionContext, keyLabel, notifyActions, runAction, setIncidentsController, type IncidentsController } from '../../actions/registry';
import { getRecord, search } from '../../api/radar';
import { ActionButton, useActionState } from '../../components/ActionButton';
import { DataTable, registerColumns, visibleColumnIds } from '../../components/DataTable';
import { ExportMenu } from '../../components/ExportMenu';
import type { ExportSource } from '../../data/exports';
import type { Row } from '../../data/source';
import { useI18n } from '../../i18n';
import { formatNumber } from '../../i18n/format';
import { navigate, useRoute } from '../../router';
import { EMPTY_SELECTION, useIncidents, type RowRef } from '../../state/incidents';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import { fieldLabel } from '../resources/fields';
import { COLUMN_FIELDS, incidentColumns } from './columns';
import { useAnswered, useIncidentSource, useIncidentStats } from './data';
import { IncidentDetail } from './Detail';
import { Chips, FilterBar, type Counts } from './Filters';
import { bucketEnd, emptyQuery, isFiltered, toSearchRequest, type IncidentQuery } from './query';

const Charts = lazy(() => import('./Charts'));

const EMPTY_QUERY = emptyQuery();
const RESOURCE = 'service_asset_findings';
/** Largest selection "select all matching" makes per instance (the search limit). */
export const SELECT_ALL_MAX = 10_000;

export const rowKey = (r: Row): string => `${r._instance.id}:${r.id}`;

export function refOf(r: Row): RowRef {
  return {
    key: rowKey(r),
    id: r.id,
    instance: r._instance,
    status: String(r.status ?? ''),
    risklevel: typeof r.risklevel === 'number' ? r.risklevel : Number(r.risklevel ?? 0),
    title: (r.title as string | null) ?? null,
    display_id: (r.display_id as number | null) ?? null,
  };
}

function RowMenu({ at, onClose }: { at: { x: number; y: number }; onClose(): void }) {
  const { t } = useI18n();
  useActionState();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
    const down = (e: globalThis.MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) onClose();
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      }
    };
    document.addEventListener('mousedown', down);
    document.addEventListener('keydown', key, true);
    return () => {
      document.removeEventListener('mousedown', down);
      document.removeEventListener('keydown', key, true);
    };
  }, [onClose]);
  const ids = ['incidents.open', 'incidents.toggleSelect', 'incidents.setStatus', 'incidents.setRisk', 'incidents.undo', 'incidents.selectAll', 'incidents.clearSelection'];
  const ctx = actionContext();
  return (
    <div ref={ref} className="row-menu" role="menu" aria-label={t('incidents.rowMenu')} style={{ left: at.x, top: at.y }}>
      {ids.map((id) => {
        const a = ACTIONS.find((x) => x.id === id)!;
        return (
          <button
            key={id}
            type="button"
            role="menuitem"
            disabled={!a.enabled(ctx)}
            onClick={() => {
              onClose();
              runAction(id);
            }}
          >
            <span>{t(a.label)}</span>
            {a.keys?.[0] && <kbd>{keyLabel(a.keys[0])}</kbd>}
          </button>
        );
      })}
    </div>
  );
}

export function IncidentsView() {
  const { t, lang } = useI18n();
  const route = useRoute();
  const api = useSession((s) => s.api);
  const view = useInstances((s) => s.selected);
  const list = useInstances((s) => s.list);
  const mainId = useInstances((s) => s.mainId);
  const q = useIncidents((s) => s.queries[view]) ?? EMPTY_QUERY;
  const setQueryFor = useIncidents((s) => s.setQuery);
  const selection = useIncidents((s) => s.selection[view]) ?? EMPTY_SELECTION;
  const focus = useIncidents((s) => s.focus[view] ?? 0);
  const detail = useIncidents((s) => s.detail);
  const chartsOpen = useUi((s) => s.chartsOpen);
  const prefs = useUi((s) => s.columns.incidents);
  const searchRef = useRef<HTMLInputElement>(null);
  const lastToggled = useRef<number | null>(null);
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);

  const setQuery = useCallback((update: (x: IncidentQuery) => IncidentQuery) => setQueryFor(view, update), [setQueryFor, view]);
  const columns = useMemo(() => incidentColumns(t, lang, view === 'all'), [t, lang, view]);
  useEffect(() => registerColumns('incidents', columns), [columns]);
  const visible = visibleColumnIds('incidents', columns, prefs);
  const fields = useMemo(() => visible.flatMap((id) => COLUMN_FIELDS[id] ?? []).sort(), [visible.join(',')]); // eslint-disable-line react-hooks/exhaustive-deps
  const source = useIncidentSource(view, q, fields);
  // The export: the table's own request (filters, search, order), every match, whole records.
  const visibleKey = visible.join(',');
  const exportSource = useMemo<ExportSource>(() => {
    const r = getResource(RESOURCE);
    const req = toSearchRequest(q, []);
    return {
      resource: RESOURCE,
      search: { filters: req.filters, ordering: req.ordering, virtual_search: req.virtual_search },
      columns: fieldsOf(r)
        .filter((f) => !f.def?.secret)
        .map((f) => ({ id: f.name, label: fieldLabel(t, f.name) })),
      visible: visibleKey.split(',').filter((id) => fieldOf(r, id)),
      title: t('nav.incidents'),
    };
  }, [q, t, visibleKey]);
  const stats = useIncidentStats(view, q, source);
  // The charts follow the status and risk filters once the table shows the new rows, in a
  // transition: the table comes first.
  const answered = useAnswered(source);
  const [chartFilter, setChartFilter] = useState({ statuses: q.statuses, risks: q.risks });
  useEffect(() => {
    if (answered) startTransition(() => setChartFilter({ statuses: q.statuses, risks: q.risks }));
  }, [answered, q.statuses, q.risks]);
  const pickerInstance = view === 'all' ? null : view;

  // Counts: each chip counts its own dimension under the other dimension's filter.
  const counts = useMemo<Counts | null>(() => {
    if (!stats.stats) return null;
    const status: Record<string, number> = {};
    const risk: Record<string, number> = {};
    for (const o of stats.stats.over_time) {
      if (!q.risks.length || q.risks.includes(o.risk as RiskBand)) status[o.status] = (status[o.status] ?? 0) + o.count;
      if (!q.statuses.length || q.statuses.includes(o.status as IncidentStatus)) risk[o.risk] = (risk[o.risk] ?? 0) + o.count;
    }
    return { status, risk };
  }, [stats.stats, q.risks, q.statuses]);

  // ---- opening incidents (the detail panel follows the address, so front_link opens it)
  const openRef = useCallback((ref: RowRef) => {
    const wasOpen = useIncidents.getState().detail !== null;
    useIncidents.getState().openDetail(ref);
    navigate({ view: 'incidents', id: ref.id, instance: ref.instance.id }, wasOpen);
  }, []);
  const closeDetail = useCallback(() => {
    useIncidents.getState().openDetail(null);
    navigate({ view: 'incidents' });
  }, []);
  const routeId = route.view === 'incidents' ? route.id : undefined;
  const routeInstance = route.view === 'incidents' ? route.instance : undefined;
  useEffect(() => {
    if (!routeId) {
      if (useIncidents.getState().detail) useIncidents.getState().openDetail(null);
      return;
    }
    const cur = useIncidents.getState().detail;
    if (cur && cur.id === routeId) return;
    if (!api) return;
    const instId = routeInstance ?? (view === 'all' ? 'main' : view);
    const [tag] = instancesOf(instId, { list, mainId });
    getRecord(api, targetOf(instId), 'service_asset_findings', routeId, []).then(
      (rec) => useIncidents.getState().openDetail(refOf({ ...rec, _instance: tag ?? { id: instId, name: '' } })),
      (e: unknown) => {
        checkAuth(e);
        announce('error', 'notices.openFailed', { error: e instanceof Error ? e.message : String(e) });
      },
    );
  }, [routeId, routeInstance, api, view, list, mainId]);

  // ---- the controller the declared actions drive
  const stateRef = useRef({ source, view, q, selection, focus, detail });
  stateRef.current = { source, view, q, selection, focus, detail };
  useEffect(() => {
    const st = () => stateRef.current;
    const focusedRow = () => st().source?.row(st().focus);
    const c: IncidentsController = {
      view,
      move(delta) {
        const s = st();
        const max = (s.source?.state().reachable ?? 0) - 1;
        if (max < 0) return;
        const next = Math.min(max, Math.max(0, s.focus + delta));
        useIncidents.getState().setFocus(s.view, next);
        const row = s.source?.row(next);
        if (row && s.detail) openRef(refOf(row));
      },
      toggleFocused() {
        const row = focusedRow();
        if (row) {
          useIncidents.getState().toggle(st().view, refOf(row));
          lastToggled.current = st().focus;
        }
      },
      openFocused() {
        const row = focusedRow();
        if (row) openRef(refOf(row));
      },
      focusSearch() {
        searchRef.current?.focus();
        searchRef.current?.select();
      },
      async selectAllMatching() {
        const s = st();
        const a = useSession.getState().api;
        if (!a) return;
        const tags = instancesOf(s.view, useInstances.getState());
        const req = { ...toSearchRequest(s.q, [], SELECT_ALL_MAX, 0), include_fields: ['id', 'status', 'risklevel', 'title', 'display_id'] };
        try {
          const pages = await Promise.all(tags.map(async (tag) => ({ tag, page: await search(a, targetOf(tag.id), 'service_asset_findings', req) })));
          const refs = pages.flatMap(({ tag, page }) => page.items.map((it) => refOf({ ...it, _instance: tag })));
          useIncidents.getState().select(s.view, refs, 'replace');
          const total = pages.reduce((n, p) => n + p.page.total, 0);
          if (total > refs.length) announce('info', 'notices.selectCapped', { count: refs.length, total });
          else announce('info', 'notices.selectedAll', { count: refs.length });
        } catch (e) {
          checkAuth(e);
          announce('error', 'notices.selectFailed', { error: e instanceof Error ? e.message : String(e) });
        }
      },
      clearSelection() {
        useIncidents.getState().clearSelection(st().view);
      },
      clearFilters() {
        setQueryFor(st().view, (x) => ({ ...emptyQuery(), sorting: x.sorting }));
      },
      refresh() {
        st().source?.refresh();
      },
      closeDetail,
      selectionSize: () => st().selection.size,
      hasFilters: () => isFiltered(st().q),
      detailOpen: () => st().detail !== null,
      targets() {
        const s = st();
        if (s.selection.size) return [...s.selection.values()];
        if (s.detail) return [s.detail];
        const row = focusedRow();
        return row ? [refOf(row)] : [];
      },
    };
    setIncidentsController(c);
    return () => setIncidentsController(null);
  }, [view, openRef, closeDetail, setQueryFor]);

  // What the actions can do depends on the rows too (the focused one): tell the desktop menu.
  useEffect(() => source?.subscribe(notifyActions), [source]);

  // ---- table callbacks
  const onToggle = useCallback(
    (row: Row, index: number, range: boolean) => {
      const s = stateRef.current;
      if (range && lastToggled.current !== null && s.source) {
        const [a, b] = [Math.min(lastToggled.current, index), Math.max(lastToggled.current, index)];
        const refs: RowRef[] = [];
        for (let i = a; i <= b; i++) {
          const r = s.source.row(i);
          if (r) refs.push(refOf(r));
        }
        useIncidents.getState().select(s.view, refs, 'add');
      } else {
        useIncidents.getState().toggle(s.view, refOf(row));
      }
      lastToggled.current = index;
      useIncidents.getState().setFocus(s.view, index);
    },
    [],
  );
  const onToggleAll = useCallback(() => {
    if (stateRef.current.selection.size) useIncidents.getState().clearSelection(stateRef.current.view);
    else runAction('incidents.selectAll');
  }, []);
  const onOpen = useCallback((row: Row) => openRef(refOf(row)), [openRef]);
  const onFocusIndex = useCallback((i: number) => useIncidents.getState().setFocus(stateRef.current.view, i), []);
  const onRowMenu = useCallback((_row: Row, _i: number, e: MouseEvent) => setMenu({ x: e.clientX, y: e.clientY }), []);
  const onSortingChange = useCallback((sorting: IncidentQuery['sorting']) => setQuery((x) => ({ ...x, sorting })), [setQuery]);

  const pick = useCallback(
    (p: { bucket: string; status?: IncidentStatus; risk?: RiskBand }) => {
      const unit = stats.stats?.bucket ?? 'day';
      setQuery((x) => ({
        ...x,
        range: { preset: 'custom', from: `${p.bucket}T00:00:00.000000Z`, to: bucketEnd(p.bucket, unit) },
        statuses: p.status ? [p.status] : x.statuses,
        risks: p.risk ? [p.risk] : x.risks,
      }));
    },
    [setQuery, stats.stats?.bucket],
  );

  const st = source?.state();
  // While a new query loads, the previous total stays (beside the previous rows) until the
  // first answer: no flicker, no layout shift.
  const lastTotal = useRef<number | null>(null);
  if (st?.total !== null && st?.total !== undefined) lastTotal.current = st.total;
  const total = st?.total ?? lastTotal.current;
  const filtered = isFiltered(q);

  return (
    <div className={`incidents${detail ? ' with-detail' : ''}`}>
      <div className="toolbar">
        <FilterBar query={q} instance={pickerInstance} onChange={setQuery} searchRef={searchRef} />
        <div className="toolbar-actions">
          <ActionButton id="incidents.clearFilters" className="ghost" short />
          <ActionButton id="incidents.columns" className="ghost" short />
          <ActionButton id="view.charts" className="ghost" short />
          <ActionButton id="incidents.refresh" className="ghost" short />
          <ExportMenu source={exportSource} />
        </div>
      </div>
      <Chips query={q} counts={counts} onChange={setQuery} />
      {chartsOpen && (
        <div className="charts-wrap" aria-busy={stats.loading}>
          {stats.stats ? (
            <Suspense
              fallback={
                <div className="charts charts-placeholder">
                  <span className="muted">{t('states.loading')}</span>
                </div>
              }
            >
              <Charts stats={stats.stats} statuses={chartFilter.statuses} risks={chartFilter.risks} onPick={pick} />
            </Suspense>
          ) : (
            <div className="charts charts-placeholder">{stats.error ? <span className="error">{stats.error}</span> : <span className="muted">{t('states.loading')}</span>}</div>
          )}
        </div>
      )}
      <div className="selection-bar" aria-live="polite">
        <span className="total" data-testid="total">
          {total === null ? '…' : t('incidents.total', { count: total, n: formatNumber(lang, total) })}
        </span>
        {selection.size > 0 && (
          <span className="selected-count" data-testid="selected-count">
            {t('incidents.selected', { count: selection.size, n: formatNumber(lang, selection.size) })}
          </span>
        )}
        <span className="spacer" />
        <ActionButton id="incidents.setStatus" className="primary" short />
        <ActionButton id="incidents.setRisk" short />
        <ActionButton id="incidents.selectAll" className="ghost" short />
        <ActionButton id="incidents.clearSelection" className="ghost" short />
        <ActionButton id="incidents.undo" className="ghost" short />
      </div>
      <div className="incidents-main">
        <DataTable
          id="incidents"
          label={t('incidents.tableLabel')}
          columns={columns}
          source={source}
          sorting={q.sorting}
          onSortingChange={onSortingChange}
          rowKey={rowKey}
          selected={selection}
          onToggle={onToggle}
          onToggleAll={onToggleAll}
          focusIndex={focus}
          onFocusIndex={onFocusIndex}
          activeKey={detail?.key ?? null}
          onOpen={onOpen}
          onRowMenu={onRowMenu}
          rowClass={(r) => `st-${String(r.status)}`}
          empty={
            <div className="state-empty">
              <strong>{filtered ? t('incidents.emptyFiltered') : t('incidents.empty')}</strong>
              {filtered && (
                <button type="button" onClick={() => runAction('incidents.clearFilters')}>
                  {t('actions.clearFilters')}
                </button>
              )}
            </div>
          }
        />
        {detail && <IncidentDetail detail={detail} onClose={closeDetail} />}
      </div>
      <footer className="statusbar">
        <span>{t('incidents.hints')}</span>
      </footer>
      {menu && <RowMenu at={menu} onClose={() => setMenu(null)} />}
    </div>
  );
}
