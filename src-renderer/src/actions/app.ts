// Actions of the whole console: the palette, views, theme, language, import, export, sign-out.
import { exportTargets, runExport, withoutPaging } from '../data/exports';
import { currentLang, setLangPreference } from '../i18n';
import { navigate, type Route } from '../router';
import { shareableLink } from '../links';
import { useQueue } from '../state/queue';
import { announce } from './notices';
import { useSession } from '../state/session';
import { useTransfers } from '../state/transfers';
import { useUi } from '../state/ui';
import type { Action, AppState } from './types';

const go = (route: Route) => () => navigate(route);
const signedIn = (s: AppState) => s.signedIn;

/** An export from an action goes to the one instance shown (a merged list exports from the menu, instance by instance). */
const exportTarget = (s: AppState) => {
  const targets = s.exportSource ? exportTargets() : [];
  return targets.length === 1 && targets[0]!.exportable ? targets[0]! : null;
};
const canExport = (s: AppState) => s.signedIn && exportTarget(s) !== null;

export const APP_ACTIONS: readonly Action[] = [
  {
    id: 'palette.open',
    label: 'actions.palette',
    group: 'app',
    keys: ['Mod+K'],
    global: true,
    predicate: signedIn,
    perform: () => useUi.getState().setPalette(true),
  },
  { id: 'view.charts', label: 'actions.charts', group: 'view', keys: ['Shift+G'], predicate: (s) => s.signedIn && s.route.view === 'incidents', pressed: () => useUi.getState().chartsOpen, perform: () => useUi.getState().toggleCharts() },
  {
    id: 'view.theme',
    label: 'actions.theme',
    group: 'view',
    keys: ['Shift+T'],
    predicate: () => true,
    perform: () => {
      const cur = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
      useUi.getState().setTheme(cur === 'dark' ? 'light' : 'dark');
    },
  },
  {
    id: 'view.language',
    label: 'actions.language',
    group: 'view',
    keys: ['Shift+L'],
    predicate: () => true,
    perform: () => setLangPreference(currentLang() === 'ru' ? 'en' : 'ru'),
  },
  { id: 'go.incidents', label: 'actions.goIncidents', group: 'go', keys: ['Alt+1'], global: true, predicate: signedIn, perform: go({ view: 'incidents' }) },
  { id: 'go.resources', label: 'actions.goResources', group: 'go', keys: ['Alt+2'], global: true, predicate: signedIn, perform: go({ view: 'resources' }) },
  { id: 'go.search', label: 'actions.goSearch', group: 'go', keys: ['Alt+3'], global: true, predicate: signedIn, perform: go({ view: 'search' }) },
  { id: 'go.public', label: 'actions.goPublic', group: 'go', keys: ['Alt+4'], global: true, predicate: signedIn, perform: go({ view: 'public' }) },
  { id: 'go.reference', label: 'actions.goReference', group: 'go', keys: ['Alt+5'], global: true, predicate: signedIn, perform: () => window.location.assign('./reference/') },
  {
    id: 'app.instances',
    label: 'actions.instances',
    group: 'app',
    predicate: signedIn,
    perform: () => useUi.getState().openDialog({ kind: 'instances' }),
  },
  {
    id: 'app.import',
    label: 'actions.import',
    group: 'app',
    keys: ['Mod+O'],
    global: true,
    predicate: signedIn,
    perform: () => useTransfers.getState().openImport(),
  },
  { id: 'app.exportJson', label: 'actions.exportJson', group: 'app', predicate: canExport, perform: (s) => runExport(withoutPaging(s.exportSource!), 'json', exportTarget(s)!) },
  { id: 'app.exportNdjson', label: 'actions.exportNdjson', group: 'app', predicate: canExport, perform: (s) => runExport(withoutPaging(s.exportSource!), 'ndjson', exportTarget(s)!) },
  {
    id: 'app.exportCsv',
    label: 'actions.exportCsv',
    group: 'app',
    predicate: canExport,
    perform: (s) => useUi.getState().openDialog({ kind: 'exportCsv', source: withoutPaging(s.exportSource!), target: exportTarget(s)! }),
  },
  {
    id: 'view.copyLink',
    label: 'links.copy',
    group: 'view',
    predicate: (s) => s.signedIn && s.route.view !== 'notFound',
    perform: () => {
      navigator.clipboard.writeText(shareableLink()).then(
        () => announce('success', 'links.copied'),
        (e: unknown) => announce('error', 'links.copyFailed', { error: e instanceof Error ? e.message : String(e) }),
      );
    },
  },
  { id: 'queue.open', label: 'queue.openAction', group: 'app', predicate: signedIn, perform: () => useQueue.getState().setOpen(true) },
  { id: 'app.signOut', label: 'actions.signOut', group: 'app', predicate: signedIn, perform: () => useSession.getState().signOut() },
];
