// Every console action, declared once (id, label, shortcut, when it applies, what it does) and
// used by the toolbar, the row menu, the keyboard, the command palette and the desktop menu.
import { exportTargets, runExport, withoutPaging, type ExportSource } from '../data/exports';
import { currentLang, setLangPreference } from '../i18n';
import { currentRoute, navigate, type Route } from '../router';
import { useChanges } from '../state/changes';
import type { RowRef } from '../state/incidents';
import { useSession } from '../state/session';
import { useTransfers } from '../state/transfers';
import { useUi } from '../state/ui';

/** What the incident list offers to actions while it is on screen. */
export interface IncidentsController {
  view: string;
  move(delta: number): void;
  toggleFocused(): void;
  openFocused(): void;
  focusSearch(): void;
  selectAllMatching(): Promise<void>;
  clearSelection(): void;
  clearFilters(): void;
  refresh(): void;
  closeDetail(): void;
  selectionSize(): number;
  hasFilters(): boolean;
  detailOpen(): boolean;
  /** The incidents an action works on: the selection, else the open or focused one. */
  targets(): RowRef[];
}

let controller: IncidentsController | null = null;

export function setIncidentsController(c: IncidentsController | null): void {
  controller = c;
  notifyActions();
}

let exportSource: ExportSource | null = null;

/** The list the view on screen exports (its request, its columns); null where nothing exports. */
export function setExportSource(s: ExportSource | null): void {
  exportSource = s;
  notifyActions();
}

export interface ActionContext {
  route: Route;
  incidents: IncidentsController | null;
  /** What the view on screen exports. */
  exportSource: ExportSource | null;
  busy: boolean;
  canUndo: boolean;
  dialogOpen: boolean;
}

export function actionContext(): ActionContext {
  const ui = useUi.getState();
  const ch = useChanges.getState();
  return {
    route: currentRoute(),
    incidents: useSession.getState().status === 'ready' ? controller : null,
    exportSource: useSession.getState().status === 'ready' ? exportSource : null,
    busy: ch.progress !== null,
    canUndo: ch.last !== null && ch.progress === null,
    dialogOpen: ui.dialog !== null || ui.paletteOpen,
  };
}

export type ActionGroup = 'incidents' | 'view' | 'go' | 'app';

export interface Action {
  id: string;
  /** i18n key of the label. */
  label: string;
  group: ActionGroup;
  /** Keys that run it: 'j', 'Shift+X', 'Mod+K' (Mod = Ctrl, or ⌘ on macOS). */
  keys?: readonly string[];
  /** Runs even while typing in a field. */
  global?: boolean;
  enabled(ctx: ActionContext): boolean;
  run(ctx: ActionContext): void | Promise<void>;
}

const onIncidents = (ctx: ActionContext) => ctx.incidents !== null && ctx.route.view === 'incidents';
const withTargets = (ctx: ActionContext) => onIncidents(ctx) && !ctx.busy && (ctx.incidents?.targets().length ?? 0) > 0;

const go = (route: Route) => () => navigate(route);

/** An export from an action goes to the one instance shown (a merged list exports from the menu, instance by instance). */
const exportTarget = (ctx: ActionContext) => {
  const targets = ctx.exportSource ? exportTargets() : [];
  return targets.length === 1 && targets[0]!.exportable ? targets[0]! : null;
};
const canExport = (ctx: ActionContext) => signedIn() && exportTarget(ctx) !== null;

export const ACTIONS: readonly Action[] = [
  {
    id: 'palette.open',
    label: 'actions.palette',
    group: 'app',
    keys: ['Mod+K'],
    global: true,
    enabled: () => useSession.getState().status === 'ready',
    run: () => useUi.getState().setPalette(true),
  },
  { id: 'incidents.next', label: 'actions.next', group: 'incidents', keys: ['j'], enabled: onIncidents, run: (c) => c.incidents?.move(1) },
  { id: 'incidents.prev', label: 'actions.prev', group: 'incidents', keys: ['k'], enabled: onIncidents, run: (c) => c.incidents?.move(-1) },
  { id: 'incidents.toggleSelect', label: 'actions.toggleSelect', group: 'incidents', keys: ['x'], enabled: onIncidents, run: (c) => c.incidents?.toggleFocused() },
  {
    id: 'incidents.selectAll',
    label: 'actions.selectAll',
    group: 'incidents',
    keys: ['Shift+X'],
    enabled: (c) => onIncidents(c) && !c.busy,
    run: (c) => c.incidents?.selectAllMatching(),
  },
  {
    id: 'incidents.closeDetail',
    label: 'actions.closeDetail',
    group: 'incidents',
    keys: ['Escape'],
    enabled: (c) => onIncidents(c) && !!c.incidents?.detailOpen(),
    run: (c) => c.incidents?.closeDetail(),
  },
  {
    id: 'incidents.clearSelection',
    label: 'actions.clearSelection',
    group: 'incidents',
    keys: ['Escape'],
    enabled: (c) => onIncidents(c) && (c.incidents?.selectionSize() ?? 0) > 0,
    run: (c) => c.incidents?.clearSelection(),
  },
  { id: 'incidents.open', label: 'actions.open', group: 'incidents', keys: ['Enter', 'o'], enabled: onIncidents, run: (c) => c.incidents?.openFocused() },
  {
    id: 'incidents.setStatus',
    label: 'actions.setStatus',
    group: 'incidents',
    keys: ['s'],
    enabled: withTargets,
    run: (c) => useUi.getState().openDialog({ kind: 'status', refs: c.incidents!.targets() }),
  },
  {
    id: 'incidents.setRisk',
    label: 'actions.setRisk',
    group: 'incidents',
    keys: ['r'],
    enabled: withTargets,
    run: (c) => useUi.getState().openDialog({ kind: 'risk', refs: c.incidents!.targets() }),
  },
  {
    id: 'incidents.undo',
    label: 'actions.undo',
    group: 'incidents',
    keys: ['u', 'Mod+Z'],
    enabled: (c) => c.canUndo,
    run: async () => {
      const res = await useChanges.getState().undo();
      if (res) announce(res.failed.length ? 'error' : 'success', res.failed.length ? 'notices.undoFailed' : 'notices.undone', { count: res.ok, failed: res.failed.length });
    },
  },
  { id: 'incidents.search', label: 'actions.search', group: 'incidents', keys: ['/'], enabled: onIncidents, run: (c) => c.incidents?.focusSearch() },
  { id: 'incidents.refresh', label: 'actions.refresh', group: 'incidents', keys: ['Shift+R'], enabled: onIncidents, run: (c) => c.incidents?.refresh() },
  {
    id: 'incidents.clearFilters',
    label: 'actions.clearFilters',
    group: 'incidents',
    keys: ['Shift+C'],
    enabled: (c) => onIncidents(c) && !!c.incidents?.hasFilters(),
    run: (c) => c.incidents?.clearFilters(),
  },
  {
    id: 'incidents.columns',
    label: 'actions.columns',
    group: 'view',
    enabled: onIncidents,
    run: () => useUi.getState().openDialog({ kind: 'columns', table: 'incidents' }),
  },
  { id: 'view.charts', label: 'actions.charts', group: 'view', keys: ['Shift+G'], enabled: onIncidents, run: () => useUi.getState().toggleCharts() },
  {
    id: 'view.theme',
    label: 'actions.theme',
    group: 'view',
    keys: ['Shift+T'],
    enabled: () => true,
    run: () => {
      const cur = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
      useUi.getState().setTheme(cur === 'dark' ? 'light' : 'dark');
    },
  },
  {
    id: 'view.language',
    label: 'actions.language',
    group: 'view',
    keys: ['Shift+L'],
    enabled: () => true,
    run: () => setLangPreference(currentLang() === 'ru' ? 'en' : 'ru'),
  },
  { id: 'go.incidents', label: 'actions.goIncidents', group: 'go', keys: ['Alt+1'], global: true, enabled: signedIn, run: go({ view: 'incidents' }) },
  { id: 'go.resources', label: 'actions.goResources', group: 'go', keys: ['Alt+2'], global: true, enabled: signedIn, run: go({ view: 'resources' }) },
  { id: 'go.search', label: 'actions.goSearch', group: 'go', keys: ['Alt+3'], global: true, enabled: signedIn, run: go({ view: 'search' }) },
  { id: 'go.public', label: 'actions.goPublic', group: 'go', keys: ['Alt+4'], global: true, enabled: signedIn, run: go({ view: 'public' }) },
  { id: 'go.reference', label: 'actions.goReference', group: 'go', keys: ['Alt+5'], global: true, enabled: signedIn, run: () => window.location.assign('./reference/') },
  {
    id: 'app.import',
    label: 'actions.import',
    group: 'app',
    keys: ['Mod+O'],
    global: true,
    enabled: signedIn,
    run: () => useTransfers.getState().openImport(),
  },
  {
    id: 'app.exportJson',
    label: 'actions.exportJson',
    group: 'app',
    enabled: canExport,
    run: (c) => runExport(withoutPaging(c.exportSource!), 'json', exportTarget(c)!),
  },
  {
    id: 'app.exportNdjson',
    label: 'actions.exportNdjson',
    group: 'app',
    enabled: canExport,
    run: (c) => runExport(withoutPaging(c.exportSource!), 'ndjson', exportTarget(c)!),
  },
  {
    id: 'app.exportCsv',
    label: 'actions.exportCsv',
    group: 'app',
    enabled: canExport,
    run: (c) => useUi.getState().openDialog({ kind: 'exportCsv', source: withoutPaging(c.exportSource!), target: exportTarget(c)! }),
  },
  { id: 'app.signOut', label: 'actions.signOut', group: 'app', enabled: signedIn, run: () => useSession.getState().signOut() },
];

function signedIn(): boolean {
  return useSession.getState().status === 'ready';
}

const byId = new Map(ACTIONS.map((a) => [a.id, a]));

export function getAction(id: string): Action | undefined {
  return byId.get(id);
}

/** Runs an action by id when it applies now; answers whether it ran. */
export function runAction(id: string): boolean {
  const a = byId.get(id);
  if (!a) return false;
  const ctx = actionContext();
  if (!a.enabled(ctx)) return false;
  void a.run(ctx);
  return true;
}

// Notices raised by actions go through one hook the shell installs (it owns translation).
type Announcer = (kind: 'info' | 'error' | 'success', key: string, values?: Record<string, unknown>, actionId?: string) => void;
let announcer: Announcer = () => {};
export function setAnnouncer(a: Announcer): void {
  announcer = a;
}
export function announce(kind: 'info' | 'error' | 'success', key: string, values?: Record<string, unknown>, actionId?: string): void {
  announcer(kind, key, values, actionId);
}

// Listeners for "which actions apply" changes (the desktop menu's enabled states).
const listeners = new Set<() => void>();
export function onActionsChanged(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
export function notifyActions(): void {
  for (const l of listeners) l();
}

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** A key as shown to the user ('Mod+K' → 'Ctrl+K' or '⌘K'). */
export function keyLabel(key: string): string {
  return key
    .split('+')
    .map((p) => (p === 'Mod' ? (isMac ? '⌘' : 'Ctrl') : p === 'Escape' ? 'Esc' : p.length === 1 ? p.toUpperCase() : p))
    .join(isMac ? '' : '+');
}
