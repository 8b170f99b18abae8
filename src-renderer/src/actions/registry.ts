// Every console action, declared once (actions/incidents.ts, actions/app.ts) and used by the
// toolbar, the row menu, the keyboard, the command palette and the desktop menu.
import { APP_ACTIONS } from './app';
import { INCIDENT_ACTIONS, PIVOT_ACTIONS } from './incidents';
import { appState } from './state';
import type { Action } from './types';

export type { Action, ActionGroup, AppState } from './types';
export { appState } from './state';

export const ACTIONS: readonly Action[] = [APP_ACTIONS[0]!, ...INCIDENT_ACTIONS, ...PIVOT_ACTIONS, ...APP_ACTIONS.slice(1)];

const byId = new Map(ACTIONS.map((a) => [a.id, a]));

export function getAction(id: string): Action | undefined {
  return byId.get(id);
}

/** Runs an action by id when it applies now; answers whether it ran. */
export function runAction(id: string): boolean {
  const a = byId.get(id);
  if (!a) return false;
  const s = appState();
  if (!a.predicate(s)) return false;
  void a.perform(s);
  return true;
}

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** A key as shown to the user ('Mod+K' → 'Ctrl+K' or '⌘K'). */
export function keyLabel(key: string): string {
  return key
    .split('+')
    .map((p) => (p === 'Mod' ? (isMac ? '⌘' : 'Ctrl') : p === 'Escape' ? 'Esc' : p.length === 1 ? p.toUpperCase() : p))
    .join(isMac ? '' : '+');
}
