// The only bridge between the page and the main process (contextBridge, sandboxed preload):
// the session (API key and addresses), the native menu built from the page's declared actions,
// and the menu's clicks coming back as action ids.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

import { ACTION_ID, type DesktopSession, type MenuItemSpec } from '../../src-shared/desktop';

contextBridge.exposeInMainWorld('radarDesktop', {
  session: (): Promise<DesktopSession> => ipcRenderer.invoke('radar:session'),
  onAction(listener: (id: string) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    const handler = (_e: IpcRendererEvent, id: unknown) => {
      if (typeof id === 'string' && ACTION_ID.test(id)) listener(id);
    };
    ipcRenderer.on('radar:action', handler);
    return () => {
      ipcRenderer.removeListener('radar:action', handler);
    };
  },
  setMenu(items: MenuItemSpec[]): void {
    // Plain data only crosses the bridge; the main process checks every field again.
    ipcRenderer.send(
      'radar:menu',
      Array.isArray(items)
        ? items.slice(0, 100).map((i) => ({
            id: String(i.id),
            label: String(i.label),
            group: String(i.group),
            groupLabel: String(i.groupLabel),
            accelerator: i.accelerator === undefined ? undefined : String(i.accelerator),
            enabled: i.enabled === true,
          }))
        : [],
    );
  },
});
