// Incident triage: quick filters with counts, charts, the server-paged virtualized table (or
// its groups), the detail panel. The state is in the stores and the address; the actions
// (actions/incidents.ts) read it there, this view only shows it.
import { lazy, startTransition, Suspense, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { IncidentStatus, RiskBand } from '../../../../src-shared/resources/fields';
import { closeIncident, openIncident, pivotActionId, refOf } from '../../actions/incidents';
import { announce } from '../../actions/notices';
import { runAction } from '../../actions/registry';
import { getRecord } from '../../api/radar';
import { DataTable, registerColumns, visibleColumnIds } from '../../components/DataTable';
import { ContextMenu, type MenuEntry } from '../../components/Menu';
import { incidentSource, rowKey, useAnswered, useIncidentStats, useLiveList, useRefreshes } from '../../data/incidentList';
import { failureText, type Row } from '../../data/source';
import { useI18n } from '../../i18n';
import { formatDate } from '../../i18n/format';
import { useEmptyRangeHint } from '../../data/freshness';
import { useRoute } from '../../router';
import { useChanges } from '../../state/changes';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { usePeople } from '../../state/people';
import { checkAuth, useSession } from '../../state/session';
import { useQueue, queuedKinds, queuedMarks } from '../../state/queue';
import { EMPTY_SELECTION, scopeOf, scopeSelection, useQuery, useTriage, type RowRef } from '../../state/triage';
import { useUi } from '../../state/ui';
import { COLUMN_FIELDS, incidentColumns } from './columns';
import { IncidentDetail } from './Detail';
import { Chips, FilterBar, type Counts } from './Filters';
import { GroupedList } from './GroupedList';
import { bucketEnd, isFiltered, justBefore, queryKey, rangeBounds, type IncidentQuery } from './query';
import { FreshnessNote, StatusLine } from './StatusLine';
import { PivotBar } from './pivots';

// The charts are their own chunk, asked for at once so they arrive with the data.
const chartsChunk = import('./Charts');
const Charts = lazy(() => chartsChunk);

const ROW_MENU = [
  'incidents.open',
  'incidents.toggleSelect',
  'incidents.setStatus',
  'incidents.setRisk',
  'incidents.assignMe',
  'incidents.assign',
  'incidents.undo',
  'incidents.selectAll',
  'incidents.clearSelection',
].map((action): MenuEntry => ({ action }))
  .concat([{ separator: true }])
  .concat((['asset', 'finding', 'rule', 'owner', 'group'] as const).flatMap((k) => [{ action: pivotActionId(k, 'in') }, { action: pivotActionId(k, 'out') }]));

let rowsVersionCounter = 0;

export function IncidentsView() {
  const { t, lang } = useI18n();
  const route = useRoute();
  const api = useSession((s) => s.api);
  const me = useSession((s) => s.me);
  const view = useInstances((s) => s.selected);
  const list = useInstances((s) => s.list);
  const mainId = useInstances((s) => s.mainId);
  const loaded = useInstances((s) => s.loaded);
  // The list's instance is the one its address names: until the selection has followed the
  // address (the instance list has arrived), nothing is read, so a list opened by its address
  // never shows another instance's incidents first (nor lets them be selected).
  const addressList = route.view === 'incidents' ? (route.instance ?? 'main') : null;
  const following = addressList !== null && addressList !== view && !(view === 'main' && addressList === mainId);
  const q = useQuery();
  const setQuery = useTriage((s) => s.setQuery);
  const rowsSelection = useTriage((s) => s.selection[view]) ?? EMPTY_SELECTION;
  const scopeState = useTriage((s) => s.scope);
  const scope = scopeOf(view, { scope: scopeState });
  const selection = useMemo(() => (scope ? scopeSelection(scope) : rowsSelection), [scope, rowsSelection]);
  const queueEntries = useQueue((s) => s.entries);
  const marks = useMemo(() => queuedMarks(queueEntries), [queueEntries]);
  const kinds = useMemo(() => queuedKinds(queueEntries), [queueEntries]);
  const focus = useTriage((s) => s.focus[view] ?? 0);
  const detail = useTriage((s) => s.detail);
  const pending = useChanges((s) => s.pending);
  // Bumped when what the rows show besides their records changed (a held change, waiting changes, the selection).
  const rowsVersion = useMemo(() => ++rowsVersionCounter, [pending, queueEntries, scope]);
  const chartsOpen = useUi((s) => s.chartsOpen);
  const prefs = useUi((s) => s.columns.incidents);
  const peopleVersion = usePeople((s) => s.version);
  const lastToggled = useRef<number | null>(null);

  // The people and groups of the instances shown (names, "my group"): read once per instance and
  // session (the instance list arriving, or the view coming back to an instance, asks nothing).
  const peopleAsked = useRef<{ api: unknown; ids: Set<string> }>({ api: null, ids: new Set() });
  useEffect(() => {
    if (following) return;
    if (peopleAsked.current.api !== api) peopleAsked.current = { api, ids: new Set() };
    for (const tag of instancesOf(view, { list, mainId })) {
      if (peopleAsked.current.ids.has(tag.id)) continue;
      peopleAsked.current.ids.add(tag.id);
      void usePeople.getState().load(tag.id);
    }
  }, [following, view, list, mainId, api]);

  const columns = useMemo(() => incidentColumns(t, lang, view === 'all'), [t, lang, view]);
  useEffect(() => registerColumns('incidents', columns), [columns]);
  const visible = q.columns ? q.columns.filter((id) => columns.some((c) => c.id === id)) : visibleColumnIds('incidents', columns, prefs);
  const fields = useMemo(() => visible.flatMap((id) => COLUMN_FIELDS[id] ?? []).sort(), [visible.join(',')]); // eslint-disable-line react-hooks/exhaustive-deps
  // The source is derived from the query; `me` and the groups matter for "mine" and "my group".
  const source = useMemo(
    () => (following ? null : incidentSource(view, q, fields)),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [following, api, view, q, fields, loaded, list, me, q.team === 'mine' ? peopleVersion : 0],
  );
  const grouped = q.groupBy !== null;
  useRefreshes(source, !grouped);
  const answered = useAnswered(source);
  // A grouped view's total is the sum of its groups (its rows are not read).
  const [groupedTotal, setGroupedTotal] = useState<{ key: string; total: number } | null>(null);
  const groupsKey = `${view}|${q.groupBy}|${queryKey(q)}`;
  const listTotal = useSyncExternalStore(
    (cb) => source?.subscribe(cb) ?? (() => {}),
    () => source?.state().total ?? null,
  );
  // A selected query follows the list: its count is what the list matches now.
  const total = grouped ? (groupedTotal?.key === groupsKey ? groupedTotal.total : null) : listTotal;
  const onGroupsTotal = useCallback((key: string, n: number) => setGroupedTotal({ key, total: n }), []);
  // (A whole group selected is counted by its group, not by the list.)
  useEffect(() => {
    if (scope && !scope.extra.length && total !== null) useTriage.getState().setScopeTotal(view, total);
  }, [scope, total, view]);
  useLiveList(view, q, answered);
  const stats = useIncidentStats(view, q, source);
  // The charts follow the status and risk filters once the table shows the new rows, in a
  // transition: the table comes first.
  const [chartFilter, setChartFilter] = useState({ statuses: q.statuses, risks: q.risks });
  useEffect(() => {
    if (answered) startTransition(() => setChartFilter({ statuses: q.statuses, risks: q.risks }));
  }, [answered, q.statuses, q.risks]);

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

  // ---- the open incident follows the address (front_link opens it)
  const routeId = route.view === 'incidents' ? route.id : undefined;
  const routeInstance = route.view === 'incidents' ? route.at : undefined;
  // The list's instance as the address names it (the selection follows it a moment later).
  const routeList = route.view === 'incidents' ? route.instance : undefined;
  useEffect(() => {
    if (!routeId) {
      if (useTriage.getState().detail) useTriage.getState().openDetail(null);
      return;
    }
    const listInstance = routeList ?? view;
    const instId = routeInstance ?? (listInstance === 'all' ? 'main' : listInstance);
    const [tag] = instancesOf(instId, { list, mainId });
    // The same id on another instance (a snapshot and its platform share ids) is another incident.
    const cur = useTriage.getState().detail;
    if (cur && cur.id === routeId && cur.instance.id === (tag?.id ?? instId)) return;
    if (!api) return;
    let current = true;
    getRecord(api, targetOf(instId), 'service_asset_findings', routeId, []).then(
      (rec) => {
        if (current) useTriage.getState().openDetail(refOf({ ...rec, _instance: tag ?? { id: instId, name: '' } }));
      },
      (e: unknown) => {
        if (!current) return;
        checkAuth(e);
        announce('error', 'notices.openFailed', { error: failureText(e) });
      },
    );
    return () => {
      current = false;
    };
  }, [routeId, routeInstance, routeList, api, view, list, mainId]);

  // ---- table callbacks
  const onToggle = useCallback(
    (row: Row, index: number, range: boolean) => {
      const s = source;
      if (range && lastToggled.current !== null && s) {
        const [a, b] = [Math.min(lastToggled.current, index), Math.max(lastToggled.current, index)];
        const refs: RowRef[] = [];
        for (let i = a; i <= b; i++) {
          const r = s.row(i);
          if (r) refs.push(refOf(r));
        }
        useTriage.getState().select(view, refs, 'add');
      } else {
        useTriage.getState().toggle(view, refOf(row));
      }
      lastToggled.current = index;
      useTriage.getState().setFocus(view, index);
    },
    [source, view],
  );
  const onToggleAll = useCallback(() => {
    const st = useTriage.getState();
    if ((st.selection[view]?.size ?? 0) > 0 || scopeOf(view, st)) st.clearSelection(view);
    else runAction('incidents.selectAll');
  }, [view]);
  const onOpen = useCallback((row: Row) => openIncident(refOf(row)), []);
  const onFocusIndex = useCallback((i: number) => useTriage.getState().setFocus(view, i), [view]);
  const onRowMenu = useCallback(() => {}, []);
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

  // The charts run over the whole range: to its end, or to today for an open one.
  const asOf = useTriage((s) => s.asOf);
  const span = useMemo(() => {
    const b = rangeBounds(q.range, asOf);
    return { from: b.from ? b.from.slice(0, 10) : null, to: b.to ? justBefore(b.to).slice(0, 10) : new Date(asOf).toISOString().slice(0, 10) };
  }, [q.range, asOf]);
  // The charts are drawn with the range their aggregates answer (not the new range over the old
  // aggregates while the new ones are asked), after the header and the rows (a deferred value).
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const charted = useMemo(() => ({ stats: stats.stats, span }), [stats.stats]);
  const chartInput = useDeferredValue(charted);
  const filtered = isFiltered(q);
  const rangeHint = useEmptyRangeHint(view, q, total);
  const empty =
    rangeHint && rangeHint !== 'none' ? (
      // A relative range that holds nothing says when the newest incident is from, and offers a range that holds it.
      <div className="state-empty" data-testid="empty-range">
        <strong>{t('fresh.emptyRange', { range: t(`fresh.within.${q.range.preset}`), date: formatDate(lang, rangeHint.newest) })}</strong>
        <button type="button" className="primary" onClick={() => setQuery((x) => ({ ...x, range: rangeHint.range }))}>
          {rangeHint.range.preset === 'custom'
            ? t('fresh.showDays', { from: formatDate(lang, rangeHint.range.from), to: formatDate(lang, new Date(Date.parse(rangeHint.range.to!) - 1).toISOString()) })
            : t(`fresh.show.${rangeHint.range.preset}`)}
        </button>
      </div>
    ) : (
      <div className="state-empty">
        <strong>{filtered ? t('incidents.emptyFiltered') : t('incidents.empty')}</strong>
        {filtered && (
          <button type="button" onClick={() => runAction('incidents.clearFilters')}>
            {t('actions.clearFilters')}
          </button>
        )}
      </div>
    );

  return (
    <div className={`incidents${detail ? ' with-detail' : ''}`}>
      <h1 className="sr-only">{t('incidents.tableLabel')}</h1>
      <FilterBar query={q} instance={view === 'all' ? null : view} onChange={setQuery} />
      <Chips query={q} counts={grouped ? undefined : counts} onChange={setQuery} aside={<FreshnessNote view={view} />} />
      <PivotBar query={q} instance={view === 'all' ? 'main' : view} />
      {chartsOpen && !grouped && (
        <div className="charts-wrap" aria-busy={stats.loading}>
          {chartInput.stats ? (
            <Suspense
              fallback={
                <div className="charts charts-placeholder">
                  <span className="muted">{t('states.loading')}</span>
                </div>
              }
            >
              <Charts stats={chartInput.stats} statuses={chartFilter.statuses} risks={chartFilter.risks} onPick={pick} span={chartInput.span} />
            </Suspense>
          ) : (
            <div className="charts charts-placeholder">
              {stats.error ? <span className="error">{failureText(stats.error)}</span> : <span className="muted">{t('states.loading')}</span>}
            </div>
          )}
        </div>
      )}
      <StatusLine view={view} source={source} total={total} selection={selection.size} all={!!scope} />
      <div className="incidents-main">
        {q.groupBy ? (
          <GroupedList view={view} query={q} field={q.groupBy} columns={columns} visible={visible} fields={fields} totalKey={groupsKey} onTotal={onGroupsTotal} />
        ) : (
          <ContextMenu label={t('incidents.rowMenu')} entries={ROW_MENU}>
            <div className="table-area">
              <DataTable
                id="incidents"
                label={t('incidents.tableLabel')}
                columns={columns}
                shown={q.columns}
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
                rowClass={(r) => {
                  const key = rowKey(r);
                  const held = pending && ('refs' in pending.target ? pending.target.refs.some((p) => p.key === key) : pending.shownBefore?.has(key));
                  const mark = marks.get(key);
                  return `st-${String(r.status)}${held ? ` is-pending q-${pending.kind}` : ''}${mark ? ` is-queued is-${mark}${kinds.get(key) ?? ''}` : ''}`;
                }}
                version={rowsVersion}
                empty={empty}
              />
            </div>
          </ContextMenu>
        )}
        {detail && <IncidentDetail detail={detail} onClose={closeIncident} />}
      </div>
      <footer className="statusbar">
        <span>{t('incidents.hints')}</span>
      </footer>
    </div>
  );
}
