// Route areas built on first use. Most of a port's routes are the generic operations of thirty
// record kinds; registering all of them (each with its HEAD route) was most of the server's
// start-up. Each record kind's routes under an API prefix (`/cruddy/v2/agents/...`) are an area:
// a Fastify app of their own, with the same conventions, security and error answers as the port's
// app, built and made ready when the first request for that area arrives. Until then the port's
// app holds none of its routes.
//
// The areas split paths, not routes: every route whose path begins with `<prefix>/<name>` lives in
// that area, and no other app has a route that such a path could match (checked as routes are
// registered), so an area's own router answers 404, and 405 with `Allow`, exactly as one app
// holding every route would. A request reaches its area straight from the port's server when its
// path names the area as is; any other spelling (duplicate slashes, %-encoding, an alias) passes
// through the port's app, whose first hook hands it over once the path is rewritten.
//
// An area may also be named by its paths (`addPaths`): exact paths, and paths with everything
// below them (`/console/v1/export`, `/assets`). Such an area's routes are registered on its app
// as they would be on the port's app (no prefix, its hooks the app's own), so the routes whose
// modules are only needed when they are asked for (imports and exports, sync, the console's
// files) are loaded with their area.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import FindMyWay from 'find-my-way';
import { errorBody, ERR } from '../../src-shared/errors';
import { MAX_PARAM_LENGTH } from './limits';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type ServerFactory = NonNullable<FastifyServerOptions['serverFactory']>;

/** A path of an area named by its paths: the path itself and, with `under`, every path below it. */
export interface AreaPath {
  path: string;
  under?: boolean;
}

interface Area {
  /** What warnings call the area. */
  label: string;
  /** A record kind's area: its API prefix and the kind (its routes are under `<base>/<name>`). */
  base: string;
  name: string;
  /** An area named by its paths (`addPaths`): they, not `base`, say which routes are its. */
  paths: AreaPath[] | null;
  register: (scope: FastifyInstance) => void | Promise<void>;
  /** The area's handler once its app is ready. */
  handler: Handler | null;
  app: FastifyInstance | null;
  waiting: [IncomingMessage, ServerResponse][] | null;
  /** Whether the area has answered a request (its first answer sent); then `answered` runs. */
  hasAnswered: boolean;
  answered: (() => void)[];
}

/** On a request the port's handler found no area for: the path (rewritten) it looked up. */
const CHECKED = Symbol('area checked');
type Checked = IncomingMessage & { [CHECKED]?: string };

/** The router options of every app (base.ts): the areas read paths as the apps' routers do. */
const ROUTER_OPTIONS = { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH } as const;

export class LazyAreas {
  private readonly areas = new Map<string, Area>();
  private readonly router = FindMyWay(ROUTER_OPTIONS);
  private readonly bases = new Set<string>();
  private closed = false;

  /**
   * @param make a new app with the port's conventions and security (the area's routes are then
   *   registered on it under its API prefix)
   * @param rewrite the port's rewriting of request URLs (aliases), applied before a path is read
   */
  constructor(
    private readonly make: () => FastifyInstance,
    private readonly rewrite: (url: string) => string = (url) => url,
  ) {}

  /** Declares the area `<base>/<name>`; `register` adds its routes (inside a plugin whose prefix is `base`). */
  add(base: string, name: string, register: (scope: FastifyInstance) => void): void {
    const key = `${base}/${name}`;
    if (this.areas.has(key)) throw new Error(`route area ${key} declared twice`);
    this.areas.set(key, { label: key, base, name, paths: null, register, handler: null, app: null, waiting: null, hasAnswered: false, answered: [] });
    if (!this.bases.has(base)) {
      this.bases.add(base);
      const found = (_req: unknown, _res: unknown, params: Record<string, string | undefined>) => params;
      this.router.on('GET', `${base}/:area`, found, { base });
      this.router.on('GET', `${base}/:area/*`, found, { base });
    }
  }

  /**
   * Declares an area by its paths; `register` adds its routes on the area's app itself (which
   * may load their modules first). Two areas cannot share a path (the router refuses it).
   */
  addPaths(label: string, paths: AreaPath[], register: (app: FastifyInstance) => void | Promise<void>): void {
    const key = `paths:${label}`;
    if (this.areas.has(key)) throw new Error(`route area ${label} declared twice`);
    for (const p of paths) {
      if (!p.path.startsWith('/') || /[:*]/.test(p.path)) throw new Error(`route area ${label}: ${p.path} is not a plain path`);
    }
    this.areas.set(key, { label, base: '', name: '', paths, register, handler: null, app: null, waiting: null, hasAnswered: false, answered: [] });
    const found = () => undefined;
    for (const p of paths) {
      this.router.on('GET', p.path, found, { key });
      if (p.under) this.router.on('GET', `${p.path.replace(/\/$/, '')}/*`, found, { key });
    }
  }

  has(base: string, name: string): boolean {
    return this.areas.has(`${base}/${name}`);
  }

  /** The area a request URL (already rewritten) falls in, if any. */
  match(url: string): Area | undefined {
    let found: ReturnType<typeof this.router.find>;
    try {
      found = this.router.find('GET', url);
    } catch {
      return undefined; // bad %-encoding: the port's app answers it
    }
    if (!found) return undefined;
    const { base, key } = found.store as { base?: string; key?: string };
    if (key) return this.areas.get(key);
    return this.areas.get(`${base}/${found.params.area}`);
  }

  /**
   * Installs the hand-over on the port's app: its first onRequest hook (before security) gives a
   * request of an area to that area, and a route of the port's app that an area would shadow is
   * refused. Closing the port's app closes the areas' apps.
   */
  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const url = route.url ?? route.path;
      for (const base of this.bases) {
        if (!url.startsWith(`${base}/`)) continue;
        const first = url.slice(base.length + 1).split('/')[0] ?? '';
        if (first.startsWith(':') || first.includes('*') || this.areas.has(`${base}/${first}`)) {
          throw new Error(`the route ${url} lies in the route area of ${base}/${first}: register it there`);
        }
      }
      for (const area of this.areas.values()) {
        const p = area.paths?.find((p) => mayMatch(url, p));
        if (p) throw new Error(`the route ${url} may answer paths of the route area ${area.label} (${p.path}): register it there`);
      }
    });
    app.addHook('onRequest', (req, reply, done) => {
      // The port's handler (front) already found no area for this very path: not looked up again.
      if ((req.raw as Checked)[CHECKED] === req.url) return done();
      const area = this.match(req.url);
      if (!area) return done();
      void reply.hijack();
      this.dispatch(area, req.raw, reply.raw);
    });
    app.addHook('onClose', async () => {
      this.closed = true;
      await Promise.allSettled([...this.areas.values()].map((a) => a.app?.close()));
    });
  }

  /**
   * The port server's handler: a request whose path names an area as is goes to it at once,
   * any other to `handler` (the port's app).
   */
  front(handler: Handler): Handler {
    return (req, res) => {
      const url = this.rewrite(req.url ?? '/');
      const area = this.match(url);
      if (area) return this.dispatch(area, req, res);
      (req as Checked)[CHECKED] = url;
      handler(req, res);
    };
  }

  /** The port's serverFactory with the areas in front of its app's handler. */
  serverFactory(factory: ServerFactory): ServerFactory {
    return (handler, opts) => factory(this.front(handler as Handler) as typeof handler, opts);
  }

  /**
   * Builds the area a path falls in now, unless it is built or being built already: the requests
   * expected next (the ones the console's opening sends) then find it ready instead of waiting
   * for it. Nothing happens for a path of no area.
   */
  buildAhead(url: string): void {
    const area = this.match(url);
    if (!area || area.handler || area.waiting || this.closed) return;
    area.waiting = [];
    this.start(area);
  }

  /**
   * Builds the area of `url` once the area of `after` has sent its first answer (at once if it
   * has): what a client asks next is built while it reads that answer, not while the answer is
   * made. Nothing happens for a path of no area.
   */
  buildAfter(url: string, after: string): void {
    const first = this.match(after);
    if (!first || first.hasAnswered) return this.buildAhead(url);
    first.answered.push(() => this.buildAhead(url));
  }

  private dispatch(area: Area, req: IncomingMessage, res: ServerResponse): void {
    if (!area.hasAnswered) {
      res.once('finish', () => {
        if (area.hasAnswered) return;
        area.hasAnswered = true;
        for (const fn of area.answered.splice(0)) fn();
      });
    }
    if (area.handler) return area.handler(req, res);
    if (area.waiting) return void area.waiting.push([req, res]);
    area.waiting = [[req, res]];
    this.start(area);
  }

  /** Builds the area; the requests waiting for it (area.waiting) go to it once it is ready. */
  private start(area: Area): void {
    this.build(area).then(
      (handler) => {
        const waiting = area.waiting ?? [];
        area.waiting = null;
        area.handler = handler;
        for (const [q, s] of waiting) handler(q, s);
      },
      (e: unknown) => {
        const waiting = area.waiting ?? [];
        area.waiting = null;
        process.emitWarning(`route area ${area.label} could not be built: ${(e as Error)?.message ?? String(e)}`);
        for (const [, s] of waiting) refuse(s);
      },
    );
  }

  private async build(area: Area): Promise<Handler> {
    if (this.closed) throw new Error('the server is closing');
    const app = this.make();
    const paths = area.paths ?? [{ path: `${area.base}/${area.name}`, under: true }];
    app.addHook('onRoute', (route) => {
      const url = route.url ?? route.path;
      if (!paths.some((p) => within(url, p))) throw new Error(`the route ${url} lies outside its route area ${area.label}`);
    });
    if (area.paths) await area.register(app);
    else void app.register(async (scope) => area.register(scope), { prefix: area.base });
    await app.ready();
    area.app = app;
    return app.routing as Handler;
  }
}

const segments = (path: string): string[] => path.split('/').filter(Boolean);

/** Whether a route's URL is one of the area's paths (or below it, for a path with `under`). */
function within(url: string, p: AreaPath): boolean {
  const u = segments(url);
  const a = segments(p.path);
  if (u.length < a.length || (u.length > a.length && !p.under)) return false;
  return a.every((s, i) => u[i] === s);
}

/** Whether a route (its parameters and wildcards matching any segment) could answer a path of the area. */
function mayMatch(url: string, p: AreaPath): boolean {
  const u = segments(url);
  const a = segments(p.path);
  for (let i = 0; i < a.length; i++) {
    const s = u[i];
    if (s === undefined) return false;
    if (s.includes('*')) return true;
    if (!s.includes(':') && s !== a[i]) return false;
  }
  return u.length === a.length || !!p.under || u[a.length]!.includes('*');
}

function refuse(res: ServerResponse): void {
  if (res.headersSent) return void res.end();
  res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(errorBody(500, ERR.internal)));
}
