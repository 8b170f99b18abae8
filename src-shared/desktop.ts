// The desktop bridge's contract, shared by the Electron main process (which checks it), the
// preload (which passes it on) and the page (which uses it).

/** What the page learns from the desktop app: its API key and the server's addresses. */
export interface DesktopSession {
  apiKey: string;
  main: string;
  routing: string;
}

/** One native menu item, built from a declared action of the console. */
export interface MenuItemSpec {
  id: string;
  label: string;
  group: string;
  groupLabel: string;
  accelerator?: string;
  enabled: boolean;
}

/** An action id (`group.name`), the only thing a menu click sends back to the page. */
export const ACTION_ID = /^[a-z][a-zA-Z0-9]{0,31}\.[a-zA-Z0-9]{1,31}$/;
