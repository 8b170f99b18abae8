// The incident list grouped by a field (finding type, asset, status, owner, group, title) with
// the count of each group (the resource's `group` operation, over the list's filters). A group
// opens to its incidents; a whole group can be selected and acted on (repeated alerts become one
// line with a count). Groupings into a bounded number of groups (statuses, owners, groups,
// finding types, assets) come whole, the largest first. A title is nearly one group per incident
// (hundreds of thousands at a million incidents): its groups come a page at a time in title
// order, the order an index serves without counting every group, more of them as the list
// scrolls, with the number of groups and incidents from the first page (groupPages.ts).
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { openIncident, refOf } from '../../actions/incidents';
import { groupBy, search, type GroupItem } from '../../api/radar';
import { StatusPill } from '../../components/Badges';
import { DataTable, type ColumnSpec } from '../../components/DataTable';
import { RecordLabel } from '../../components/Label';
import { INCIDENTS, resolveFor } from '../../data/incidentList';
import { rowKey } from '../../data/listCache';
import { failureText, PagedSource } from '../../data/source';
import { useI18n } from '../../i18n';
import { formatNumber } from '../../i18n/format';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { groupName, personName, usePeople } from '../../state/people';
import { useSession } from '../../state/session';
import { announce } from '../../actions/notices';
import { EMPTY_SELECTION, scopeSelection, useTriage } from '../../state/triage';
import { toSearchFilters, toSearchRequest, queryKey, type GroupField, type IncidentQuery } from './query';
import type { SearchFilter } from '../../../../src-shared/schemas/search';
import { displayName } from '../../lib/instanceName';

import { PAGED_FIELDS, usePagedGroups, type Group } from './groupPages';


const valueFilter = (field: GroupField, value: unknown): SearchFilter =>
  value === null || value === undefined ? { field, filter_type: 'exists', value: null } : { field, filter_type: 'equal', value: value as string };

function GroupLabel({ field, g }: { field: GroupField; g: Group }) {
  const { t } = useI18n();
  usePeople((s) => s.version);
  const v = g.value === null || g.value === undefined ? null : String(g.value);
  if (v === null) return <span className="muted">{t(`groups.empty.${field}`)}</span>;
  switch (field) {
    case 'finding_id':
      return <RecordLabel instance={g.instance.id} resource="findings" id={v} />;
    case 'service_asset_id':
      return <RecordLabel instance={g.instance.id} resource="service_assets" id={v} />;
    case 'status':
      return <StatusPill status={v} label={t(`status.${v}`, { defaultValue: v })} />;
    case 'user_id':
      return <span>{personName(g.instance.id, v, true) ?? v}</span>;
    case 'group_id':
      return <span>{groupName(g.instance.id, v) ?? v}</span>;
    case 'title':
      return <span>{v}</span>;
  }
}

/** Groups drawn whole up to this many (the page's find and the screen reader see every one); more are drawn as they scroll into view. */
const DRAWN_WHOLE = 100;
/** A closed group's height and the gap after it (px), until measured. */
const GROUP_HEIGHT = 40;
const GROUP_GAP = 4;

export function GroupedList(props: {
  view: string;
  query: IncidentQuery;
  field: GroupField;
  columns: readonly ColumnSpec[];
  visible: string[];
  fields: string[];
  /** Names the grouping the total is of (view, field, query). */
  totalKey: string;
  /** The sum of the groups once they have answered (the header's total). */
  onTotal: (key: string, total: number) => void;
}) {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const list = useInstances((s) => s.list);
  const mainId = useInstances((s) => s.mainId);
  const seq = useTriage((s) => s.seq);
  const asOf = useTriage((s) => s.asOf);
  const paged = PAGED_FIELDS.includes(props.field);
  const [whole, setGroups] = useState<Group[] | null>(null);
  const [wholeError, setError] = useState<unknown>(null);
  const [open, setOpen] = useState<string | null>(null);
  const qk = queryKey(props.query);
  // The instances grouped, by id: the instance list arriving (names, health) asks nothing again.
  const tagIds = instancesOf(props.view, { list, mainId })
    .map((tag) => tag.id)
    .join(',');
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const tags = useMemo(() => instancesOf(props.view, { list, mainId }), [props.view, tagIds]);
  useEffect(() => {
    if (!api || paged) return;
    const ctl = new AbortController();
    setError(null);
    Promise.all(
      tags.map(async (tag) => {
        const items: GroupItem[] = await groupBy(api, targetOf(tag.id), INCIDENTS, props.field, toSearchFilters(props.query, resolveFor(props.view, tag.id)), ctl.signal);
        return items.map((i) => ({ instance: tag, value: i.value, count: i.count }));
      }),
    ).then(
      (parts) => {
        if (ctl.signal.aborted) return;
        const all = parts.flat().sort((a, b) => b.count - a.count);
        setGroups(all);
        props.onTotal(props.totalKey, all.reduce((n, g) => n + g.count, 0));
      },
      (e: unknown) => {
        if (!ctl.signal.aborted) setError(e);
      },
    );
    return () => ctl.abort();
    // qk covers the query.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, tags, props.field, qk, seq, asOf, paged]);

  // Which instances are remote platforms is known once the instance list has loaded (an address naming one may open first).
  const loaded = useInstances((s) => s.loaded);
  const remoteIds = tags.filter((x) => x.id !== 'main' && list.find((i) => i.id === x.id)?.kind === 'remote').map((x) => x.id);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const remote = useMemo(() => remoteIds, [remoteIds.join(',')]);
  const kindsKnown = loaded || tags.every((x) => x.id === 'main');
  const shape = `${props.view}|${props.field}|${tags.map((x) => x.id).join(',')}|${remote.join(',')}|${qk}`;
  const pages = usePagedGroups({ enabled: paged && kindsKnown, api, view: props.view, tags, remote, field: props.field, query: props.query, shape, reload: `${shape}|${seq}|${asOf}` });
  useEffect(() => {
    if (paged && pages.current) props.onTotal(props.totalKey, pages.total);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [paged, pages.current, pages.total, props.totalKey]);

  const groups = paged ? pages.groups : whole;
  const error = paged ? pages.error : wholeError;
  const keyOf = (g: Group) => `${g.instance.id}|${JSON.stringify(g.value)}`;
  // Every group and incident: a paged grouping's as its instances counted them, a whole one's summed here.
  const count = paged ? pages.count : (groups?.length ?? 0);
  const total = paged ? pages.total : (groups?.reduce((n, g) => n + g.count, 0) ?? null);
  // A row after the groups read so far while more remain: in view, it asks the next page.
  const more = paged && pages.more;

  // A group is selected whole, whatever its size: the list's query and the group's value.
  const selectGroup = (g: Group) => {
    const t0 = useTriage.getState();
    t0.selectScope(props.view, { query: props.query, extra: [valueFilter(props.field, g.value)], only: props.view === 'all' ? g.instance.id : undefined, asOf: t0.asOf, until: t0.hold[props.view] ?? null, total: g.count });
    announce('info', 'notices.selectedAll', { count: g.count });
  };

  const scrollRef = useRef<HTMLDivElement>(null);
  const windowed = paged || (groups?.length ?? 0) > DRAWN_WHOLE;
  const virtualizer = useVirtualizer({
    count: windowed && groups ? groups.length + (more ? 1 : 0) : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => GROUP_HEIGHT + GROUP_GAP,
    getItemKey: (i) => (groups?.[i] ? keyOf(groups[i]!) : `more-${i}`),
    overscan: 10,
  });
  const drawn = virtualizer.getVirtualItems();
  const lastDrawn = drawn[drawn.length - 1]?.index ?? -1;
  const { loadMore, loading } = pages;
  useEffect(() => {
    if (more && !loading && groups && lastDrawn >= groups.length - 20) loadMore();
  }, [more, loading, groups, lastDrawn, loadMore]);

  if (error) return <p className="error pad" role="alert">{failureText(error)}</p>;
  if (!groups) return <p className="muted pad">{t('states.loading')}</p>;
  const groupAt = (g: Group, i: number) => {
    const k = keyOf(g);
    const isOpen = open === k;
    return (
      <div key={k} role="listitem" aria-posinset={windowed ? i + 1 : undefined} aria-setsize={windowed ? count : undefined} className={`group${isOpen ? ' is-open' : ''}`} data-testid="group">
        <div className="group-head">
          <button type="button" className="group-toggle" aria-expanded={isOpen} onClick={() => setOpen(isOpen ? null : k)}>
            <span className="caret" aria-hidden="true">
              {isOpen ? '▾' : '▸'}
            </span>
            <span className="group-label">
              <GroupLabel field={props.field} g={g} />
            </span>
            {props.view === 'all' && <span className="tag">{displayName(g.instance, t)}</span>}
            <span className="count-pill" data-testid="group-count">
              {formatNumber(lang, g.count)}
            </span>
          </button>
          <button type="button" className="ghost" onClick={() => selectGroup(g)} title={t('groups.selectHint')}>
            {t('groups.select', { count: g.count, n: formatNumber(lang, g.count) })}
          </button>
        </div>
        {isOpen && <GroupRows view={props.view} query={props.query} field={props.field} group={g} columns={props.columns} visible={props.visible} fields={props.fields} />}
      </div>
    );
  };
  return (
    <div
      ref={scrollRef}
      className="groups"
      role="list"
      aria-label={t('groups.label', { field: t(`groups.fields.${props.field}`) })}
      data-groups={count}
      data-sum={total ?? 0}
      aria-busy={paged && loading}
    >
      <p className="muted small groups-total" data-testid="groups-total">
        {t(`groups.summaryOf.${props.field}`, { count, n: formatNumber(lang, count), total: formatNumber(lang, total ?? 0) })}
        {paged && count > 0 && <span className="groups-order"> {t('groups.byValue')}</span>}
      </p>
      {!groups.length && <div className="state-empty">{t('incidents.emptyFiltered')}</div>}
      {windowed ? (
        // Many groups (5,000 assets): only the ones in view are drawn, each measured as drawn (an
        // open group is taller).
        <div style={{ position: 'relative', flex: 'none', height: virtualizer.getTotalSize() }}>
          {drawn.map((vi) => (
            <div key={vi.key} data-index={vi.index} ref={virtualizer.measureElement} style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${vi.start}px)`, paddingBottom: GROUP_GAP }}>
              {groups[vi.index] ? groupAt(groups[vi.index]!, vi.index) : <p className="muted pad" role="status">{t('states.loading')}</p>}
            </div>
          ))}
        </div>
      ) : (
        groups.map((g, i) => groupAt(g, i))
      )}
    </div>
  );
}

function GroupRows(props: { view: string; query: IncidentQuery; field: GroupField; group: Group; columns: readonly ColumnSpec[]; visible: string[]; fields: string[] }) {
  const { t } = useI18n();
  const api = useSession((s) => s.api);
  const rows = useTriage((s) => s.selection[props.view]) ?? EMPTY_SELECTION;
  const scope = useTriage((s) => s.scope[props.view]) ?? null;
  const { group: g0 } = props;
  // The group selected whole shows every row selected (but the ones unselected since); another group none.
  const selection = useMemo(() => {
    if (!scope) return rows;
    const mine = JSON.stringify(scope.extra) === JSON.stringify([valueFilter(props.field, g0.value)]) && (!scope.only || scope.only === g0.instance.id);
    return mine ? scopeSelection(scope) : EMPTY_SELECTION;
  }, [scope, rows, props.field, g0]);
  const detail = useTriage((s) => s.detail);
  const { group: g } = props;
  const source = useMemo(() => {
    if (!api) return null;
    return new PagedSource(
      `group|${g.instance.id}|${JSON.stringify(g.value)}|${queryKey(props.query)}`,
      (offset, limit, signal) => {
        const res = resolveFor(props.view, g.instance.id);
        return search(
          api,
          targetOf(g.instance.id),
          INCIDENTS,
          { ...toSearchRequest(props.query, res, props.fields, limit, offset), filters: [...toSearchFilters(props.query, res), valueFilter(props.field, g.value)] },
          signal,
        );
      },
      g.instance,
      { pageSize: 50 },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, g.instance.id, JSON.stringify(g.value), queryKey(props.query), props.fields.join(',')]);
  useEffect(() => () => source?.dispose(), [source]);
  return (
    <div className="group-rows" style={{ height: Math.min(g.count, 10) * 28 + 34 }}>
      <DataTable
        id="incidents"
        label={t('groups.rows')}
        columns={props.columns}
        shown={props.visible}
        source={source}
        sorting={props.query.sorting}
        rowKey={rowKey}
        selected={selection}
        onToggle={(row) => useTriage.getState().toggle(props.view, refOf(row))}
        activeKey={detail?.key ?? null}
        onOpen={(row) => openIncident(refOf(row))}
        empty={<div className="state-empty">{t('states.nothingFound')}</div>}
      />
    </div>
  );
}
