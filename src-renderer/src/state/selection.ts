// The instance the console shows first, known before the application is loaded (the opening's
// first request reads it too: data/opening.ts). A leaf of the state: the address and storage only.
import { currentRoute } from '../router';

export const SELECTION_KEY = 'radar-console.instance';

/**
 * The instance shown first: the one the address of a list names (none named: the main one), so
 * that a list opened by its address reads that instance from its first request; a bare address
 * opens the instance last selected here. A name this console does not have is said and replaced
 * by the main instance once the instance list arrives (links.ts).
 */
export function initialSelection(): string {
  const bare = /^\/?$/.test(window.location.hash.replace(/^#/, '').replace(/^key=[^&]*&?/, ''));
  const r = currentRoute();
  if (!bare && (r.view === 'incidents' || r.view === 'resources' || r.view === 'resource')) {
    const named = r.instance ?? 'main';
    localStorage.setItem(SELECTION_KEY, named);
    return named;
  }
  return localStorage.getItem(SELECTION_KEY) ?? 'main';
}
