// The session: the API key and the client built on it.
import { create } from 'zustand';
import { ApiFailure, createApi, type Api } from '../api/client';
import { instances as listInstances, me as fetchMe } from '../api/radar';
import type { Person } from '../../../src-shared/schemas/people';
import { announceSignOut, initialKey, rememberKey } from '../session';

export type SessionStatus = 'checking' | 'signedOut' | 'ready';

interface SessionState {
  status: SessionStatus;
  api: Api | null;
  /** The routing port's address, when the desktop bridge gave it. */
  routing: string | null;
  /** Why the last sign-in failed: an HTTP status and text. */
  error: { status: number; message: string } | null;
  /** The local analyst (sent as Pgr-User-Id). */
  me: Person | null;
  loadMe(): Promise<void>;
  start(): Promise<void>;
  signIn(key: string): Promise<boolean>;
  signOut(error?: { status: number; message: string }, opts?: { quiet?: boolean }): void;
}

/** The page's sign-in with the key it opened with (once per page). */
let starting: Promise<void> | null = null;

export const useSession = create<SessionState>((set, get) => ({
  status: 'checking',
  api: null,
  routing: null,
  error: null,
  me: null,
  async loadMe() {
    const api = get().api;
    if (!api) return;
    try {
      const me = await fetchMe(api);
      api.setUser(me.id);
      set({ me });
    } catch (e) {
      checkAuth(e);
    }
  },
  start() {
    // Started before the first render (start.tsx); the shell's start joins it.
    starting ??= (async () => {
      const found = await initialKey().catch(() => null);
      if (!found) {
        set({ status: 'signedOut' });
        return;
      }
      // A key from the fragment, the bridge or this tab's storage is used at once; the first
      // answer tells whether it is right.
      set({ status: 'ready', api: createApi(found.key), routing: found.routing ?? null, error: null });
    })();
    return starting;
  },
  async signIn(key) {
    const api = createApi(key);
    try {
      await listInstances(api);
    } catch (e) {
      const status = e instanceof ApiFailure ? e.status : 0;
      set({ error: { status, message: e instanceof Error ? e.message : String(e) } });
      return false;
    }
    rememberKey(key);
    set({ status: 'ready', api, error: null });
    return true;
  },
  signOut(error, opts?: { quiet?: boolean }) {
    rememberKey(null);
    // A sign-out by hand signs out the console's other tabs too (their key would sign this one in again).
    if (!error && !opts?.quiet && get().status === 'ready') announceSignOut();
    set({ status: 'signedOut', api: null, error: error ?? null, me: null });
  },
}));

/** Signs out when an answer says the key is not accepted. */
export function checkAuth(e: unknown): void {
  if (e instanceof ApiFailure && e.status === 401 && useSession.getState().status === 'ready') {
    useSession.getState().signOut({ status: 401, message: e.message });
  }
}
