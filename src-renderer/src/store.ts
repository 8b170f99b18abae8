// Page state (zustand): the session and the incident list.
import { create } from 'zustand';
import { emptySearch } from '../../src-shared/schemas/search';
import { ApiFailure, createClient, type Client, type Incident } from './api';
import { rememberKey } from './session';

type Status = 'idle' | 'loading' | 'ready' | 'error';

interface ConsoleState {
  apiKey: string | null;
  client: Client | null;
  status: Status;
  error: string | null;
  incidents: Incident[];
  total: number;
  signIn(key: string): Promise<void>;
  signOut(): void;
  load(): Promise<void>;
}

export const useConsole = create<ConsoleState>((set, get) => ({
  apiKey: null,
  client: null,
  status: 'idle',
  error: null,
  incidents: [],
  total: 0,
  async signIn(key) {
    set({ apiKey: key, client: createClient(key), error: null });
    await get().load();
    if (get().status === 'ready') rememberKey(key);
  },
  signOut() {
    rememberKey(null);
    set({ apiKey: null, client: null, status: 'idle', incidents: [], total: 0, error: null });
  },
  async load() {
    const client = get().client;
    if (!client) return;
    set({ status: 'loading', error: null });
    try {
      const page = await client.searchIncidents({ ...emptySearch(100), ordering: [{ field: 'created_at', direction: 'desc' }] });
      set({ status: 'ready', incidents: page.items, total: page.total });
    } catch (e) {
      const msg = e instanceof ApiFailure ? `${e.status} ${e.message}` : String(e);
      if (e instanceof ApiFailure && e.status === 401) {
        rememberKey(null);
        set({ status: 'error', error: msg, apiKey: null, client: null });
      } else {
        set({ status: 'error', error: msg });
      }
    }
  },
}));
