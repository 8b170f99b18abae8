// The Electron main process: starts the embedded server in-process on loopback with a per-run
// key, opens one locked-down window on it, and hands the key to the page through the preload.
import { app, BrowserWindow, ipcMain, safeStorage, session, shell, type WebContents } from 'electron';
import crypto from 'node:crypto';
import path from 'node:path';
import { startServer, type RunningServer } from '../server/start';

let server: RunningServer | undefined;
let win: BrowserWindow | undefined;

const sessionKey = crypto.randomBytes(24).toString('base64url');

function isOwnUrl(url: string): boolean {
  return !!server && (url === server.main || url.startsWith(`${server.main}/`));
}

function checkSender(sender: WebContents, frameUrl: string | undefined): boolean {
  return !!win && sender === win.webContents && !!frameUrl && isOwnUrl(frameUrl);
}

async function createWindow(): Promise<void> {
  win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Radar console',
    webPreferences: {
      preload: path.join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win?.show());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url) && !isOwnUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e, url) => {
    if (!isOwnUrl(url)) e.preventDefault();
  });
  await win.loadURL(`${server!.main}/`);
}

app.enableSandbox();
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (e) => e.preventDefault());
  });
  app.whenReady().then(async () => {
    session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
    session.defaultSession.setPermissionCheckHandler(() => false);
    server = await startServer({
      db: path.join(app.getPath('userData'), 'radar.sqlite'),
      port: 0,
      routingPort: 0,
      apiKey: sessionKey,
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
      if (!checkSender(e.sender, e.senderFrame?.url)) throw new Error('refused');
      return { apiKey: sessionKey, main: server!.main, routing: server!.routing };
    });
    await createWindow();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void server?.close();
  });
}
