// The console's shell: header (instance switcher, views, command palette, language, theme),
// the current view, dialogs and notices.
import { lazy, Suspense, useEffect } from 'react';
import { keyLabel } from './actions/registry';
import { useKeyboard } from './actions/keyboard';
import { useDesktopMenu } from './actions/menu';
import { ColumnsDialog } from './components/ColumnsDialog';
import { DropZone } from './components/DropZone';
import { ExportCsvDialog } from './components/ExportCsvDialog';
import { ImportDialog, ImportFilePicker, pickImportFiles } from './components/ImportDialog';
import { desktop } from './desktop';
import { InstanceSwitcher } from './components/InstanceSwitcher';
import { Notices } from './components/Notices';
import { Palette } from './components/Palette';
import { ConnectionBanner } from './components/ConnectionBanner';
import { InstancesDialog } from './components/InstancesDialog';
import { langPreference, setLangPreference, useI18n, type Lang } from './i18n';
import { hrefOf, useRoute, type Route } from './router';
import { dropFailedResult, guardUnload } from './state/changes';
import { startHeartbeat } from './state/connection';
import { startQueue } from './state/queue';
import { QueueButton, QueueDialog } from './components/QueuePanel';
import { startHealthWatch, useInstances } from './state/instances';
import { useSession } from './state/session';
import { useUi, type ThemePref } from './state/ui';
import { SignIn } from './SignIn';
import { shareSession, takeKeyFromAddress } from './session';
import { useAddressInstance } from './links';
import { AssignDialog } from './views/incidents/AssignDialog';
import { RiskDialog, StatusDialog } from './views/incidents/ChangeDialogs';
import { ChangesNavLink } from './views/changes/marks';
import { IncidentsView } from './views/incidents/IncidentsView';
import { ViewsDialog } from './views/incidents/ViewsDialog';
import { NotFound } from './views/NotFound';

/**
 * The views the opened incident list does not need are loaded when first shown: the console's
 * first rows wait only for the code they need. (Dialogs stay in the application's code: what is
 * typed the moment one opens reaches it.)
 */
const ResourcesIndex = lazy(() => import('./views/resources/ResourceViews').then((m) => ({ default: m.ResourcesIndex })));
const ResourceList = lazy(() => import('./views/resources/ResourceViews').then((m) => ({ default: m.ResourceList })));
const RecordView = lazy(() => import('./views/resources/ResourceViews').then((m) => ({ default: m.RecordView })));
const SearchBuilder = lazy(() => import('./views/builders/SearchBuilder').then((m) => ({ default: m.SearchBuilder })));
const PublicBuilder = lazy(() => import('./views/builders/PublicBuilder').then((m) => ({ default: m.PublicBuilder })));
const ChangesView = lazy(() => import('./views/changes/ChangesView').then((m) => ({ default: m.ChangesView })));
const RuleWorkbench = lazy(() => import('./views/compliance/RuleWorkbench').then((m) => ({ default: m.RuleWorkbench })));
const RuleSetView = lazy(() => import('./views/compliance/RuleSetView').then((m) => ({ default: m.RuleSetView })));

function DialogHost() {
  const dialog = useUi((s) => s.dialog);
  if (!dialog) return null;
  switch (dialog.kind) {
    case 'status':
      return <StatusDialog target={dialog.target} />;
    case 'risk':
      return <RiskDialog target={dialog.target} />;
    case 'assign':
      return <AssignDialog target={dialog.target} />;
    case 'instances':
      return <InstancesDialog />;
    case 'views':
      return <ViewsDialog />;
    case 'columns':
      return <ColumnsDialog table={dialog.table} />;
    case 'import':
      return <ImportDialog />;
    case 'exportCsv':
      return <ExportCsvDialog source={dialog.source} target={dialog.target} />;
  }
}

function Nav({ route }: { route: Route }) {
  const { t } = useI18n();
  const items: { route: Route; label: string; on: boolean }[] = [
    { route: { view: 'incidents' }, label: t('nav.incidents'), on: route.view === 'incidents' },
    { route: { view: 'resources' }, label: t('nav.resources'), on: route.view === 'resources' || route.view === 'resource' || route.view === 'record' },
    { route: { view: 'search' }, label: t('nav.search'), on: route.view === 'search' },
    { route: { view: 'public' }, label: t('nav.public'), on: route.view === 'public' },
    { route: { view: 'compliance' }, label: t('nav.compliance'), on: route.view === 'compliance' || route.view === 'ruleSet' },
  ];
  return (
    <nav className="nav" aria-label={t('nav.label')}>
      {items.map((i) => (
        <a key={i.label} href={hrefOf(i.route)} aria-current={i.on ? 'page' : undefined} className={i.on ? 'is-on' : ''}>
          {i.label}
        </a>
      ))}
      <ChangesNavLink on={route.view === 'changes'} />
    </nav>
  );
}

function Prefs() {
  const { t } = useI18n();
  const theme = useUi((s) => s.theme);
  const setTheme = useUi((s) => s.setTheme);
  const pref = langPreference();
  // Compact: a glyph says which preference a select holds (its name is read out), the options
  // stay words, so the header fits one line at 1280 px in every language.
  return (
    <div className="prefs">
      <label className="pref" title={t('prefs.language')}>
        <span className="pref-glyph" aria-hidden="true">
          <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.3">
            <circle cx="8" cy="8" r="6.5" />
            <path d="M1.5 8h13M8 1.5c2 2 2.8 4.2 2.8 6.5S10 12.5 8 14.5M8 1.5C6 3.5 5.2 5.7 5.2 8S6 12.5 8 14.5" />
          </svg>
        </span>
        <select aria-label={t('prefs.language')} value={pref} onChange={(e) => setLangPreference(e.target.value as Lang | 'system')}>
          <option value="system">{t('prefs.langAuto')}</option>
          <option value="en">English</option>
          <option value="ru">Русский</option>
        </select>
      </label>
      <label className="pref" title={t('prefs.theme')}>
        <span className="pref-glyph" aria-hidden="true">
          <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" strokeWidth="1.3">
            <circle cx="8" cy="8" r="6.5" />
            <path d="M8 1.5a6.5 6.5 0 0 1 0 13z" fill="currentColor" />
          </svg>
        </span>
        <select aria-label={t('prefs.theme')} value={theme} onChange={(e) => setTheme(e.target.value as ThemePref)}>
          <option value="system">{t('prefs.themeAuto')}</option>
          <option value="light">{t('prefs.light')}</option>
          <option value="dark">{t('prefs.dark')}</option>
        </select>
      </label>
    </div>
  );
}

function Main({ route }: { route: Route }) {
  switch (route.view) {
    case 'incidents':
      return <IncidentsView />;
    case 'resources':
      return <ResourcesIndex />;
    case 'resource':
      return <ResourceList key={route.resource} resource={route.resource} />;
    case 'record':
      return <RecordView resource={route.resource} id={route.id} instance={route.instance} />;
    case 'search':
      return <SearchBuilder />;
    case 'public':
      return <PublicBuilder />;
    case 'changes':
      return <ChangesView />;
    case 'compliance':
      return <RuleWorkbench rule={route.rule} />;
    case 'ruleSet':
      return <RuleSetView key={route.id} id={route.id} />;
    case 'notFound':
      return <NotFound path={route.path} />;
  }
}

/**
 * The first Tab stop: straight to the view's content (the table on a list, past the header,
 * filters and charts), shown only while it has the keyboard.
 */
function SkipLink() {
  const { t } = useI18n();
  const route = useRoute();
  const list = route.view === 'incidents' || route.view === 'resource';
  return (
    <button
      type="button"
      className="skip-link"
      onClick={() => {
        const target = document.querySelector<HTMLElement>('.main .dt-scroll') ?? document.querySelector<HTMLElement>('.main');
        if (!target) return;
        if (target.tabIndex < 0 && !target.hasAttribute('tabindex')) target.tabIndex = -1;
        target.focus();
      }}
    >
      {list ? t('a11y.skipList') : t('a11y.skip')}
    </button>
  );
}

export function App() {
  const { t } = useI18n();
  const status = useSession((s) => s.status);
  const api = useSession((s) => s.api);
  const signOut = useSession((s) => s.signOut);
  const route = useRoute();
  const setPalette = useUi((s) => s.setPalette);
  useKeyboard();
  useDesktopMenu();
  useEffect(() => {
    void useSession.getState().start();
    // An address with a key opened in this tab later: the key leaves the address before the view
    // is read, and signs in with it when it is another one.
    const onHash = () => {
      const key = takeKeyFromAddress();
      if (key === null) return;
      window.dispatchEvent(new HashChangeEvent('hashchange'));
      if (key !== useSession.getState().api?.apiKey) void useSession.getState().signIn(key);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (!api) return;
    void useInstances.getState().load();
    void useSession.getState().loadMe();
    const stops = [
      startHeartbeat(),
      startHealthWatch(),
      guardUnload(),
      startQueue(),
      // Another tab of this console opened from a link asks for the key; a sign-out there signs out here.
      shareSession(
        () => api.apiKey,
        () => useSession.getState().signOut(undefined, { quiet: true }),
      ),
    ];
    return () => stops.forEach((stop) => stop());
  }, [api]);
  useAddressInstance(status === 'ready');
  // Error notices belong to the page they were raised on.
  useEffect(() => {
    useUi.getState().clearErrors();
    dropFailedResult();
  }, [route.view]);
  useEffect(() => {
    document.title = t('app.title');
  }, [t]);
  return (
    <div className="app">
      {status === 'ready' && <SkipLink />}
      <header className="topbar">
        <a className="brand" href="#/incidents">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">{t('app.name')}</span>
        </a>
        {status === 'ready' && <InstanceSwitcher />}
        {status === 'ready' && <Nav route={route} />}
        {status === 'ready' && <QueueButton />}
        <span className="spacer" />
        {status === 'ready' && (
          <button type="button" className="ghost import-button" onClick={pickImportFiles} title={t('import.buttonHint', { key: keyLabel('Mod+O') })} aria-keyshortcuts="Control+O">
            {t('import.button')}
          </button>
        )}
        {status === 'ready' && (
          <button type="button" className="ghost palette-button" onClick={() => setPalette(true)} aria-keyshortcuts="Control+K" title={`${t('actions.palette')} (${keyLabel('Mod+K')})`}>
            {t('prefs.commands')} <kbd>{keyLabel('Mod+K')}</kbd>
          </button>
        )}
        <Prefs />
        {status === 'ready' && !desktop() && (
          <button type="button" className="link" onClick={() => signOut()}>
            {t('actions.signOut')}
          </button>
        )}
      </header>
      {status === 'ready' && <ConnectionBanner />}
      <main className="main">
        {status === 'checking' ? (
          <p className="muted pad">{t('states.loading')}</p>
        ) : status === 'ready' ? (
          <Suspense fallback={<p className="muted pad">{t('states.loading')}</p>}>
            <Main route={route} />
          </Suspense>
        ) : (
          <SignIn />
        )}
      </main>
      <Palette />
      <DialogHost />
      {status === 'ready' && <QueueDialog />}
      <Notices />
      {status === 'ready' && <DropZone />}
      {status === 'ready' && <ImportFilePicker />}
    </div>
  );
}
