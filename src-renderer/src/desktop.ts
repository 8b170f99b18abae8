// The desktop window's bridge (preload, contextBridge): absent in a browser.
import type { DesktopSession, MenuItemSpec } from '../../src-shared/desktop';

export type { DesktopSession };
export type DesktopMenuItem = MenuItemSpec;

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
