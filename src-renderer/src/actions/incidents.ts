// Triage actions: moving through the list, selecting, opening, changing status, risk, owner and
// group, undo, refresh, the live list, the quick filters. Each reads the stores' snapshot.
import { search } from '../api/radar';
import { failureText, type Row } from '../data/source';
import { i18n } from '../i18n';
import { navigate } from '../router';
import { useChanges } from '../state/changes';
import { instancesOf, targetOf, useInstances } from '../state/instances';
import { personName } from '../state/people';
import { checkAuth, useSession } from '../state/session';
import { useTriage, type RowRef } from '../state/triage';
import { useUi } from '../state/ui';
import { emptyQuery, incidentNumber, isFiltered, toSearchRequest, type IncidentQuery } from '../views/incidents/query';
import { announce } from './notices';
import type { Action, AppState } from './types';

const INCIDENTS = 'service_asset_findings';

/** Largest selection "select all matching" makes per instance (the search limit). */
export const SELECT_ALL_MAX = 10_000;

export const refOf = (r: Row): RowRef => ({
  key: `${r._instance.id}:${r.id}`,
  id: r.id,
  instance: r._instance,
  status: String(r.status ?? ''),
  risklevel: typeof r.risklevel === 'number' ? r.risklevel : Number(r.risklevel ?? 0),
  title: (r.title as string | null) ?? null,
  display_id: (r.display_id as number | null) ?? null,
  user_id: (r.user_id as string | null | undefined) ?? null,
  group_id: (r.group_id as string | null | undefined) ?? null,
});

const onList = (s: AppState) => s.signedIn && s.route.view === 'incidents';
const grouped = (s: AppState) => s.query.groupBy !== null;
const focusedRow = (s: AppState) => s.source?.row(s.focus);

/** The incidents an action works on: the selection, else the open one, else the focused one. */
export function targets(s: AppState): RowRef[] {
  if (s.selection.size) return [...s.selection.values()];
  if (s.detail) return [s.detail];
  const row = grouped(s) ? undefined : focusedRow(s);
  return row ? [refOf(row)] : [];
}

const withTargets = (s: AppState) => onList(s) && !s.busy && targets(s).length > 0;

/** Opens an incident: the detail panel follows the address (front_link opens it too). */
export function openIncident(ref: RowRef): void {
  const t = useTriage.getState();
  const wasOpen = t.detail !== null;
  t.openDetail(ref);
  navigate({ view: 'incidents', id: ref.id, instance: ref.instance.id === 'main' ? undefined : ref.instance.id, params: paramsNow() }, wasOpen);
}

function paramsNow(): string | undefined {
  const h = window.location.hash;
  const i = h.indexOf('?');
  if (i < 0) return undefined;
  const p = new URLSearchParams(h.slice(i + 1));
  p.delete('instance');
  const s = p.toString().replace(/%2C/gi, ',');
  return s || undefined;
}

export function closeIncident(): void {
  useTriage.getState().openDetail(null);
  navigate({ view: 'incidents', params: paramsNow() });
}

function move(s: AppState, delta: number): void {
  const max = (s.source?.state().reachable ?? 0) - 1;
  if (max < 0) return;
  const next = Math.min(max, Math.max(0, s.focus + delta));
  useTriage.getState().setFocus(s.view, next);
  const row = s.source?.row(next);
  if (row && s.detail) openIncident(refOf(row));
}

export const setQuery = (update: (q: IncidentQuery) => IncidentQuery): void => useTriage.getState().setQuery(update);

/** Opens the incident with this number (`#398`) on the instance shown (the first that has it). */
export async function jumpTo(n: number): Promise<boolean> {
  const api = useSession.getState().api;
  if (!api) return false;
  const tags = instancesOf(useInstances.getState().selected, useInstances.getState());
  for (const tag of tags) {
    try {
      const page = await search(api, targetOf(tag.id), INCIDENTS, {
        ...toSearchRequest(emptyQuery(), { asOf: Date.now(), who: { me: null, myGroups: [] } }, [], 1, 0),
        filters: [{ field: 'display_id', filter_type: 'equal', value: n }],
      });
      const rec = page.items[0];
      if (rec) {
        openIncident(refOf({ ...rec, _instance: tag }));
        return true;
      }
    } catch (e) {
      checkAuth(e);
      announce('error', 'notices.openFailed', { error: failureText(e) });
      return false;
    }
  }
  announce('error', 'notices.noSuchIncident', { n: String(n) });
  return false;
}

async function selectAllMatching(s: AppState): Promise<void> {
  const api = useSession.getState().api;
  if (!api) return;
  const tags = instancesOf(s.view, useInstances.getState());
  const t = useTriage.getState();
  try {
    const pages = await Promise.all(
      tags.map(async (tag) => ({
        tag,
        page: await search(api, targetOf(tag.id), INCIDENTS, {
          ...toSearchRequest(s.query, { asOf: t.asOf, who: { me: useSession.getState().me?.id ?? null, myGroups: [] }, until: t.hold[s.view] ?? null }, [], SELECT_ALL_MAX, 0),
          include_fields: ['id', 'status', 'risklevel', 'title', 'display_id', 'user_id', 'group_id'],
        }),
      })),
    );
    const refs = pages.flatMap(({ tag, page }) => page.items.map((it) => refOf({ ...it, _instance: tag })));
    useTriage.getState().select(s.view, refs, 'replace');
    const total = pages.reduce((n, p) => n + p.page.total, 0);
    if (total > refs.length) announce('info', 'notices.selectCapped', { count: refs.length, total });
    else announce('info', 'notices.selectedAll', { count: refs.length });
  } catch (e) {
    checkAuth(e);
    announce('error', 'notices.selectFailed', { error: failureText(e) });
  }
}

/** Assigns the targets to the local analyst (held like every change). */
function assignToMe(s: AppState): void {
  const me = useSession.getState().me;
  if (!me) return;
  useChanges.getState().apply('owner', me.id, targets(s), { label: personName('main', me.id, true) ?? me.name });
}

const toggleOwner = (owner: IncidentQuery['owner']) => () => setQuery((q) => ({ ...q, owner: q.owner === owner ? 'any' : owner }));

export const INCIDENT_ACTIONS: readonly Action[] = [
  { id: 'incidents.next', label: 'actions.next', group: 'incidents', keys: ['j'], predicate: (s) => onList(s) && !grouped(s), perform: (s) => move(s, 1) },
  { id: 'incidents.prev', label: 'actions.prev', group: 'incidents', keys: ['k'], predicate: (s) => onList(s) && !grouped(s), perform: (s) => move(s, -1) },
  {
    id: 'incidents.toggleSelect',
    label: 'actions.toggleSelect',
    group: 'incidents',
    keys: ['x'],
    predicate: (s) => onList(s) && !grouped(s) && !!focusedRow(s),
    perform: (s) => {
      const row = focusedRow(s);
      if (row) useTriage.getState().toggle(s.view, refOf(row));
    },
  },
  { id: 'incidents.selectAll', label: 'actions.selectAll', group: 'incidents', keys: ['Shift+X'], predicate: (s) => onList(s) && !s.busy, perform: selectAllMatching },
  {
    id: 'incidents.closeDetail',
    label: 'actions.closeDetail',
    group: 'incidents',
    keys: ['Escape'],
    predicate: (s) => onList(s) && s.detail !== null,
    perform: () => closeIncident(),
  },
  {
    id: 'incidents.clearSelection',
    label: 'actions.clearSelection',
    group: 'incidents',
    keys: ['Escape'],
    predicate: (s) => onList(s) && s.selection.size > 0,
    perform: (s) => useTriage.getState().clearSelection(s.view),
  },
  {
    id: 'incidents.open',
    label: 'actions.open',
    group: 'incidents',
    keys: ['Enter', 'o'],
    predicate: (s) => onList(s) && !grouped(s) && !!focusedRow(s),
    perform: (s) => {
      const row = focusedRow(s);
      if (row) openIncident(refOf(row));
    },
  },
  {
    id: 'incidents.setStatus',
    label: 'actions.setStatus',
    group: 'incidents',
    keys: ['s'],
    predicate: withTargets,
    perform: (s) => useUi.getState().openDialog({ kind: 'status', refs: targets(s) }),
  },
  {
    id: 'incidents.setRisk',
    label: 'actions.setRisk',
    group: 'incidents',
    keys: ['r'],
    predicate: withTargets,
    perform: (s) => useUi.getState().openDialog({ kind: 'risk', refs: targets(s) }),
  },
  {
    id: 'incidents.assignMe',
    label: 'actions.assignMe',
    group: 'incidents',
    keys: ['a'],
    predicate: (s) => withTargets(s) && useSession.getState().me !== null,
    perform: assignToMe,
  },
  {
    id: 'incidents.assign',
    label: 'actions.assign',
    group: 'incidents',
    keys: ['Shift+A'],
    predicate: withTargets,
    perform: (s) => useUi.getState().openDialog({ kind: 'assign', refs: targets(s) }),
  },
  {
    id: 'incidents.undo',
    label: 'actions.undo',
    group: 'incidents',
    keys: ['u', 'Mod+Z'],
    predicate: (s) => s.canUndo,
    perform: async () => {
      const done = await useChanges.getState().undo();
      if (done === 'dropped') announce('success', 'notices.notSent');
    },
  },
  {
    id: 'incidents.sendNow',
    label: 'actions.sendNow',
    group: 'incidents',
    predicate: (s) => s.pending,
    perform: () => useChanges.getState().sendNow(),
  },
  {
    id: 'incidents.cancelChange',
    label: 'actions.cancelChange',
    group: 'incidents',
    predicate: (s) => s.busy,
    perform: () => useChanges.getState().cancel(),
  },
  {
    id: 'incidents.search',
    label: 'actions.search',
    group: 'incidents',
    keys: ['/'],
    predicate: onList,
    perform: () => {
      const el = document.querySelector<HTMLInputElement>('[data-search="incidents"]');
      el?.focus();
      el?.select();
    },
  },
  {
    id: 'incidents.refresh',
    label: 'actions.refresh',
    group: 'incidents',
    keys: ['Shift+R'],
    predicate: onList,
    perform: () => useTriage.getState().refresh(),
  },
  {
    id: 'incidents.showNew',
    label: 'actions.showNew',
    group: 'incidents',
    predicate: (s) => onList(s) && (useTriage.getState().fresh[s.view] ?? 0) > 0,
    perform: () => useTriage.getState().refresh(),
  },
  {
    id: 'incidents.liveToggle',
    label: 'actions.liveToggle',
    group: 'incidents',
    keys: ['Shift+P'],
    predicate: (s) => onList(s) && useTriage.getState().live.everyMs > 0,
    perform: () => useTriage.getState().setLive({ paused: !useTriage.getState().live.paused }),
  },
  {
    id: 'incidents.clearFilters',
    label: 'actions.clearFilters',
    group: 'incidents',
    keys: ['Shift+C'],
    predicate: (s) => onList(s) && isFiltered(s.query),
    perform: () => setQuery((q) => ({ ...emptyQuery(), sorting: q.sorting, columns: q.columns, groupBy: q.groupBy })),
  },
  { id: 'incidents.mine', label: 'actions.mine', group: 'incidents', keys: ['Shift+M'], predicate: onList, perform: toggleOwner('me') },
  { id: 'incidents.unassigned', label: 'actions.unassigned', group: 'incidents', keys: ['Shift+U'], predicate: onList, perform: toggleOwner('none') },
  {
    id: 'incidents.myGroup',
    label: 'actions.myGroup',
    group: 'incidents',
    predicate: onList,
    perform: () => setQuery((q) => ({ ...q, team: q.team === 'mine' ? 'any' : 'mine' })),
  },
  {
    id: 'incidents.columns',
    label: 'actions.columns',
    group: 'view',
    predicate: onList,
    perform: () => useUi.getState().openDialog({ kind: 'columns', table: 'incidents' }),
  },
  {
    id: 'incidents.jump',
    label: 'actions.jump',
    group: 'incidents',
    predicate: (s) => s.signedIn && incidentNumber(s.query.search) !== null,
    perform: (s) => void jumpTo(incidentNumber(s.query.search)!),
  },
  {
    id: 'incidents.views',
    label: 'actions.views',
    group: 'view',
    predicate: onList,
    perform: () => useUi.getState().openDialog({ kind: 'views' }),
  },
];

export const statusLabel = (status: string): string => i18n.t(`status.${status}`, { defaultValue: status });
