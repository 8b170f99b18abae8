// The incident list's data: the row source of the current query (one instance, or the merged
// fan-out), and the aggregates behind the counts and charts.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { isAbort } from '../../api/client';
import { search, stats as fetchStats, statsAll, type Stats } from '../../api/radar';
import { compareRows, MergedSource, PagedSource, type RowSource } from '../../data/source';
import { useChanges, useRefreshOnChanges } from '../../state/changes';
import { instancesOf, targetOf, useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { bucketFor, queryKey, toSearchRequest, toStatsQuery, type IncidentQuery } from './query';

const RESOURCE = 'service_asset_findings';

export function useIncidentSource(view: string, q: IncidentQuery, fields: readonly string[]): RowSource | null {
  const api = useSession((s) => s.api);
  const list = useInstances((s) => s.list);
  const mainId = useInstances((s) => s.mainId);
  const loaded = useInstances((s) => s.loaded);
  const fieldsKey = fields.join(',');
  // Only the merged list depends on the instance list; one instance's list starts at once.
  const instancesKey = view === 'all' ? (loaded ? list.map((i) => i.id).join(',') : 'pending') : '';
  const source = useMemo(() => {
    if (!api) return null;
    const key = `${view}|${instancesKey}|${queryKey(q)}|${fieldsKey}`;
    const fetcher = (instance: string) => (offset: number, limit: number, signal: AbortSignal) =>
      search(api, targetOf(instance), RESOURCE, toSearchRequest(q, fields, limit, offset), signal).catch((e: unknown) => {
        checkAuth(e);
        throw e;
      });
    if (view === 'all') {
      if (instancesKey === 'pending') return null;
      const tags = instancesOf('all', { list, mainId });
      const ordering = toSearchRequest(q, []).ordering;
      return new MergedSource(
        key,
        tags.map((tag) => ({ instance: tag, fetch: fetcher(tag.id) })),
        compareRows(ordering),
      );
    }
    return new PagedSource(key, fetcher(view), { id: view, name: '' });
    // q, fields and the instance list are covered by their keys.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, view, instancesKey, queryKey(q), fieldsKey]);
  useEffect(() => () => source?.dispose(), [source]);
  // After a status or risk change, read the wanted rows again (the old ones stay until then).
  useRefreshOnChanges(source);
  return source;
}

/** Whether the source has answered at least once (or failed). */
export function useAnswered(source: RowSource | null): boolean {
  return useSyncExternalStore(
    (cb) => source?.subscribe(cb) ?? (() => {}),
    () => {
      if (!source) return false;
      const st = source.state();
      return st.total !== null || st.error !== null || st.failures.length > 0;
    },
  );
}

export interface StatsState {
  stats: Stats | null;
  loading: boolean;
  error: string | null;
}

/** The aggregates of the query without its status and risk filters; fetched once the table's
 * first page has answered, so the page is never queued behind them. */
export function useIncidentStats(view: string, q: IncidentQuery, source: RowSource | null): StatsState {
  const api = useSession((s) => s.api);
  const seq = useChanges((s) => s.seq);
  const answered = useAnswered(source);
  const qs = toStatsQuery(q, bucketFor(q.range));
  const key = `${view}|${qs}|${seq}`;
  const [state, setState] = useState<StatsState>({ stats: null, loading: false, error: null });
  const started = useRef('');
  const ctl = useRef<AbortController | null>(null);
  useEffect(() => {
    if (!api || started.current === key || !answered) return;
    started.current = key;
    ctl.current?.abort();
    const c = (ctl.current = new AbortController());
    setState((s) => ({ ...s, loading: true }));
    const req = view === 'all' ? statsAll(api, qs, c.signal).then((r) => r.merged) : fetchStats(api, targetOf(view), qs, c.signal);
    req.then(
      (stats) => {
        if (!c.signal.aborted) setState({ stats, loading: false, error: null });
      },
      (e: unknown) => {
        if (isAbort(e) || c.signal.aborted) return;
        checkAuth(e);
        setState((s) => ({ ...s, loading: false, error: e instanceof Error ? e.message : String(e) }));
      },
    );
    // qs and view are part of key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, answered]);
  useEffect(() => () => ctl.current?.abort(), []);
  return state;
}
