// How fresh the data is, so that stale data never looks like a quiet day: when the newest incident
// of the instances shown arrived, how many arrived since the analyst's last visit, and, for a
// relative range that matches nothing, when the newest incident matching the rest of the query is
// from and a range that holds it.
import { useEffect, useState } from 'react';
import { emptySearch, type SearchFilter } from '../../../src-shared/schemas/search';
import { microsToTs } from '../../../src-shared/time';
import { search } from '../api/radar';
import { useChanges } from '../state/changes';
import { instancesOf, targetOf, useInstances } from '../state/instances';
import { useSession } from '../state/session';
import { useTriage } from '../state/triage';
import { RANGE_PRESETS, rangeBounds, searchText, toSearchFilters, type IncidentQuery, type RangePreset, type TimeRange } from '../views/incidents/query';
import { newestOfInstanceInHand, resolveFor } from './incidentList';
import { subscribeLists } from './listCache';

const INCIDENTS = 'service_asset_findings';
const VISIT_KEY = 'radar-console.visit.';

/** The newest created_at among incidents matching `filters` on the view's instances (null: none). */
async function newestOf(view: string, filters: (instance: string) => SearchFilter[], text: string, signal: AbortSignal): Promise<string | null> {
  const api = useSession.getState().api!;
  const tags = instancesOf(view, useInstances.getState());
  const found = await Promise.all(
    tags.map(async (tag) => {
      const page = await search(
        api,
        targetOf(tag.id),
        INCIDENTS,
        { ...emptySearch(1), include_fields: ['id', 'created_at'], filters: filters(tag.id), ordering: [{ field: 'created_at', direction: 'desc' }], virtual_search: { value: text, strict: false } },
        signal,
      ).catch(() => null);
      const v = page?.items[0]?.created_at;
      return typeof v === 'string' ? v : null;
    }),
  );
  return found.filter((x): x is string => !!x).sort().pop() ?? null;
}

/**
 * The newest incident of the view's instances: from the list's first page when the list shows
 * every incident newest first (waiting for that page rather than asking the same question
 * twice), otherwise asked of each instance.
 */
function newestOfInstance(view: string, signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let unsub: (() => void) | null = null;
    const settle = (): boolean => {
      const inHand = newestOfInstanceInHand(view);
      if (inHand === 'wait') return false;
      unsub?.();
      signal.removeEventListener('abort', onAbort);
      if (inHand !== undefined) resolve(inHand);
      else newestOf(view, () => [], '', signal).then(resolve, reject);
      return true;
    };
    const onAbort = () => {
      unsub?.();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort);
    if (!settle()) unsub = subscribeLists(() => void settle());
  });
}

/** How many incidents of the view's instances arrived after `since` (ms). */
async function countSince(view: string, since: number, signal: AbortSignal): Promise<number> {
  const api = useSession.getState().api!;
  const tags = instancesOf(view, useInstances.getState());
  const from = microsToTs(since * 1000);
  const totals = await Promise.all(
    tags.map((tag) =>
      search(api, targetOf(tag.id), INCIDENTS, { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'created_at', filter_type: 'range', value: [from, null] }] }, signal).then(
        (p) => p.total,
        () => 0,
      ),
    ),
  );
  return totals.reduce((a, b) => a + b, 0);
}

/** The last visit of each view before this page was opened (ms), read once. */
const previousVisit = new Map<string, number | null>();

function lastVisit(view: string): number | null {
  if (!previousVisit.has(view)) {
    const v = Number(localStorage.getItem(VISIT_KEY + view));
    previousVisit.set(view, Number.isFinite(v) && v > 0 ? v : null);
  }
  return previousVisit.get(view)!;
}

/** Remembers that the view's list is being seen now (the next visit counts from here). */
function markVisit(view: string): void {
  lastVisit(view);
  try {
    localStorage.setItem(VISIT_KEY + view, String(Date.now()));
  } catch {
    // Storage full: the next visit has no "new since" line; nothing else depends on it.
  }
}

export interface Freshness {
  /** The newest incident of the view's instances (whatever the filters). */
  newest: string | null;
  /** The analyst's previous visit to this view and the incidents created since. */
  visit: { at: number; count: number } | null;
}

/** When the newest incident arrived and how many arrived since the last visit; read again on every refresh. */
export function useFreshness(view: string): Freshness {
  const api = useSession((s) => s.api);
  const seq = useTriage((s) => s.seq);
  const changed = useChanges((s) => s.seq);
  const loaded = useInstances((s) => s.loaded);
  const [state, setState] = useState<Freshness>({ newest: null, visit: null });
  useEffect(() => {
    if (!api || !loaded) return;
    const ctl = new AbortController();
    const prev = lastVisit(view);
    Promise.all([newestOfInstance(view, ctl.signal), prev ? countSince(view, prev, ctl.signal) : Promise.resolve(0)]).then(
      ([newest, count]) => {
        if (!ctl.signal.aborted) setState({ newest, visit: prev ? { at: prev, count } : null });
      },
      () => {},
    );
    return () => ctl.abort();
  }, [api, view, seq, changed, loaded]);
  // The visit is counted from when the list was last on screen.
  useEffect(() => {
    markVisit(view);
    const timer = setInterval(() => !document.hidden && markVisit(view), 60_000);
    const onHide = () => markVisit(view);
    window.addEventListener('pagehide', onHide);
    return () => {
      clearInterval(timer);
      window.removeEventListener('pagehide', onHide);
      markVisit(view);
    };
  }, [view]);
  return state;
}

const DAY = 86_400_000;
const PRESET_DAYS: Record<Exclude<RangePreset, 'all'>, number> = { '24h': 1, '7d': 7, '30d': 30, '90d': 90, '1y': 365 };

/**
 * For a relative range that matches nothing: the newest incident matching the rest of the query,
 * and the smallest preset range that holds it (else a custom range of the same length ending the
 * day after it). null while not asked, or when the range is not relative or matches something.
 */
export function useEmptyRangeHint(view: string, q: IncidentQuery, total: number | null): { newest: string; range: TimeRange } | null | 'none' {
  const api = useSession((s) => s.api);
  const asOf = useTriage((s) => s.asOf);
  const [hint, setHint] = useState<{ key: string; value: { newest: string; range: TimeRange } | 'none' } | null>(null);
  const relative = q.range.preset !== 'all' && q.range.preset !== 'custom';
  const key = JSON.stringify([view, q.statuses, q.risks, q.assets, q.findings, q.owner, q.team, q.search, q.range, asOf]);
  useEffect(() => {
    if (!api || !relative || total !== 0) return;
    const ctl = new AbortController();
    const rest: IncidentQuery = { ...q, range: { preset: 'all' } };
    newestOf(view, (instance) => toSearchFilters(rest, resolveFor(view, instance)), searchText(q), ctl.signal).then((newest) => {
      if (ctl.signal.aborted) return;
      if (!newest) return setHint({ key, value: 'none' });
      const at = Date.parse(newest);
      const preset = RANGE_PRESETS.find((p): p is Exclude<RangePreset, 'all'> => p !== 'all' && rangeBounds({ preset: p }, asOf).from! <= newest);
      if (preset) return setHint({ key, value: { newest, range: { preset } } });
      const days = PRESET_DAYS[q.range.preset as Exclude<RangePreset, 'all'>];
      const end = new Date(at);
      end.setHours(0, 0, 0, 0);
      const to = end.getTime() + DAY;
      setHint({ key, value: { newest, range: { preset: 'custom', from: microsToTs((to - Math.max(days, 1) * DAY) * 1000), to: microsToTs(to * 1000) } } });
    }, () => {});
    return () => ctl.abort();
    // key covers the query.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, relative, total]);
  if (!relative || total !== 0 || !hint || hint.key !== key) return null;
  return hint.value;
}
