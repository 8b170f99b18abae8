// Where the page gets its credentials: the desktop bridge, the URL fragment printed by
// `serve` (#key=...), or the key typed once; kept for this tab's session only.
import { desktop } from './desktop';

const STORAGE_KEY = 'radar-console.apiKey';

export async function initialKey(): Promise<{ key: string; routing?: string } | null> {
  const bridge = desktop();
  if (bridge) {
    const s = await bridge.session();
    return { key: s.apiKey, routing: s.routing };
  }
  const m = /(?:^#|&)key=([^&]+)/.exec(window.location.hash);
  if (m) {
    const key = decodeURIComponent(m[1]!);
    sessionStorage.setItem(STORAGE_KEY, key);
    const rest = window.location.hash.replace(/(?:^#|&)key=[^&]+/, '').replace(/^&/, '');
    history.replaceState(null, '', window.location.pathname + window.location.search + (rest ? `#${rest.replace(/^#/, '')}` : ''));
    return { key };
  }
  const stored = sessionStorage.getItem(STORAGE_KEY);
  return stored ? { key: stored } : null;
}

export function rememberKey(key: string | null): void {
  if (key) sessionStorage.setItem(STORAGE_KEY, key);
  else sessionStorage.removeItem(STORAGE_KEY);
}
