// The Electron main process: starts the embedded server in-process on loopback with a per-run
// key, opens one locked-down window on it, and hands the key to the page through the preload.
// Electron's security checklist: contextIsolation, sandbox, no nodeIntegration, a strict
// Content-Security-Policy, navigation and new windows blocked, permissions denied (but the
// clipboard write of "copy as curl"), IPC senders checked, one instance, no remote content,
// downloads only from the embedded server (exports).
import { app, BrowserWindow, ipcMain, nativeTheme, safeStorage, session, shell, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import crypto from 'node:crypto';
import path from 'node:path';
import { consoleAddress } from '../server/addresses';
import { startServer, type RunningServer } from '../server/start';
import { CSP } from '../server/console-files';
import { applyMenu } from './menu';
import { parseMenu } from './menu-spec';
import { loadWindowState, trackWindowState } from './window-state';

let server: RunningServer | undefined;
let win: BrowserWindow | undefined;

const sessionKey = crypto.randomBytes(24).toString('base64url');

function isOwnUrl(url: string): boolean {
  return !!server && (url === server.main || url.startsWith(`${server.main}/`));
}

function checkSender(sender: WebContents, frameUrl: string | undefined): boolean {
  return !!win && sender === win.webContents && !!frameUrl && isOwnUrl(frameUrl);
}

const fromOwnPage = (e: IpcMainEvent | IpcMainInvokeEvent): boolean => checkSender(e.sender, e.senderFrame?.url);

/**
 * The view a console link names (`…/#/incidents?instance=…`), opened in the window: a link of
 * this console (opened as a new window from the page), or one given to a second start of the app
 * (another run's link: its view, on this run's server). Nothing but the view is taken from it.
 */
function openConsoleLink(url: string): boolean {
  if (!win || !server) return false;
  let hash: string;
  try {
    // A key the link may carry (`serve`'s address) is never taken: the window has its own.
    hash = new URL(url).hash.replace(/^#key=[^&]*&?/, '#');
  } catch {
    return false;
  }
  if (!hash.startsWith('#/')) return false;
  void win.loadURL(`${server.main}/${hash}`);
  if (win.isMinimized()) win.restore();
  win.focus();
  return true;
}

async function createWindow(): Promise<void> {
  const stateDir = app.getPath('userData');
  const state = loadWindowState(stateDir);
  win = new BrowserWindow({
    x: state.x,
    y: state.y,
    width: state.width,
    height: state.height,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Radar console',
    // The console's background, so the window does not flash before the page paints.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#0f1318' : '#f5f6f8',
    webPreferences: {
      preload: path.join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  });
  if (state.maximized) win.maximize();
  trackWindowState(win, stateDir);
  win.once('ready-to-show', () => win?.show());
  win.on('closed', () => {
    win = undefined;
  });
  await win.loadURL(`${server!.main}/`);
}

app.enableSandbox();
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_e, argv) => {
    const link = argv.find((a) => /^https?:\/\/[^\s]*#\//.test(a));
    if (link && openConsoleLink(link)) return;
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  // Every web contents (the window, and any other): no webviews, no new windows (links to the
  // web open in the system browser), no navigation away from the embedded server.
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (e) => e.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      // The console's own links open in its window (one window); links to the web in the browser.
      if (isOwnUrl(url)) openConsoleLink(url);
      else if (/^https?:\/\//.test(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (e, url) => {
      if (!isOwnUrl(url)) e.preventDefault();
    });
    contents.on('will-redirect', (e, url) => {
      if (!isOwnUrl(url)) e.preventDefault();
    });
  });
  app.whenReady().then(async () => {
    const ses = session.defaultSession;
    // The only permission granted: writing the clipboard ("copy as curl"), for the console itself.
    const allowed = (perm: string, origin: string | undefined) => perm === 'clipboard-sanitized-write' && !!origin && isOwnUrl(origin.replace(/\/$/, ''));
    ses.setPermissionRequestHandler((wc, perm, cb, details) => cb(allowed(perm, details.requestingUrl ?? wc.getURL())));
    ses.setPermissionCheckHandler((_wc, perm, origin) => allowed(perm, origin));
    // Only the embedded server, and the page's own in-memory URLs (data:, and blob: of its own
    // origin, e.g. the API reference's workers), are ever loaded.
    const loadable = (url: string) => isOwnUrl(url) || url.startsWith('devtools://') || url.startsWith('data:') || (!!server && url.startsWith(`blob:${server.main}/`));
    ses.webRequest.onBeforeRequest((details, cb) => cb({ cancel: !loadable(details.url) }));
    // Exports are downloads from the embedded server (a single-use link the console follows): the
    // file streams to disk through the system's save dialog, which offers the server's file name
    // in the downloads folder. A download from anywhere else is refused.
    ses.on('will-download', (e, item, wc) => {
      if (!win || wc !== win.webContents || !isOwnUrl(item.getURL())) {
        e.preventDefault();
        return;
      }
      item.setSaveDialogOptions({ defaultPath: path.join(app.getPath('downloads'), path.basename(item.getFilename())) });
    });
    ses.webRequest.onHeadersReceived((details, cb) => {
      const headers = { ...details.responseHeaders };
      if (isOwnUrl(details.url) && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-security-policy')) headers['Content-Security-Policy'] = [CSP];
      cb({ responseHeaders: headers });
    });
    server = await startServer({
      db: path.join(app.getPath('userData'), 'radar.sqlite'),
      port: 0,
      routingPort: 0,
      apiKey: sessionKey,
      warmReaders: true,
      // Remote instances' keys are encrypted with the OS keychain where it is available.
      keyCipher: safeStorage.isEncryptionAvailable()
        ? {
            name: 'safeStorage',
            encrypt: (plain) => safeStorage.encryptString(plain).toString('base64'),
            decrypt: (stored) => safeStorage.decryptString(Buffer.from(stored, 'base64')),
          }
        : undefined,
    });
    ipcMain.handle('radar:session', (e) => {
      if (!fromOwnPage(e)) throw new Error('refused');
      return { apiKey: sessionKey, main: server!.main, routing: server!.routing };
    });
    ipcMain.on('radar:menu', (e, raw: unknown) => {
      if (!fromOwnPage(e) || !win) return;
      const items = parseMenu(raw);
      if (items) applyMenu(win, items, new Set(items.map((i) => i.id)));
    });
    await createWindow();
    // The window is signed in through the preload; the same console opens signed in in a browser too.
    process.stderr.write(`radar-console: the desktop app is open; the same console in a browser, signed in:\n${consoleAddress(server.main, sessionKey)}\n`);
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void server?.close();
  });
}
