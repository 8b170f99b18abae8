// The groups of a grouping into very many groups (by title: nearly one group per incident), read
// a page at a time in value order, the order the field's index serves, so that the first page
// costs a few index entries rather than every group counted. Each instance answers the number of
// its groups and of its incidents with its first page; more pages are read as the list scrolls.
// With several instances the pages are merged in value order, and a group is shown only once
// every instance with more to read has read past its value (nothing appears out of order, and
// nothing is skipped). An instance that answers every group at once (a platform without paging)
// is sorted here and counts as read to its end; a remote platform is asked that way (the paging
// parameters are this server's extension).
import { useCallback, useEffect, useRef, useState } from 'react';
import { groupBy, groupPage, type GroupItem, type GroupPageAnswer } from '../../api/radar';
import { INCIDENTS, resolveFor } from '../../data/incidentList';
import type { InstanceTag } from '../../data/source';
import { targetOf } from '../../state/instances';
import { byValueThenInstance, compareValues, mergedOf, type Group, type Part } from './groupOrder';
import { toSearchFilters, type GroupField, type IncidentQuery } from './query';

export type { Group } from './groupOrder';


/** Fields grouped a page at a time: free text, about as many values as incidents. */
export const PAGED_FIELDS: readonly GroupField[] = ['title'];

/** Groups asked per page. */
export const GROUP_PAGE = 200;

export interface PagedGroups {
  /** The groups read so far that can be shown, in value order (null: the first pages of this field and query not answered yet). */
  groups: Group[] | null;
  /** Whether they were read for the current `reload` (not the same list before a write was made). */
  current: boolean;
  /** Every group of every instance, and the incidents they hold (the instances' own numbers). */
  count: number;
  total: number;
  more: boolean;
  loading: boolean;
  error: unknown;
  loadMore(): void;
}

/** The paged groups of the list's query on the view's instances (`enabled` false: nothing asked). */
export function usePagedGroups(o: {
  enabled: boolean;
  api: Parameters<typeof groupPage>[0] | null;
  view: string;
  tags: readonly InstanceTag[];
  field: GroupField;
  query: IncidentQuery;
  /** The instances among `tags` that are remote platforms (asked every group at once). */
  remote: readonly string[];
  /** Names the list (view, field, query, instances): groups read for another are not shown. */
  shape: string;
  /** Changes when the list must be read again (the shape, the data, the clock). */
  reload: string;
}): PagedGroups {
  const [read0, setRead] = useState<{ shape: string; reload: string; parts: Part[] } | null>(null);
  const parts = read0 && read0.shape === o.shape ? read0.parts : null;
  const setParts = (f: (before: Part[]) => Part[]) => setRead((r) => (r ? { ...r, parts: f(r.parts) } : r));
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const ctl = useRef<AbortController | null>(null);
  const current = useRef<Part[] | null>(null);
  current.current = parts;

  const read = useCallback(
    async (tag: InstanceTag, offset: number, signal: AbortSignal): Promise<Omit<Part, 'tag'>> => {
      const filters = toSearchFilters(o.query, resolveFor(o.view, tag.id));
      // A remote platform is asked the spec's request (every group); this server's instances a page.
      const a: GroupPageAnswer = o.remote.includes(tag.id)
        ? { items: await groupBy(o.api!, targetOf(tag.id), INCIDENTS, o.field, filters, signal) }
        : await groupPage(o.api!, targetOf(tag.id), INCIDENTS, o.field, filters, { offset, limit: GROUP_PAGE }, signal);
      const items = a.items.map((i: GroupItem) => ({ instance: tag, value: i.value, count: i.count }));
      if (a.groups === undefined || a.total === undefined) {
        // Every group at once: sorted here, read to its end.
        return { items: items.sort(byValueThenInstance), next: items.length, groups: items.length, total: items.reduce((n, g) => n + g.count, 0), done: true };
      }
      return { items, next: offset + items.length, groups: a.groups, total: a.total, done: offset + items.length >= a.groups || items.length < GROUP_PAGE };
    },
    // o.reload covers the query, field and view.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [o.api, o.reload],
  );

  useEffect(() => {
    setError(null);
    setLoading(false);
    if (!o.enabled || !o.api) return;
    const c = new AbortController();
    ctl.current = c;
    const { shape, reload } = o;
    Promise.all(o.tags.map(async (tag) => ({ tag, ...(await read(tag, 0, c.signal)) }))).then(
      (p) => {
        if (!c.signal.aborted) setRead({ shape, reload, parts: p });
      },
      (e: unknown) => {
        if (!c.signal.aborted) setError(e);
      },
    );
    return () => c.abort();
  }, [o.enabled, o.api, o.tags, read]);

  const loadMore = useCallback(() => {
    const now = current.current;
    const c = ctl.current;
    if (!now || !c || c.signal.aborted || loading) return;
    const open = now.filter((p) => !p.done);
    if (!open.length) return;
    // The instance(s) whose last read value bounds what can be shown.
    const shown = mergedOf(now);
    const last = shown[shown.length - 1];
    const next = open.filter((p) => !last || p.items.length === 0 || compareValues(p.items[p.items.length - 1]!.value, last.value) <= 0);
    setLoading(true);
    Promise.all((next.length ? next : open).map(async (p) => ({ tag: p.tag, page: await read(p.tag, p.next, c.signal) }))).then(
      (pages) => {
        if (c.signal.aborted) return;
        setParts((before) =>
          before.map((p) => {
            const got = pages.find((x) => x.tag.id === p.tag.id)?.page;
            return got ? { ...p, items: [...p.items, ...got.items], next: got.next, groups: got.groups, total: got.total, done: got.done } : p;
          }),
        );
        setLoading(false);
      },
      (e: unknown) => {
        if (c.signal.aborted) return;
        setLoading(false);
        setError(e);
      },
    );
  }, [loading, read]);

  return {
    groups: parts ? mergedOf(parts) : null,
    current: parts !== null && read0!.reload === o.reload,
    count: parts?.reduce((n, p) => n + p.groups, 0) ?? 0,
    total: parts?.reduce((n, p) => n + p.total, 0) ?? 0,
    more: parts?.some((p) => !p.done) ?? false,
    loading,
    error,
    loadMore,
  };
}
