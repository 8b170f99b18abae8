// The desktop window's bridge (preload, contextBridge): absent in a browser.
export interface DesktopSession {
  apiKey: string;
  main: string;
  routing: string;
}

export interface DesktopMenuItem {
  id: string;
  label: string;
  group: string;
  groupLabel: string;
  accelerator?: string;
  enabled: boolean;
}

export interface RadarDesktop {
  session(): Promise<DesktopSession>;
  /** Menu clicks, as action ids; returns the unsubscribe function. */
  onAction(listener: (id: string) => void): () => void;
  /** The native menu, built from the console's declared actions. */
  setMenu(items: DesktopMenuItem[]): void;
}

declare global {
  interface Window {
    radarDesktop?: RadarDesktop;
  }
}

export const desktop = (): RadarDesktop | undefined => window.radarDesktop;
