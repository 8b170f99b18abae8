// The console's built renderer at `/`, as the main app sees it. Its files are answered by the
// port itself (console-files.ts, through the gate), before the app exists and after; what reaches
// the app at their paths is what they do not answer (a file the build did not make, another
// method), answered here in the API's error shape with the console's headers. The shell holds no
// data and is served without credentials; everything it shows comes through the authenticated API.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_BASES } from '../../src-shared/contract/operation';
import { K } from '../../src-shared/resources/kinds';
import { CONSOLE_HEADERS } from './console-files';

export function isStaticRequest(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const u = req.url;
  const q = u.indexOf('?');
  const url = q < 0 ? u : u.slice(0, q);
  return url === '/' || url === '/index.html' || url.startsWith('/assets/') || url === '/favicon.svg' || url === '/favicon.ico';
}

/** The console's headers on the answers at its files' paths that reach the app (their 404s). */
export function registerStaticHeaders(app: FastifyInstance): void {
  // A callback hook: the API's answers pass it without a promise each.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (isStaticRequest(req)) for (const [name, value] of Object.entries(CONSOLE_HEADERS)) reply.header(name, value);
    done(null, payload);
  });
}

/** A page saying the console is not built, at `/`. */
export function registerNoConsole(app: FastifyInstance): void {
  app.get('/', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send('<!doctype html><meta charset="utf-8"><title>Radar console</title><p>The console is not built. Run <code>npm run build</code> and restart the server.</p>'),
  );
}

/**
 * The API paths the console asks first when it opens, its first page first (the incident list's
 * page, then its labels and the responsible groups): their route areas are built ahead (app.ts),
 * not when they are asked.
 */
export const CONSOLE_OPENING_PATHS = [K.incident, K.serviceAsset, K.finding, K.responsibleGroup].map((name) => `${API_BASES.v2}/${name}/search`);
