// Triage actions: moving through the list, selecting, opening, changing status, risk, owner and
// group, undo, refresh, the live list, the quick filters. Each reads the stores' snapshot.
import { search } from '../api/radar';
import { failureText, type Row } from '../data/source';
import { i18n } from '../i18n';
import { navigate } from '../router';
import { targetSize, useChanges, type ChangeTarget } from '../state/changes';
import { instancesOf, targetOf, useInstances } from '../state/instances';
import { personName } from '../state/people';
import { checkAuth, useSession } from '../state/session';
import { scopeCount, useTriage, type RowRef } from '../state/triage';
import { useUi } from '../state/ui';
import { emptyQuery, incidentNumber, isFiltered, toSearchRequest, type IncidentQuery } from '../views/incidents/query';
import { announce } from './notices';
import { pivot, rowValues, type PivotKind } from '../views/incidents/pivots';
import type { Action, AppState } from './types';

const INCIDENTS = 'service_asset_findings';

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

/** The incidents an action works on: the selection (rows, or the whole query), else the open one, else the focused one. */
export function targets(s: AppState): ChangeTarget {
  if (s.scope) return { scope: s.scope };
  if (s.selection.size) return { refs: [...s.selection.values()] };
  if (s.detail) return { refs: [s.detail] };
  const row = grouped(s) ? undefined : focusedRow(s);
  return { refs: row ? [refOf(row)] : [] };
}

const withTargets = (s: AppState) => onList(s) && !s.busy && targetSize(targets(s)) > 0;

/** Moves the keyboard to the list (after a toolbar button was clicked with the mouse, Enter opens the row, not the button again). */
export function focusList(): void {
  const el = document.querySelector<HTMLElement>('[data-testid="incidents-scroll"]');
  if (el && document.activeElement !== el) el.focus({ preventScroll: true });
}

/** Opens an incident: the detail panel follows the address (front_link opens it too). */
export function openIncident(ref: RowRef): void {
  const t = useTriage.getState();
  const wasOpen = t.detail !== null;
  t.openDetail(ref);
  navigate({ view: 'incidents', id: ref.id, at: ref.instance.id, params: paramsNow() }, wasOpen);
}

function paramsNow(): string | undefined {
  const h = window.location.hash;
  const i = h.indexOf('?');
  if (i < 0) return undefined;
  const p = new URLSearchParams(h.slice(i + 1));
  p.delete('instance');
  p.delete('at');
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
  focusList();
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

/** Selects every incident the list's query matches (any number): the query itself is selected. */
function selectAllMatching(s: AppState): void {
  const t = useTriage.getState();
  const total = s.source?.state().total ?? null;
  if (total === null) return;
  t.selectScope(s.view, { query: s.query, extra: [], asOf: t.asOf, until: t.hold[s.view] ?? null, total });
  announce('info', 'notices.selectedAll', { count: total });
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
      focusList();
    },
  },
  {
    id: 'incidents.selectAll',
    label: 'actions.selectAll',
    group: 'incidents',
    keys: ['Shift+X'],
    predicate: (s) => onList(s) && !s.busy && !grouped(s) && (s.source?.state().total ?? 0) > 0 && !(s.scope && scopeCount(s.scope) === s.source?.state().total),
    perform: selectAllMatching,
  },
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
    predicate: (s) => onList(s) && (s.selection.size > 0 || s.scope !== null),
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
    perform: (s) => useUi.getState().openDialog({ kind: 'status', target: targets(s) }),
  },
  {
    id: 'incidents.setRisk',
    label: 'actions.setRisk',
    group: 'incidents',
    keys: ['r'],
    predicate: withTargets,
    perform: (s) => useUi.getState().openDialog({ kind: 'risk', target: targets(s) }),
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
    perform: (s) => useUi.getState().openDialog({ kind: 'assign', target: targets(s) }),
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

/** A pivot's action id: `pivot.assetIn`, `pivot.groupOut`. */
export const pivotActionId = (kind: PivotKind, mode: 'in' | 'out'): string => `pivot.${kind}${mode === 'in' ? 'In' : 'Out'}`;

/** The row a pivot starts from: the one under the cursor (a right-click puts it there). */
const pivotRow = (s: AppState): Row | undefined => (grouped(s) ? undefined : focusedRow(s));

const PIVOT_FIELD: Record<PivotKind, string | null> = { asset: 'service_asset_id', finding: 'finding_id', owner: 'user_id', group: 'group_id', rule: null };

/** Filter the list in or out by the row's asset, finding type, rules, owner or group. */
export const PIVOT_ACTIONS: readonly Action[] = (['asset', 'finding', 'rule', 'owner', 'group'] as const).flatMap((kind) =>
  (['in', 'out'] as const).map(
    (mode): Action => ({
      // One dot, as every action id (the desktop menu's check): pivot.assetIn, pivot.assetOut, …
      id: pivotActionId(kind, mode),
      label: `pivots.action.${mode}.${kind}`,
      group: 'incidents',
      predicate: (s) => {
        const row = onList(s) ? pivotRow(s) : undefined;
        if (!row) return false;
        const f = PIVOT_FIELD[kind];
        return f === null || (typeof row[f] === 'string' && row[f] !== '');
      },
      perform: async (s) => {
        const row = pivotRow(s);
        if (!row) return;
        const ids = await rowValues(row, kind);
        if (ids.length) pivot(kind, ids, mode);
        else announce('info', 'pivots.noRules');
      },
    }),
  ),
);

export const statusLabel = (status: string): string => i18n.t(`status.${status}`, { defaultValue: status });
