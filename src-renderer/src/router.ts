// Hash routes, so the same build works from any origin and the public API's front_link
// (…/#/incidents/<id>, #/findings/<id>, #/assets/<id>) opens the right view. The incident list
// keeps its whole query after `?` (views/incidents/url.ts); anything else unknown is not found.
import { useSyncExternalStore } from 'react';
import { K } from '../../src-shared/resources/kinds';

export type Route =
  | {
      view: 'incidents';
      id?: string;
      /** The list's instance ('all' for every instance); omitted: the main instance. */
      instance?: string;
      /** The open incident's instance, when it is not the list's (a list of all instances). */
      at?: string;
      /** the list's query, as written in the address */
      params?: string;
    }
  | { view: 'resources'; instance?: string }
  | { view: 'resource'; resource: string; instance?: string }
  | { view: 'record'; resource: string; id: string; instance?: string }
  | { view: 'search' }
  | { view: 'public' }
  | { view: 'changes' }
  | { view: 'compliance'; rule?: string }
  | { view: 'ruleSet'; id: string }
  | { view: 'notFound'; path: string };

/** front_link paths of the public API and the resources they name. */
const LINK_RESOURCES: Record<string, string> = { findings: 'findings', assets: 'service_assets' };
// Every kind has its resource (the declarations' names, without loading the declarations: the
// entry parses the address before the console's code is loaded).
const KNOWN = new Set<string>(Object.values(K));

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  // A key given in the address is the session's business (session.ts), never part of a view.
  const raw = hash.replace(/^#/, '').replace(/^key=[^&]*&?/, '');
  const q = raw.indexOf('?');
  const pathPart = q < 0 ? raw : raw.slice(0, q);
  const queryPart = q < 0 ? '' : raw.slice(q + 1);
  const notFound: Route = { view: 'notFound', path: `#${raw}` };
  const params = new URLSearchParams(queryPart);
  const instance = params.get('instance') ?? undefined;
  const at = params.get('at') ?? undefined;
  const decoded = pathPart.split('/').filter(Boolean).map(decode);
  if (decoded.some((p) => p === null)) return notFound;
  const [head, a, b, ...more] = decoded as string[];
  if (more.length) return notFound;
  switch (head) {
    case undefined:
      return pathPart === '' || pathPart === '/' ? { view: 'incidents' } : notFound;
    case 'incidents': {
      if (b) return notFound;
      params.delete('instance');
      params.delete('at');
      const rest = params.toString().replace(/%2C/gi, ',');
      return { view: 'incidents', ...(a ? { id: a } : {}), ...(instance ? { instance } : {}), ...(a && at ? { at } : {}), ...(rest ? { params: rest } : {}) };
    }
    case 'findings':
    case 'assets':
      if (b) return notFound;
      return a ? { view: 'record', resource: LINK_RESOURCES[head]!, id: a, instance } : { view: 'resource', resource: LINK_RESOURCES[head]!, ...(instance ? { instance } : {}) };
    case 'r':
      if (!a) return { view: 'resources', ...(instance ? { instance } : {}) };
      if (!KNOWN.has(a)) return notFound;
      return b ? { view: 'record', resource: a, id: b, instance } : { view: 'resource', resource: a, ...(instance ? { instance } : {}) };
    case 'search':
      return a ? notFound : { view: 'search' };
    case 'public':
      return a ? notFound : { view: 'public' };
    case 'changes':
      return a ? notFound : { view: 'changes' };
    case 'compliance':
      if (!a) return { view: 'compliance' };
      if (!b || (a !== 'rules' && a !== 'sets')) return notFound;
      return a === 'rules' ? { view: 'compliance', rule: b } : { view: 'ruleSet', id: b };
    default:
      return notFound;
  }
}

let linkInstance: () => string | undefined = () => undefined;
/** Where the lists' addresses take their instance from when a route names none (the one selected). */
export function setLinkInstance(fn: () => string | undefined): void {
  linkInstance = fn;
}

/**
 * The address of a route. The lists (incidents, resources) carry their instance, so an address
 * opens where it was made: a route that names none takes the instance selected now.
 */
export function hrefOf(r: Route): string {
  const inst = (i?: string) => (i && i !== 'main' ? `instance=${encodeURIComponent(i)}` : '');
  const listInst = (i: string | undefined) => inst(i ?? linkInstance());
  const qs = (...parts: (string | undefined)[]) => {
    const s = parts.filter(Boolean).join('&');
    return s ? `?${s}` : '';
  };
  switch (r.view) {
    case 'incidents':
      return `#/incidents${r.id ? `/${encodeURIComponent(r.id)}` : ''}${qs(r.params, listInst(r.instance), r.id && r.at && r.at !== (r.instance ?? linkInstance() ?? 'main') ? `at=${encodeURIComponent(r.at)}` : '')}`;
    case 'resources':
      return `#/r${qs(listInst(r.instance))}`;
    case 'resource':
      return `#/r/${r.resource}${qs(listInst(r.instance))}`;
    case 'record':
      return `#/r/${r.resource}/${encodeURIComponent(r.id)}${qs(inst(r.instance))}`;
    case 'search':
      return '#/search';
    case 'public':
      return '#/public';
    case 'changes':
      return '#/changes';
    case 'compliance':
      return r.rule ? `#/compliance/rules/${encodeURIComponent(r.rule)}` : '#/compliance';
    case 'ruleSet':
      return `#/compliance/sets/${encodeURIComponent(r.id)}`;
    case 'notFound':
      return r.path;
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

let cachedHash: string | null = null;
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

