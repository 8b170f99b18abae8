// A resource's records in the virtualized table, paged on the server (v2 search), on the
// selected instance or merged from all of them.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { fieldOf, getResource, type ResourceDef } from '../../../../src-shared/resources/index';
import { emptySearch, type SearchFilter, type SearchRequest } from '../../../../src-shared/schemas/search';
import { search } from '../../api/radar';
import { DataTable, registerColumns, visibleColumnIds } from '../../components/DataTable';
import { compareRows, MergedSource, PagedSource, type Row, type RowSource } from '../../data/source';
import { useI18n } from '../../i18n';
import { useRefreshOnChanges } from '../../state/changes';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import type { SortKey } from '../incidents/query';
import { recordHref, resourceColumns } from './fields';

/** A list's first order: newest first where records have a creation time. */
export const defaultSorting = (r: ResourceDef): SortKey[] => (fieldOf(r, 'created_at') ? [{ id: 'created_at', desc: true }] : []);

export function ResourceTable(props: {
  resource: string;
  /** 'main', 'all' or an instance id. */
  instance: string;
  tableId: string;
  label: string;
  filters?: SearchFilter[];
  search?: string;
  empty: string;
  onTotal?(total: number | null): void;
  /** The order, when the caller keeps it (the list's export needs it). */
  sorting?: SortKey[];
  onSortingChange?(sorting: SortKey[]): void;
}) {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const list = useInstances((s) => s.list);
  const mainId = useInstances((s) => s.mainId);
  const loaded = useInstances((s) => s.loaded);
  const r = getResource(props.resource);
  const [ownSorting, setOwnSorting] = useState<SortKey[]>(() => defaultSorting(r));
  const sorting = props.sorting ?? ownSorting;
  const setSorting = props.onSortingChange ?? setOwnSorting;
  const columns = useMemo(() => resourceColumns(r, t, lang, props.instance === 'all'), [r, t, lang, props.instance]);
  useEffect(() => registerColumns(props.tableId, columns), [props.tableId, columns]);
  const prefs = useUi((s) => s.columns[props.tableId]);
  const visible = visibleColumnIds(props.tableId, columns, prefs).filter((id) => fieldOf(r, id));
  const include = [...new Set(['id', r.label, ...visible])].sort().join(',');
  const filtersKey = JSON.stringify(props.filters ?? []);
  const text = props.search?.trim() ?? '';
  const instancesKey = props.instance === 'all' ? (loaded ? list.map((i) => i.id).join(',') : 'pending') : '';
  const source = useMemo<RowSource | null>(() => {
    if (!api) return null;
    const req = (limit: number, offset: number): SearchRequest => ({
      ...emptySearch(limit, offset),
      include_fields: include.split(','),
      filters: JSON.parse(filtersKey) as SearchFilter[],
      ordering: sorting.map((s) => ({ field: s.id, direction: s.desc ? 'desc' : 'asc' })),
      virtual_search: { value: text, strict: false },
    });
    const fetcher = (inst: string) => (offset: number, limit: number, signal: AbortSignal) =>
      search(api, targetOf(inst), props.resource, req(limit, offset), signal).catch((e: unknown) => {
        checkAuth(e);
        throw e;
      });
    const key = `${props.resource}|${props.instance}|${include}|${filtersKey}|${text}|${JSON.stringify(sorting)}`;
    if (props.instance === 'all') {
      if (instancesKey === 'pending') return null;
      return new MergedSource(
        key,
        instancesOf('all', { list, mainId }).map((tag) => ({ instance: tag, fetch: fetcher(tag.id) })),
        compareRows(req(0, 0).ordering),
      );
    }
    return new PagedSource(key, fetcher(props.instance), { id: props.instance, name: '' });
    // The instance list matters to the merged list only (instancesKey).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, props.resource, props.instance, include, filtersKey, text, sorting, instancesKey]);
  useEffect(() => () => source?.dispose(), [source]);
  // After data was written (an import, a change), read the rows on screen again.
  useRefreshOnChanges(source);
  const { onTotal } = props;
  useEffect(() => {
    if (!source || !onTotal) return;
    const report = () => onTotal(source.state().total);
    report();
    return source.subscribe(report);
  }, [source, onTotal]);
  const onOpen = useCallback((row: Row) => {
    window.location.hash = recordHref(props.resource, row.id, row._instance.id);
  }, [props.resource]);
  return (
    <DataTable
      id={props.tableId}
      label={props.label}
      columns={columns}
      source={source}
      sorting={sorting}
      onSortingChange={setSorting}
      rowKey={(row) => `${row._instance.id}:${row.id}`}
      onOpen={onOpen}
      empty={<div className="state-empty">{props.empty}</div>}
    />
  );
}
