// The incident list's data, derived from the stores: the row source of the current query (one
// instance, or the merged fan-out), the aggregates behind the counts and charts, and the live
// list's check for new incidents. A source is cached by what its rows depend on, so the view and
// the actions reach the same one; its requests resolve the query when they are sent (the
// instant of the last action, the local analyst, what the live list holds back).
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { microsToTs, normalizeTs } from '../../../src-shared/time';
import { isAbort } from '../api/client';
import { mergeStats, search, stats as fetchStats, statsAll, type Page, type Stats } from '../api/radar';
import { localStats } from './localStats';
import { requestLabel } from './lookup';
import { useChanges } from '../state/changes';
import { instancesOf, targetOf, useInstances } from '../state/instances';
import { myGroups } from '../state/people';
import { queuedOverlay, useQueue } from '../state/queue';
import { checkAuth, useSession } from '../state/session';
import { currentQuery, useTriage } from '../state/triage';
import { bucketFor, queryKey, searchText, statsByServer, toSearchFilters, toSearchRequest, toStatsQuery, type IncidentQuery, type Resolve } from '../views/incidents/query';
import { cachedSource, rememberSource } from './listCache';
import { currentRoute } from '../router';
import { useUi } from '../state/ui';
import { openingFields } from './incidentFields';
import { FIRST_ROWS } from './paging';
import { compareRows, MergedSource, PagedSource, type Row, type RowSource } from './source';

export const INCIDENTS = 'service_asset_findings';

export { cachedSource, rowKey } from './listCache';

/**
 * Whether the view's status sort is in workflow order: every instance it reads knows the key
 * (remote platforms do not), so the merged list of "All instances" compares one order.
 */
function statusRankFor(view: string, instance: string): boolean {
  const list = useInstances.getState().list;
  const ids = view === 'all' ? list.map((i) => i.id) : [instance];
  return ids.every((id) => list.find((i) => i.id === id)?.kind !== 'remote');
}

/** What the query is resolved against on one instance, now. */
export function resolveFor(view: string, instance: string): Resolve {
  const t = useTriage.getState();
  return {
    asOf: t.asOf,
    who: { me: useSession.getState().me?.id ?? null, myGroups: myGroups(instance) },
    until: t.hold[view] ?? null,
    statusRank: statusRankFor(view, instance),
  };
}

function whoKey(q: IncidentQuery, view: string): string {
  if (q.owner !== 'me' && q.team !== 'mine') return '';
  const tags = instancesOf(view, useInstances.getState());
  return `${useSession.getState().me?.id ?? ''}|${tags.map((t) => myGroups(t.id).join(',')).join(';')}`;
}

/** The related records an incident row names, by field: their labels are shown in its columns. */
const LABELLED: readonly (readonly [string, string])[] = [
  ['service_asset_id', 'service_assets'],
  ['finding_id', 'findings'],
];

/**
 * Asks the labels of every row of a page as it arrives, in one request per resource: the table
 * lays its rows out in more than one pass (measured, then scrolled), and each pass asking the
 * labels of the rows it shows would be a request of its own.
 */
function askLabels(instance: string, page: Page): void {
  for (const row of page.items) {
    for (const [field, resource] of LABELLED) {
      const id = row[field];
      if (typeof id === 'string' && id) requestLabel(instance, resource, id);
    }
  }
}

/** The rows show the changes waiting for their instance (state/queue.ts), not yet the server's values. */
function withWaiting(instance: string, page: Page): Page {
  const overlay = queuedOverlay(useQueue.getState().entries);
  if (!overlay.size) return page;
  return { ...page, items: page.items.map((r) => { const o = overlay.get(`${instance}:${r.id}`); return o ? { ...r, ...o } : r; }) };
}

/** The incident list of a view for a query and the fields its columns need (cached). */
export function incidentSource(view: string, q: IncidentQuery, fields: readonly string[]): RowSource | null {
  const api = useSession.getState().api;
  const inst = useInstances.getState();
  if (!api) return null;
  if (view === 'all' && !inst.loaded) return null;
  const instancesKey = view === 'all' ? inst.list.map((i) => i.id).join(',') : '';
  const key = `${view}|${instancesKey}|${queryKey(q)}|${fields.join(',')}|${whoKey(q, view)}`;
  const hit = cachedSource(view);
  if (hit && hit.key === key) return hit;
  const fetcher = (instance: string) => (offset: number, limit: number, signal: AbortSignal) =>
    search(api, targetOf(instance), INCIDENTS, toSearchRequest(q, resolveFor(view, instance), fields, limit, offset), signal).then(
      (page) => {
        askLabels(instance, page);
        return withWaiting(instance, page);
      },
      (e: unknown) => {
        checkAuth(e);
        throw e;
      },
    );
  let source: RowSource;
  if (view === 'all') {
    const tags = instancesOf('all', inst);
    source = new MergedSource(key, tags.map((tag) => ({ instance: tag, fetch: fetcher(tag.id) })), compareRows(toSearchRequest(q, resolveFor(view, 'main'), []).ordering));
  } else {
    source = new PagedSource(key, fetcher(view), { id: view, name: '' });
  }
  // The table shows the previous source's rows until the new one answers.
  rememberSource(view, source);
  // The first page is asked now, while the view renders, not once the table has been laid out
  // and painted (the table asks the same rows then: the request is already in flight). A grouped
  // view shows no rows: they are read when the table is shown.
  if (!q.groupBy) source.ensure(0, FIRST_ROWS);
  return source;
}

/**
 * The incident list of the address being opened, made before the console's first render (its
 * first page is then already on its way or in: data/opening.ts), as the view makes it: the view
 * finds it in the cache and draws its rows in its first render when they are in.
 */
export function openIncidentList(): RowSource | null {
  const route = currentRoute();
  if (route.view !== 'incidents') return null;
  const view = useInstances.getState().selected;
  // The list's instance is the one the address names (IncidentsView reads nothing until the selection follows it).
  if ((route.instance ?? 'main') !== view) return null;
  const q = currentQuery();
  return incidentSource(view, q, openingFields(q.columns, useUi.getState().columns.incidents));
}

/** Resolves once the source has answered (or failed), or after `ms`, whichever comes first. */
export function answeredWithin(source: RowSource, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unsub();
      resolve();
    };
    const check = () => {
      const st = source.state();
      if (st.total !== null || st.error !== null || st.failures.length > 0) done();
    };
    const timer = setTimeout(done, ms);
    const unsub = source.subscribe(check);
    check();
  });
}

/** Reads the rows again on every refresh (the button, the live list, a change sent); a list not
 * shown (the view grouped) is read again when it is shown. */
export function useRefreshes(source: RowSource | null, shown = true): void {
  const seq = useTriage((s) => s.seq);
  const changed = useChanges((s) => s.seq);
  const seen = useRef(`${seq}|${changed}`);
  useEffect(() => {
    const now = `${seq}|${changed}`;
    if (shown && seen.current !== now) {
      seen.current = now;
      source?.refresh();
    }
  }, [seq, changed, source, shown]);
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
  error: unknown;
  /** The request the shown stats answer (view, query and resolution). */
  key: string | null;
}

/** The aggregates of the query without its status and risk filters: asked once per user action
 * (a filter, a refresh, a change sent), together with the table's first page (the server reads
 * both at once, the aggregates from kept counts), and shown once the table has answered: the
 * rows are drawn first, the counts and charts after them. */
export function useIncidentStats(view: string, q: IncidentQuery, source: RowSource | null): StatsState {
  const api = useSession((s) => s.api);
  const seq = useTriage((s) => s.seq);
  const asOf = useTriage((s) => s.asOf);
  const until = useTriage((s) => s.hold[view] ?? null);
  const changed = useChanges((s) => s.seq);
  useSession((s) => s.me);
  // A grouped view shows no counts or charts beside its groups: nothing is asked for them.
  const ready = source !== null && !q.groupBy;
  const answered = useAnswered(source);
  const res: Resolve = { ...resolveFor(view, view === 'all' ? 'main' : view), asOf, until };
  const qs = toStatsQuery(q, res, bucketFor(q.range, asOf));
  const key = `${view}|${qs}|${statsByServer(q) ? '' : JSON.stringify([q.rules, q.notRules])}|${seq}|${changed}`;
  const [state, setState] = useState<StatsState>({ stats: null, loading: false, error: null, key: null });
  const started = useRef('');
  const ctl = useRef<AbortController | null>(null);
  // An answer that came before the table's: held until the table has answered.
  const held = useRef<StatsState | null>(null);
  const answeredNow = useRef(answered);
  answeredNow.current = answered;
  useEffect(() => {
    if (!api || started.current === key || !ready) return;
    started.current = key;
    ctl.current?.abort();
    held.current = null;
    const c = (ctl.current = new AbortController());
    setState((s) => ({ ...s, loading: true }));
    // A query the server's aggregates cannot take (rules) is counted here, instance by instance.
    const local = (instance: string) => {
      const r = { ...resolveFor(view, instance), asOf, until };
      return localStats(api, targetOf(instance), toSearchFilters(q, r, { status: true, risk: true }), searchText(q), bucketFor(q.range, asOf), c.signal);
    };
    const req = !statsByServer(q)
      ? Promise.all(instancesOf(view, useInstances.getState()).map((tag) => local(tag.id))).then(mergeStats)
      : view === 'all'
        ? statsAll(api, qs, c.signal).then((r) => r.merged)
        : fetchStats(api, targetOf(view), qs, c.signal);
    req.then(
      (stats) => {
        if (c.signal.aborted) return;
        const next = { stats, loading: false, error: null, key };
        if (answeredNow.current) setState(next);
        else held.current = next;
      },
      (e: unknown) => {
        if (isAbort(e) || c.signal.aborted) return;
        checkAuth(e);
        setState((s) => ({ ...s, loading: false, error: e }));
      },
    );
    // qs and view are part of key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, ready]);
  useEffect(() => {
    if (!answered || !held.current) return;
    const next = held.current;
    held.current = null;
    setState(next);
  }, [answered]);
  useEffect(() => () => ctl.current?.abort(), []);
  return state;
}

const nextMicro = (ts: string): string => {
  const n = normalizeTs(ts) ?? ts;
  return microsToTs(Date.parse(n) * 1000 + Number(n.slice(23, 26)) + 1);
};

/** The newest created_at matching the query on an instance, and how many match after `after`. */
async function newest(view: string, instance: string, q: IncidentQuery, after: string | null, signal: AbortSignal): Promise<{ mark: string | null; count: number }> {
  const api = useSession.getState().api!;
  const res = { ...resolveFor(view, instance), until: null };
  const filters = toSearchFilters(q, res);
  if (after) filters.push({ field: 'created_at', filter_type: 'range', value: [nextMicro(after), null] });
  const page = await search(
    api,
    targetOf(instance),
    INCIDENTS,
    { ...toSearchRequest(q, res, [], 1, 0), include_fields: ['id', 'created_at'], filters, ordering: [{ field: 'created_at', direction: 'desc' }] },
    signal,
  );
  const top = page.items[0]?.created_at;
  return { mark: typeof top === 'string' ? top : after, count: after ? page.total : 0 };
}

/**
 * Whether the list's own rows tell each instance's newest match: sorted newest first (whatever
 * the keys after created_at), or oldest first when every row is in hand; nothing held back.
 */
function orderGivesMark(view: string, q: IncidentQuery): boolean {
  const [sort] = q.sorting;
  return !!sort && sort.id === 'created_at' && !useTriage.getState().hold[view];
}

/**
 * The newest created_at matching the query on each instance of the view, read from the list in
 * hand: undefined when the list cannot say (another order or query, rows held back, a failed
 * instance), 'wait' while its first rows are being read.
 */
function marksInHand(view: string, q: IncidentQuery): Record<string, string | null> | undefined | 'wait' {
  if (!orderGivesMark(view, q)) return undefined;
  const source = cachedSource(view);
  if (!source || !source.key.includes(`|${queryKey(q)}|`)) return undefined;
  const st = source.state();
  if (st.error || st.failures.length) return undefined;
  if (st.total === null) return 'wait';
  const created = (r: Row | null | undefined): string | null | undefined => (r === null ? null : typeof r?.created_at === 'string' ? r.created_at : undefined);
  if (!q.sorting[0]!.desc) {
    // Oldest first: the newest is the last row, in hand when the list is short or scrolled to its end.
    if (view === 'all') return undefined;
    if (st.loading) return 'wait';
    const last = st.total === 0 ? null : source.row(st.total - 1);
    const v = created(last);
    return v === undefined ? undefined : { [view]: v };
  }
  const heads = source.heads();
  if (!heads) return st.loading ? 'wait' : undefined;
  const out: Record<string, string | null> = {};
  for (const [instance, row] of heads) {
    const v = created(row);
    if (v === undefined) return undefined;
    out[instance] = v;
  }
  return out;
}

/**
 * The newest incident of the whole instance (of every instance, for 'all'), read from the list in
 * hand when the list shows every incident in time order (no filter, no text): undefined when the
 * list cannot say (another query or order, rows held back, a grouped list whose rows are not
 * read), 'wait' while its first page is still being read.
 */
export function newestOfInstanceInHand(view: string): string | null | undefined | 'wait' {
  const q = currentQuery();
  const inst = view === 'all' ? 'main' : view;
  if (searchText(q) !== '' || toSearchFilters(q, resolveFor(view, inst)).length > 0) return undefined;
  const source = cachedSource(view);
  // A grouped list does not read its rows: nothing to wait for.
  if (q.groupBy && (!source || source.state().total === null)) return undefined;
  const marks = marksInHand(view, q);
  if (marks === undefined || marks === 'wait') return marks;
  return Object.values(marks).filter((x): x is string => !!x).sort().pop() ?? null;
}

/** Asks each instance of the view for its newest match (the live list's mark). */
function askMarks(view: string, q: IncidentQuery, signal: AbortSignal): Promise<Record<string, string | null>> {
  const tags = instancesOf(view, useInstances.getState());
  return Promise.all(tags.map(async (t) => [t.id, (await newest(view, t.id, q, null, signal)).mark] as const)).then((pairs) => Object.fromEntries(pairs));
}

/**
 * The live list: on its interval, asks each instance whether incidents matching the view arrived
 * since it was read. None: the list refreshes itself (rows, total, chips, charts; the selection,
 * the focus and the open incident stay). Some: they are announced and held back (the rows do
 * not move under the cursor) until the user shows them.
 *
 * The mark (each instance's newest match when the view was read) comes from the list's first
 * rows when its order gives it; otherwise it is asked together with the first page. A grouped
 * view reads no rows and asks nothing beside its groups: its first check takes the mark and
 * reads the groups again (what a check that finds nothing new does).
 */
export function useLiveList(view: string, q: IncidentQuery, answered: boolean): void {
  const live = useTriage((s) => s.live);
  const marks = useTriage((s) => s.marks[view]);
  const api = useSession((s) => s.api);
  const list = useInstances((s) => s.list);
  const qk = queryKey(q);
  const qRef = useRef(q);
  qRef.current = q;
  const grouped = q.groupBy !== null;
  const fromRows = orderGivesMark(view, q);
  const liveOn = live.everyMs > 0 && !live.paused;
  // The mark from the rows in hand, once they are read (the rows of a refresh included).
  useEffect(() => {
    if (!api || marks || grouped || !fromRows || !answered) return;
    const source = cachedSource(view);
    let unsub: (() => void) | null = null;
    const settle = (): boolean => {
      const m = marksInHand(view, qRef.current);
      if (m === 'wait') return false;
      unsub?.();
      unsub = null;
      // The rows cannot say (an instance failed): the first check asks.
      if (m !== undefined) useTriage.getState().setMarks(view, m);
      return true;
    };
    if (!settle() && source) unsub = source.subscribe(() => void settle());
    return () => unsub?.();
  }, [api, view, qk, marks, list, answered, grouped, fromRows]);
  // Another order: the mark is asked with the first page, not after it (when the live list is on;
  // otherwise its first check asks).
  useEffect(() => {
    if (!api || marks || grouped || fromRows || !liveOn) return;
    const ctl = new AbortController();
    askMarks(view, qRef.current, ctl.signal).then(
      (m) => {
        if (!ctl.signal.aborted) useTriage.getState().setMarks(view, m);
      },
      () => {},
    );
    return () => ctl.abort();
  }, [api, view, qk, marks, list, grouped, fromRows, liveOn]);
  useEffect(() => {
    if (!api || !live.everyMs || live.paused) return;
    let ctl: AbortController | null = null;
    const timer = setInterval(() => {
      const t = useTriage.getState();
      const m = t.marks[view];
      const ch = useChanges.getState();
      if (document.hidden || ch.pending || ch.running || ctl) return;
      ctl = new AbortController();
      const signal = ctl.signal;
      if (!m) {
        // No mark yet (a grouped view, or the live list just turned on): take it now and read the
        // view again, so that nothing that arrived since it was read is missed.
        askMarks(view, qRef.current, signal)
          .then((next) => {
            if (signal.aborted) return;
            useTriage.getState().setMarks(view, next);
            if (!useTriage.getState().fresh[view]) useTriage.getState().liveRefresh();
          })
          .catch(() => {})
          .finally(() => {
            ctl = null;
          });
        return;
      }
      const tags = instancesOf(view, useInstances.getState());
      Promise.all(tags.map((tag) => newest(view, tag.id, qRef.current, m[tag.id] ?? null, signal)))
        .then((answers) => {
          if (signal.aborted) return;
          const count = answers.reduce((n, a) => n + a.count, 0);
          if (count > 0) {
            const held = Object.values(m).filter((x): x is string => !!x).sort().pop() ?? null;
            useTriage.getState().announce(view, count, held);
          } else if (!useTriage.getState().fresh[view]) {
            useTriage.getState().liveRefresh();
          }
        })
        .catch(() => {})
        .finally(() => {
          ctl = null;
        });
    }, live.everyMs);
    return () => {
      clearInterval(timer);
      ctl?.abort();
    };
  }, [api, view, qk, live.everyMs, live.paused]);
}
