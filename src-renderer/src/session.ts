// Where the page gets its credentials: the desktop bridge, the URL fragment printed by
// `serve` (#key=...), the key typed once, or another tab of the same console already signed in.
// The key is kept for this tab's session only (sessionStorage) and never written into an address:
// a tab opened from a shared link asks the console's other tabs of the same origin for it
// (BroadcastChannel, which never leaves the origin) and is signed in when one answers. Signing
// out in one tab signs out the others.
import { desktop } from './desktop';

const STORAGE_KEY = 'radar-console.apiKey';
const CHANNEL = 'radar-console.session';
/** How long a new tab waits for another tab's answer before it asks for the key. */
export const ASK_MS = 600;

type Message = { type: 'ask'; nonce: string } | { type: 'key'; nonce: string; key: string } | { type: 'signout' };

const channel = (): BroadcastChannel | null => (typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null);

/** Asks the other tabs of this console for the key; null when none answers in time. */
function keyFromOtherTab(): Promise<string | null> {
  const ch = channel();
  if (!ch) return Promise.resolve(null);
  const nonce = crypto.randomUUID ? crypto.randomUUID() : String(Math.random());
  return new Promise((resolve) => {
    const done = (key: string | null) => {
      clearTimeout(timer);
      ch.close();
      resolve(key);
    };
    const timer = setTimeout(() => done(null), ASK_MS);
    ch.onmessage = (e: MessageEvent<Message>) => {
      if (e.data?.type === 'key' && e.data.nonce === nonce && typeof e.data.key === 'string') done(e.data.key);
    };
    ch.postMessage({ type: 'ask', nonce } satisfies Message);
  });
}

const KEY_IN_ADDRESS = /(?:^#|&)key=([^&]+)/;

/**
 * The key the page opens with when it is in hand without asking another tab (the desktop bridge,
 * the address, this tab's storage): read only, the address is left to initialKey.
 */
export async function keyInHand(): Promise<string | null> {
  const bridge = desktop();
  if (bridge) return (await bridge.session()).apiKey;
  const m = KEY_IN_ADDRESS.exec(window.location.hash);
  if (m) {
    try {
      return decodeURIComponent(m[1]!);
    } catch {
      return null;
    }
  }
  return sessionStorage.getItem(STORAGE_KEY);
}

export async function initialKey(): Promise<{ key: string; routing?: string } | null> {
  const bridge = desktop();
  if (bridge) {
    const s = await bridge.session();
    return { key: s.apiKey, routing: s.routing };
  }
  const m = KEY_IN_ADDRESS.exec(window.location.hash);
  if (m) {
    const key = decodeURIComponent(m[1]!);
    sessionStorage.setItem(STORAGE_KEY, key);
    const rest = window.location.hash.replace(/(?:^#|&)key=[^&]+/, '').replace(/^&/, '');
    history.replaceState(null, '', window.location.pathname + window.location.search + (rest ? `#${rest.replace(/^#/, '')}` : ''));
    return { key };
  }
  const stored = sessionStorage.getItem(STORAGE_KEY);
  if (stored) return { key: stored };
  const shared = await keyFromOtherTab();
  if (shared) {
    sessionStorage.setItem(STORAGE_KEY, shared);
    return { key: shared };
  }
  return null;
}

/**
 * A key given in the address after the page has loaded (a `serve` address opened in this tab):
 * taken out of the address at once (never shown, never kept in the history) and answered.
 */
export function takeKeyFromAddress(): string | null {
  const m = /(?:^#|&)key=([^&]+)/.exec(window.location.hash);
  if (!m) return null;
  const rest = window.location.hash.replace(/(?:^#|&)key=[^&]+/, '').replace(/^&/, '');
  history.replaceState(null, '', window.location.pathname + window.location.search + (rest ? `#${rest.replace(/^#/, '')}` : ''));
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

export function rememberKey(key: string | null): void {
  if (key) sessionStorage.setItem(STORAGE_KEY, key);
  else sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * While this tab is signed in, it answers the other tabs' requests for the key, and hears their
 * sign-out. Answers the function that stops it.
 */
export function shareSession(key: () => string | null, onSignOut: () => void): () => void {
  const ch = channel();
  if (!ch) return () => {};
  ch.onmessage = (e: MessageEvent<Message>) => {
    const msg = e.data;
    if (msg?.type === 'ask') {
      const k = key();
      if (k) ch.postMessage({ type: 'key', nonce: msg.nonce, key: k } satisfies Message);
    } else if (msg?.type === 'signout') onSignOut();
  };
  return () => ch.close();
}

/** Tells the other tabs this console signed out. */
export function announceSignOut(): void {
  const ch = channel();
  if (!ch) return;
  ch.postMessage({ type: 'signout' } satisfies Message);
  ch.close();
}
