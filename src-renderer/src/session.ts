// Where the page gets its credentials: the desktop bridge, the URL fragment printed by
// `serve` (#key=...), or the key typed once; kept for this tab's session only.
declare global {
  interface Window {
    radarDesktop?: { session(): Promise<{ apiKey: string; main: string; routing: string }> };
  }
}

const STORAGE_KEY = 'radar-console.apiKey';

export async function initialKey(): Promise<string | null> {
  if (window.radarDesktop) return (await window.radarDesktop.session()).apiKey;
  const m = /(?:^#|&)key=([^&]+)/.exec(window.location.hash);
  if (m) {
    const key = decodeURIComponent(m[1]!);
    sessionStorage.setItem(STORAGE_KEY, key);
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return key;
  }
  return sessionStorage.getItem(STORAGE_KEY);
}

export function rememberKey(key: string | null): void {
  if (key) sessionStorage.setItem(STORAGE_KEY, key);
  else sessionStorage.removeItem(STORAGE_KEY);
}
