// The virtualized, server-paged table: TanStack Table (v9) owns the column model (order,
// visibility, widths, resizing, sorting state; sorting is done by the server); the row window is
// computed from the scroll position, every row being ROW_HEIGHT high (nothing is measured per
// row, so a list of 1,000,000 rows costs what a list of 100 does). Rows come from a RowSource, fetched as the viewport asks for them; the rows of
// the previous query stay on screen until the new query's first page arrives.
import {
  columnOrderingFeature,
  columnResizingFeature,
  columnSizingFeature,
  columnVisibilityFeature,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type ColumnDef,
  type ColumnOrderState,
  type ColumnSizingState,
  type SortingState,
  type Updater,
  type ColumnVisibilityState as VisibilityState,
} from '@tanstack/react-table';
import { memo, useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type MouseEvent, type ReactNode, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import type { Row, RowSource } from '../data/source';
import { failureText } from '../data/source';
import { usePeople } from '../state/people';
import { useUi, type ColumnPrefs } from '../state/ui';
import type { SortKey } from '../views/incidents/query';

export interface ColumnSpec {
  id: string;
  /** Header text (already translated). */
  header: string;
  size?: number;
  minSize?: number;
  sortable?: boolean;
  /** First click sorts descending (dates, numbers). */
  descFirst?: boolean;
  align?: 'left' | 'right' | 'center';
  /** Shown unless the user chose otherwise. */
  defaultVisible?: boolean;
  render(row: Row): ReactNode;
  /** Full text for the cell's tooltip. */
  title?(row: Row): string | undefined;
}

const features = tableFeatures({ columnVisibilityFeature, columnOrderingFeature, columnSizingFeature, columnResizingFeature, rowSortingFeature });
const NO_DATA: Row[] = [];
const NO_PREFS: ColumnPrefs = { visibility: {}, sizing: {}, order: [] };

/** Browsers cap an element's height (Chromium at about 33.5 million pixels). */
const MAX_HEIGHT_PX = 32_000_000;
export const ROW_HEIGHT = 28;
/**
 * Stable keys for the rendered rows: a row keeps its slot while on screen, and a row coming
 * into view takes the slot of one that left, so React updates rows in place while scrolling
 * instead of removing and creating them.
 */
function useSlots(indices: readonly number[]): (index: number) => number {
  const ref = useRef(new Map<number, number>());
  const map = ref.current;
  const wanted = new Set(indices);
  const free: number[] = [];
  for (const [index, slot] of map) {
    if (!wanted.has(index)) {
      map.delete(index);
      free.push(slot);
    }
  }
  free.sort((a, b) => b - a);
  let next = map.size + free.length;
  for (const i of indices) if (!map.has(i)) map.set(i, free.length ? free.pop()! : next++);
  return (index) => map.get(index)!;
}

/** Rows drawn beyond each edge of the viewport. */
const OVERSCAN = 8;

interface WindowItem {
  index: number;
  start: number;
}

/** The rows [first, last) the viewport shows at this scroll position and height, with the overscan. */
export function rowWindow(scrollTop: number, height: number, count: number, overscan = OVERSCAN): [number, number] {
  if (count <= 0) return [0, 0];
  const top = Math.max(0, scrollTop);
  const first = Math.max(0, Math.min(count - 1, Math.floor(top / ROW_HEIGHT)) - overscan);
  const last = Math.min(count, Math.ceil((top + Math.max(0, height)) / ROW_HEIGHT) + overscan);
  return [first, Math.max(first + 1, last)];
}

/** The overscan below the rows: none while the window's height is the page's (see useRowWindow). */
const overscanOf = (v: { measured: boolean }): number => (v.measured ? OVERSCAN : 0);

/**
 * The row window of a scrolling element whose rows are all ROW_HEIGHT high: read from its scroll
 * position (on each scroll event) and its height (a ResizeObserver, which reads no layout). The
 * window's height is the page's until the element's own is known, so the first rows are drawn
 * without forcing a layout; those rows reach the page's bottom edge already (the element lies
 * below the page's header), so they are drawn without the overscan below, which the element's
 * own height brings once the list scrolls.
 */
function useRowWindow(ref: RefObject<HTMLDivElement | null>, count: number): WindowItem[] {
  const [view, setView] = useState<{ top: number; height: number; measured: boolean }>(() => ({ top: 0, height: typeof window === 'undefined' ? 900 : window.innerHeight, measured: false }));
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let height = -1;
    const update = (sync: boolean) => {
      const top = el.scrollTop;
      const h = height < 0 ? undefined : height;
      const apply = () =>
        setView((v) => {
          const next = { top, height: h ?? v.height, measured: h !== undefined };
          const [a0, a1] = rowWindow(v.top, v.height, Number.MAX_SAFE_INTEGER, overscanOf(v));
          const [b0, b1] = rowWindow(next.top, next.height, Number.MAX_SAFE_INTEGER, overscanOf(next));
          // The element's own height arriving smaller than the page's: the rows drawn already
          // cover it, no second render at opening (the next scroll uses the real height).
          if (!sync && next.top === v.top && b0 >= a0 && b1 <= a1) return v;
          return a0 === b0 && a1 === b1 ? v : next;
        });
      // On a scroll the rows are drawn before the frame is painted (no blank frame under the overscan).
      if (sync) flushSync(apply);
      else apply();
    };
    const onScroll = () => update(true);
    el.addEventListener('scroll', onScroll, { passive: true });
    const ro = new ResizeObserver((entries) => {
      const e = entries[entries.length - 1];
      if (!e) return;
      height = e.contentRect.height;
      update(false);
    });
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
    };
  }, [ref]);
  const [first, last] = rowWindow(view.top, view.height, count, overscanOf(view));
  return useMemo(() => {
    const items: WindowItem[] = [];
    for (let i = first; i < last; i++) items.push({ index: i, start: i * ROW_HEIGHT });
    return items;
  }, [first, last]);
}

const resolve = <T,>(u: Updater<T>, old: T): T => (typeof u === 'function' ? (u as (o: T) => T)(old) : u);

const registry = new Map<string, readonly ColumnSpec[]>();
/** The columns of a table on screen, for the column chooser. */
export function registerColumns(table: string, cols: readonly ColumnSpec[]): void {
  registry.set(table, cols);
}
export function columnsOf(table: string): readonly ColumnSpec[] {
  return registry.get(table) ?? [];
}

/** The columns a table shows, in order, after the user's choices. */
export function visibleColumnIds(table: string, specs: readonly ColumnSpec[], prefs: ColumnPrefs | undefined): string[] {
  const p = prefs ?? NO_PREFS;
  const order = [...p.order.filter((id) => specs.some((s) => s.id === id)), ...specs.map((s) => s.id).filter((id) => !p.order.includes(id))];
  void table;
  return order.filter((id) => p.visibility[id] ?? specs.find((s) => s.id === id)?.defaultVisible ?? true);
}

/** Keeps showing the previous source until the new one has answered once. */
function useShownSource(source: RowSource | null): RowSource | null {
  const [shown, setShown] = useState<RowSource | null>(source);
  useEffect(() => {
    if (!source || source === shown) return;
    const ready = () => {
      const st = source.state();
      return st.total !== null || st.error !== null || st.failures.length > 0;
    };
    if (ready() || !shown) {
      setShown(source);
      return;
    }
    source.ensure(0, 60);
    return source.subscribe(() => {
      if (ready()) setShown(source);
    });
  }, [source, shown]);
  return source ? shown : null;
}

export interface DataTableProps {
  /** Key of the column preferences. */
  id: string;
  label: string;
  columns: readonly ColumnSpec[];
  source: RowSource | null;
  sorting: readonly SortKey[];
  onSortingChange?(s: SortKey[]): void;
  rowKey(row: Row): string;
  selected?: { has(key: string): boolean; readonly size: number };
  onToggle?(row: Row, index: number, range: boolean): void;
  /** The header checkbox: select every matching row, or clear. */
  onToggleAll?(): void;
  focusIndex?: number;
  onFocusIndex?(i: number): void;
  activeKey?: string | null;
  onOpen?(row: Row, index: number): void;
  onRowMenu?(row: Row, index: number, e: MouseEvent): void;
  empty: ReactNode;
  /** Extra class on rows. */
  rowClass?(row: Row): string | undefined;
  /** Bumped when something the cells show besides the rows changed (names, held changes). */
  version?: number;
  /** The columns shown, in order, when the caller decides (an address naming them). */
  shown?: readonly string[] | null;
}

interface RowProps {
  row: Row | undefined;
  /** Bumped when what the cells show besides the row changed (people's names, held changes). */
  labels: number;
  index: number;
  start: number;
  cols: readonly ColumnSpec[];
  widths: readonly number[];
  selected: boolean;
  focused: boolean;
  active: boolean;
  selectable: boolean;
  extraClass?: string;
  loadingLabel: string;
  selectLabel: string;
  onToggle(index: number, range: boolean): void;
  onClick(index: number, e: MouseEvent): void;
  onDoubleClick(index: number): void;
  onMenu(index: number, e: MouseEvent): void;
}

const RowView = memo(function RowView(p: RowProps) {
  const cls = ['dt-row', p.selected && 'is-selected', p.focused && 'is-focused', p.active && 'is-active', !p.row && 'is-loading', p.extraClass]
    .filter(Boolean)
    .join(' ');
  return (
    <tr
      role="row"
      className={cls}
      data-index={p.index}
      data-loaded={p.row ? 'true' : 'false'}
      aria-rowindex={p.index + 2}
      aria-selected={p.selectable ? p.selected : undefined}
      style={{ transform: `translateY(${p.start}px)` }}
      onClick={(e) => p.onClick(p.index, e)}
      onDoubleClick={() => p.onDoubleClick(p.index)}
      onContextMenu={(e) => p.onMenu(p.index, e)}
    >
      {p.selectable && (
        <td role="cell" className="dt-cell dt-check" style={{ width: 32 }}>
          {p.row && (
            <input
              type="checkbox"
              tabIndex={-1}
              checked={p.selected}
              aria-label={p.selectLabel}
              onClick={(e) => {
                e.stopPropagation();
                p.onToggle(p.index, e.shiftKey);
              }}
              onChange={() => {}}
            />
          )}
        </td>
      )}
      {p.row
        ? p.cols.map((c, i) => (
            <td role="cell" key={c.id} className={`dt-cell${c.align ? ` align-${c.align}` : ''}`} style={{ width: p.widths[i] }} title={c.title?.(p.row!)}>
              {c.render(p.row!)}
            </td>
          ))
        : p.cols.map((c, i) => (
            <td role="cell" key={c.id} className="dt-cell" style={{ width: p.widths[i] }} aria-label={i === 0 ? p.loadingLabel : undefined}>
              <span className="skeleton" style={{ width: `${40 + ((p.index * 7 + i * 13) % 45)}%` }} />
            </td>
          ))}
    </tr>
  );
});

export function DataTable(props: DataTableProps) {
  const { t, lang } = useI18n();
  const prefs = useUi((s) => s.columns[props.id]);
  const setColumns = useUi((s) => s.setColumns);
  const source = useShownSource(props.source);
  const pending = props.source !== source;
  useSyncExternalStore(
    useCallback((cb) => source?.subscribe(cb) ?? (() => {}), [source]),
    () => source?.version() ?? -1,
  );
  const st = source?.state() ?? null;
  const selectable = !!props.onToggle;
  // (Related records' labels are followed by their own cells: their arrival redraws no row.)
  const labels = usePeople((s) => s.version) * 100_000 + (props.version ?? 0) * 10_000_000;

  // ---- the column model
  const columnDefs = useMemo<ColumnDef<typeof features, Row>[]>(
    () =>
      props.columns.map((c) => ({
        id: c.id,
        // Sorting needs an accessor, though the server does the sorting (manualSorting).
        accessorFn: (row: Row) => row[c.id] as string | number | null,
        header: c.header,
        size: c.size ?? 140,
        minSize: c.minSize ?? 48,
        maxSize: 1200,
        enableSorting: !!c.sortable,
        sortDescFirst: !!c.descFirst,
      })),
    [props.columns],
  );
  const p = prefs ?? NO_PREFS;
  const shownKey = props.shown?.join(',') ?? null;
  const visibility = useMemo<VisibilityState>(() => {
    const v: VisibilityState = {};
    const shown = shownKey === null ? null : shownKey.split(',');
    for (const c of props.columns) v[c.id] = shown ? shown.includes(c.id) : (p.visibility[c.id] ?? c.defaultVisible ?? true);
    return v;
  }, [props.columns, p.visibility, shownKey]);
  const order = useMemo<ColumnOrderState>(() => {
    const first = shownKey === null ? p.order : shownKey.split(',');
    return [...first.filter((id) => props.columns.some((c) => c.id === id)), ...props.columns.map((c) => c.id).filter((id) => !first.includes(id))];
  }, [props.columns, p.order, shownKey]);
  const sorting = useMemo<SortingState>(() => props.sorting.map((s) => ({ id: s.id, desc: s.desc })), [props.sorting]);
  const { onSortingChange } = props;
  const table = useTable({
    features,
    columns: columnDefs,
    data: NO_DATA,
    manualSorting: true,
    enableMultiSort: true,
    enableSortingRemoval: false,
    columnResizeMode: 'onChange',
    state: { sorting, columnVisibility: visibility, columnSizing: p.sizing, columnOrder: order },
    onSortingChange: (u: Updater<SortingState>) => onSortingChange?.(resolve(u, sorting).map((s) => ({ id: s.id, desc: s.desc }))),
    onColumnSizingChange: (u: Updater<ColumnSizingState>) => setColumns(props.id, (cur) => ({ ...cur, sizing: resolve(u, cur.sizing) })),
    onColumnVisibilityChange: (u: Updater<VisibilityState>) => setColumns(props.id, (cur) => ({ ...cur, visibility: resolve(u, visibility) })),
    onColumnOrderChange: (u: Updater<ColumnOrderState>) => setColumns(props.id, (cur) => ({ ...cur, order: resolve(u, order) })),
  });
  const headers = table.getHeaderGroups()[0]?.headers ?? [];
  const specById = useMemo(() => new Map(props.columns.map((c) => [c.id, c])), [props.columns]);
  const cols = useMemo(() => headers.map((h) => specById.get(h.column.id)!).filter(Boolean), [headers, specById]);
  const widthsKey = headers.map((h) => h.getSize()).join(',');
  const widths = useMemo(() => widthsKey.split(',').map(Number), [widthsKey]);
  const totalWidth = widths.reduce((a, b) => a + b, 0) + (selectable ? 32 : 0);

  // ---- the row window
  const scrollRef = useRef<HTMLDivElement>(null);
  const reachable = st?.reachable ?? 0;
  const maxRows = Math.floor(MAX_HEIGHT_PX / ROW_HEIGHT);
  const count = Math.min(reachable, maxRows);
  const items = useRowWindow(scrollRef, count);
  const slotOf = useSlots(items.map((vi) => vi.index));
  const first = items[0]?.index ?? 0;
  const last = items.length ? items[items.length - 1]!.index + 1 : 0;
  // The rows the virtualizer renders (the viewport and its overscan); no layout is read here.
  useEffect(() => {
    if (source) source.ensure(first, Math.max(last, first + 40));
  }, [source, first, last]);

  // A new query starts at the top.
  const sourceKey = source?.key;
  useEffect(() => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
  }, [sourceKey]);

  const { focusIndex, onFocusIndex } = props;
  useEffect(() => {
    if (focusIndex === undefined || focusIndex >= count) return;
    const el = scrollRef.current;
    if (!el) return;
    const top = focusIndex * ROW_HEIGHT;
    const head = 30;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight - head) el.scrollTop = top + ROW_HEIGHT - el.clientHeight + head;
  }, [focusIndex, count]);

  const rowAt = (i: number) => source?.row(i);
  const onToggleRow = useCallback(
    (i: number, range: boolean) => {
      const r = source?.row(i);
      if (r) props.onToggle?.(r, i, range);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source, props.onToggle],
  );
  const onClickRow = useCallback(
    (i: number, e: MouseEvent) => {
      onFocusIndex?.(i);
      const r = source?.row(i);
      if (!r) return;
      if (selectable && (e.ctrlKey || e.metaKey || e.shiftKey)) props.onToggle?.(r, i, e.shiftKey);
      else props.onOpen?.(r, i);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source, onFocusIndex, selectable, props.onOpen, props.onToggle],
  );
  const onDouble = useCallback(
    (i: number) => {
      const r = source?.row(i);
      if (r) props.onOpen?.(r, i);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source, props.onOpen],
  );
  const onMenu = useCallback(
    (i: number, e: MouseEvent) => {
      const r = source?.row(i);
      if (r && props.onRowMenu) {
        // The menu itself (a Radix context menu around the table) takes the event.
        onFocusIndex?.(i);
        props.onRowMenu(r, i, e);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source, props.onRowMenu, onFocusIndex],
  );

  const total = st?.total ?? null;
  const initialLoading = !source || (total === null && !st?.error && (st?.failures.length ?? 0) === 0);
  const showError = !!st?.error && count === 0;
  const showEmpty = total === 0 && !st?.error;
  // The table's words, translated once per language and columns (not at each frame of a scroll).
  const words = useMemo(
    () => ({
      loading: t('states.loading'),
      selectRow: t('table.selectRow'),
      selectAll: t('table.selectAll'),
      sortHint: t('table.sortHint'),
      notSortable: new Map(props.columns.map((c) => [c.id, t('table.notSortable', { column: c.header })])),
      resize: new Map(props.columns.map((c) => [c.id, t('table.resize', { column: c.header })])),
    }),
    [t, props.columns],
  );
  const loadingLabel = words.loading;
  const selectLabel = words.selectRow;
  const selectedCount = props.selected?.size ?? 0;
  const allSelected = selectable && total !== null && total > 0 && selectedCount >= total;
  const someSelected = selectable && selectedCount > 0 && !allSelected;
  const headCheck = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (headCheck.current) headCheck.current.indeterminate = someSelected;
  }, [someSelected]);

  return (
    <div className="dt" aria-busy={initialLoading || pending || st?.loading ? 'true' : 'false'}>
      {/* Focusable, so the keyboard stays on the list: Enter opens the row under the cursor. */}
      <div className="dt-scroll" ref={scrollRef} data-testid={`${props.id}-scroll`} tabIndex={0} role="group" aria-label={props.label}>
        <table className="dt-table" aria-label={props.label} aria-rowcount={total === null ? -1 : total + 1} style={{ width: totalWidth }}>
          <thead className="dt-head">
            <tr role="row">
              {selectable && (
                <th role="columnheader" className="dt-th dt-check" style={{ width: 32 }}>
                  {props.onToggleAll && (
                    <input
                      ref={headCheck}
                      type="checkbox"
                      checked={allSelected}
                      aria-checked={someSelected ? 'mixed' : allSelected}
                      aria-label={words.selectAll}
                      onChange={() => props.onToggleAll?.()}
                    />
                  )}
                </th>
              )}
              {headers.map((h) => {
                const sorted = h.column.getIsSorted();
                const canSort = h.column.getCanSort();
                const spec = specById.get(h.column.id);
                const sortIndex = sorting.length > 1 && sorted ? h.column.getSortIndex() + 1 : null;
                return (
                  <th
                    role="columnheader"
                    key={h.id}
                    className={`dt-th${spec?.align ? ` align-${spec.align}` : ''}`}
                    style={{ width: h.getSize() }}
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    {canSort ? (
                      <button type="button" className="dt-sort" onClick={h.column.getToggleSortingHandler()} title={words.sortHint}>
                        <span className="dt-th-label">{spec?.header}</span>
                        <span className="dt-sort-mark" aria-hidden="true">
                          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : ''}
                          {sortIndex ?? ''}
                        </span>
                      </button>
                    ) : (
                      <span className="dt-th-label" title={words.notSortable.get(h.column.id) ?? t('table.notSortable', { column: spec?.header ?? '' })}>
                        {spec?.header}
                      </span>
                    )}
                    <div
                      className={`dt-resizer${h.column.getIsResizing() ? ' is-resizing' : ''}`}
                      role="separator"
                      aria-orientation="vertical"
                      aria-label={words.resize.get(h.column.id) ?? t('table.resize', { column: spec?.header ?? h.column.id })}
                      onMouseDown={h.getResizeHandler()}
                      onTouchStart={h.getResizeHandler()}
                      onDoubleClick={() => h.column.resetSize()}
                    />
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody className="dt-body" style={{ height: initialLoading ? 12 * ROW_HEIGHT : count * ROW_HEIGHT }}>
            {initialLoading
              ? Array.from({ length: 12 }, (_, i) => (
                  <RowView
                    key={`l${i}`}
                    row={undefined}
                    labels={0}
                    index={i}
                    start={i * ROW_HEIGHT}
                    cols={cols}
                    widths={widths}
                    selected={false}
                    focused={false}
                    active={false}
                    selectable={selectable}
                    loadingLabel={loadingLabel}
                    selectLabel={selectLabel}
                    onToggle={onToggleRow}
                    onClick={onClickRow}
                    onDoubleClick={onDouble}
                    onMenu={onMenu}
                  />
                ))
              : items.map((vi) => {
                  const row = rowAt(vi.index);
                  const key = row ? props.rowKey(row) : '';
                  return (
                    <RowView
                      // Slots are reused as rows scroll by: React updates a row in place
                      // instead of removing one and creating another.
                      key={slotOf(vi.index)}
                      row={row}
                      labels={labels}
                      index={vi.index}
                      start={vi.start}
                      cols={cols}
                      widths={widths}
                      selected={!!row && !!props.selected?.has(key)}
                      focused={props.focusIndex === vi.index}
                      active={!!row && props.activeKey === key}
                      selectable={selectable}
                      extraClass={row ? props.rowClass?.(row) : undefined}
                      loadingLabel={loadingLabel}
                      selectLabel={selectLabel}
                      onToggle={onToggleRow}
                      onClick={onClickRow}
                      onDoubleClick={onDouble}
                      onMenu={onMenu}
                    />
                  );
                })}
          </tbody>
        </table>
        {showEmpty && <div className="dt-overlay">{props.empty}</div>}
        {showError && (
          <div className="dt-overlay" role="alert">
            <div className="state-error">
              <strong>{t('states.errorTitle')}</strong>
              <span>{failureText(st!.error!)}</span>
              <button type="button" onClick={() => source?.refresh()}>
                {t('states.retry')}
              </button>
            </div>
          </div>
        )}
      </div>
      {(st?.failures.length ?? 0) > 0 && !showError && (
        <div className="dt-failures" role="status">
          {st!.failures.map((f) => (
            <span key={f.instance.id}>{t('table.instanceFailed', { name: f.instance.name, error: failureText(f.error) })}</span>
          ))}
        </div>
      )}
      {reachable > maxRows && (
        <div className="dt-failures" role="status">
          {t('table.capped', { shown: formatNumber(lang, maxRows) })}
        </div>
      )}
      {(pending || (st?.loading ?? false)) && <div className="dt-progress" aria-hidden="true" />}
    </div>
  );
}
