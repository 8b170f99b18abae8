// Hash routes, so the same build works from any origin and the public API's front_link
// (…/#/incidents/<id>, #/findings/<id>, #/assets/<id>) opens the right view.
import { useSyncExternalStore } from 'react';

export type Route =
  | { view: 'incidents'; id?: string; instance?: string }
  | { view: 'resources' }
  | { view: 'resource'; resource: string }
  | { view: 'record'; resource: string; id: string; instance?: string }
  | { view: 'search' }
  | { view: 'public' }
  | { view: 'changes' };

/** front_link paths of the public API and the resources they name. */
const LINK_RESOURCES: Record<string, string> = { findings: 'findings', assets: 'service_assets' };

export function parseRoute(hash: string): Route {
  const [pathPart = '', queryPart = ''] = hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(queryPart);
  const instance = params.get('instance') ?? undefined;
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  const [head, a, b] = parts;
  switch (head) {
    case 'incidents':
      return a ? { view: 'incidents', id: a, instance } : { view: 'incidents' };
    case 'findings':
    case 'assets':
      return a ? { view: 'record', resource: LINK_RESOURCES[head]!, id: a, instance } : { view: 'resource', resource: LINK_RESOURCES[head]! };
    case 'r':
      if (!a) return { view: 'resources' };
      return b ? { view: 'record', resource: a, id: b, instance } : { view: 'resource', resource: a };
    case 'search':
      return { view: 'search' };
    case 'public':
      return { view: 'public' };
    case 'changes':
      return { view: 'changes' };
    default:
      return { view: 'incidents' };
  }
}

export function hrefOf(r: Route): string {
  const inst = (i?: string) => (i && i !== 'main' ? `?instance=${encodeURIComponent(i)}` : '');
  switch (r.view) {
    case 'incidents':
      return r.id ? `#/incidents/${encodeURIComponent(r.id)}${inst(r.instance)}` : '#/incidents';
    case 'resources':
      return '#/r';
    case 'resource':
      return `#/r/${r.resource}`;
    case 'record':
      return `#/r/${r.resource}/${encodeURIComponent(r.id)}${inst(r.instance)}`;
    case 'search':
      return '#/search';
    case 'public':
      return '#/public';
    case 'changes':
      return '#/changes';
  }
}

export function navigate(r: Route, replace = false): void {
  const href = hrefOf(r);
  if (window.location.hash === href) return;
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

const subscribe = (cb: () => void) => {
  window.addEventListener('hashchange', cb);
  window.addEventListener('popstate', cb);
  return () => {
    window.removeEventListener('hashchange', cb);
    window.removeEventListener('popstate', cb);
  };
};

let cachedHash = '';
let cachedRoute: Route = { view: 'incidents' };

export function currentRoute(): Route {
  const h = window.location.hash;
  if (h !== cachedHash) {
    cachedHash = h;
    cachedRoute = parseRoute(h);
  }
  return cachedRoute;
}

export function useRoute(): Route {
  return useSyncExternalStore(subscribe, currentRoute);
}
