// Whether the server answers. Every call reports whether it got an answer; a heartbeat (the
// instance list, every few seconds) notices an outage while nothing else is asked, and brings
// in instances added or removed meanwhile (by the CLI too). When the server answers again after
// an outage, the instances and their health are read again and the lists refresh themselves.
import { create } from 'zustand';
import { ApiFailure, onReachability } from '../api/client';
import { instances as fetchInstances } from '../api/radar';
import { healthOf, useInstances } from './instances';
import { useSession } from './session';
import { useTriage } from './triage';

/** Heartbeat period while the server answers, and while it does not. */
export const BEAT_MS = 3_000;
export const RETRY_MS = 2_000;
/** A heartbeat not answered within this counts as no answer. */
const BEAT_TIMEOUT_MS = 6_000;

interface ConnectionState {
  /** null until the first answer. */
  up: boolean | null;
  /** When the outage began (ms). */
  downSince: number | null;
  checking: boolean;
  /** Asks the server now. */
  check(): Promise<void>;
}

let timer: ReturnType<typeof setTimeout> | undefined;
/** When a call last got an answer (a busy server answering other calls is not down). */
let lastAnswer = 0;

function schedule(ms: number): void {
  clearTimeout(timer);
  timer = setTimeout(() => void useConnection.getState().check(), ms);
}

function mark(ok: boolean): void {
  if (ok) lastAnswer = Date.now();
  const s = useConnection.getState();
  if (ok && s.up !== true) {
    const wasDown = s.up === false;
    useConnection.setState({ up: true, downSince: null });
    schedule(BEAT_MS);
    if (wasDown) {
      // Work resumes by itself: instances, their health and the lists are read again.
      void useInstances.getState().load();
      useTriage.getState().liveRefresh();
    }
  } else if (!ok && s.up !== false) {
    useConnection.setState({ up: false, downSince: Date.now() });
    schedule(RETRY_MS);
  }
}

export const useConnection = create<ConnectionState>((set, get) => ({
  up: null,
  downSince: null,
  checking: false,
  async check() {
    const api = useSession.getState().api;
    if (!api || get().checking) return;
    set({ checking: true });
    const started = Date.now();
    try {
      const list = await fetchInstances(api, BEAT_TIMEOUT_MS);
      useInstances.getState().merge(list);
      mark(true);
    } catch (e) {
      // No answer to the heartbeat, and none to any other call meanwhile: the server is down.
      if (!(e instanceof ApiFailure) || e.status === 0) {
        if (lastAnswer < started) mark(false);
      } else mark(true);
    } finally {
      set({ checking: false });
      schedule(get().up === false ? RETRY_MS : BEAT_MS);
    }
  },
}));

/** Starts the heartbeat (once signed in); answers the function that stops it. */
export function startHeartbeat(): () => void {
  const off = onReachability(mark);
  schedule(BEAT_MS);
  return () => {
    off();
    clearTimeout(timer);
  };
}

/**
 * Whether an instance answers, as every part of the console tells it (the switcher, the banners,
 * the rows, the queue of waiting changes): no instance answers while the server does not; the
 * main instance answers when the server does; another one by its last health test. undefined:
 * not known yet.
 */
export function answering(
  id: string,
  conn: Pick<ConnectionState, 'up'> = useConnection.getState(),
  inst: { health: ReturnType<typeof useInstances.getState>['health']; mainId: string | null } = useInstances.getState(),
): boolean | undefined {
  if (conn.up === false) return false;
  const isMain = id === 'main' || id === inst.mainId;
  const h = healthOf(id, inst);
  if (isMain && conn.up === true) return h?.ok ?? true;
  return h?.ok;
}

/** The same, re-rendering when the server or the instance's health changes. */
export function useAnswering(id: string): boolean | undefined {
  const up = useConnection((s) => s.up);
  const health = useInstances((s) => s.health);
  const mainId = useInstances((s) => s.mainId);
  return answering(id, { up }, { health, mainId });
}
