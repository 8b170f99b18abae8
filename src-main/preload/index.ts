// The only bridge between the page and the main process: the session (API key and addresses).
import { contextBridge, ipcRenderer } from 'electron';

contextBridge.exposeInMainWorld('radarDesktop', {
  session: (): Promise<{ apiKey: string; main: string; routing: string }> => ipcRenderer.invoke('radar:session'),
});
