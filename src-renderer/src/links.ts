// Addresses that open where they were made: the lists' addresses name their instance (router.ts),
// so opening one selects that instance; a bare address opens the instance last selected here.
// A link names an instance this console does not have: said, and the main instance is shown.
// A console link pasted anywhere (the palette, the desktop window) opens its view here.
import { useEffect } from 'react';
import { announce } from './actions/notices';
import { currentRoute, hrefOf, useRoute, type Route } from './router';
import { useInstances } from './state/instances';

const LIST_VIEWS = new Set(['incidents', 'resources', 'resource']);

const listInstance = (r: Route): string | undefined => (r.view === 'incidents' || r.view === 'resources' || r.view === 'resource' ? r.instance : undefined);

/** Keeps the selected instance and the address of the list shown in agreement. */
export function useAddressInstance(ready: boolean): void {
  const route = useRoute();
  const loaded = useInstances((s) => s.loaded);
  const list = useInstances((s) => s.list);
  useEffect(() => {
    if (!ready || !loaded || !LIST_VIEWS.has(route.view)) return;
    const bare = /^#?\/?$/.test(window.location.hash);
    const inst = useInstances.getState();
    if (bare && inst.selected !== 'main') {
      // The console opened without a view: the list of the instance last selected here.
      history.replaceState(null, '', hrefOf({ view: 'incidents' }));
      window.dispatchEvent(new HashChangeEvent('hashchange'));
      return;
    }
    const want = listInstance(route) ?? 'main';
    if (want === inst.selected) return;
    const known = want === 'main' || want === 'all' || list.some((i) => i.id === want);
    if (known) {
      inst.select(want, { fromAddress: true });
      return;
    }
    announce('error', 'links.unknownInstance', { id: want });
    const r = currentRoute();
    if (r.view === 'incidents') history.replaceState(null, '', hrefOf({ ...r, instance: 'main', at: undefined, id: undefined }));
    else if (r.view === 'resource' || r.view === 'resources') history.replaceState(null, '', hrefOf({ ...r, instance: 'main' }));
    inst.select('main', { fromAddress: true });
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  }, [ready, loaded, list, route]);
}

/** The address of the view on screen, to share: this console's origin and the view, never the key. */
export function shareableLink(): string {
  return `${window.location.origin}${window.location.pathname}${window.location.hash}`;
}

/** The view a pasted console link names ('#/incidents?…'), or null when the text is not one. */
export function viewOfLink(text: string): string | null {
  const s = text.trim();
  const m = /^(?:https?:\/\/[^\s#]+)?(#\/[^\s]*)$/.exec(s);
  if (!m) return null;
  // A key is never taken from a pasted link.
  return m[1]!.replace(/(?:^#|&)key=[^&]+/, '');
}
