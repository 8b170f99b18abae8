// The console's built renderer, served at `/`. The shell (HTML, scripts, styles) holds no data
// and is served without credentials; everything it shows comes through the authenticated API.
// Its files are a route area of the main port (areas.ts): @fastify/static is loaded, and the
// folder read, when the first of them is asked for.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { API_BASES } from '../../src-shared/contract/operation';
import { K } from '../../src-shared/resources/kinds';
import type { AreaPath } from './areas';

export function findRendererDir(explicit?: string): string | undefined {
  const candidates = explicit
    ? [explicit]
    : [path.resolve(__dirname, '../renderer'), path.resolve(__dirname, '../../renderer'), path.resolve(__dirname, '../../out/renderer'), path.resolve(process.cwd(), 'out/renderer')];
  return candidates.find((d) => fs.existsSync(path.join(d, 'index.html')));
}

export function isStaticRequest(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const u = req.url;
  const q = u.indexOf('?');
  const url = q < 0 ? u : u.slice(0, q);
  return url === '/' || url === '/index.html' || url.startsWith('/assets/') || url === '/favicon.svg' || url === '/favicon.ico';
}

/** The console's Content-Security-Policy (the Electron window applies it to every answer too). */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** The console's headers on its files' answers (and on the 404s of paths that would be its files). */
export function registerStaticHeaders(app: FastifyInstance): void {
  // A callback hook: the API's answers pass it without a promise each.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (isStaticRequest(req)) {
      reply.header('Content-Security-Policy', CSP);
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    }
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
 * The API paths the console asks first when it opens (the incident list's page, its labels, the
 * responsible groups): their route areas are built while the browser loads the console's code
 * (its index.html served), not when the first page is asked.
 */
export const CONSOLE_OPENING_PATHS = [K.incident, K.serviceAsset, K.finding, K.responsibleGroup].map((name) => `${API_BASES.v2}/${name}/search`);

/** Whether an answer is the console's index.html (the console opening in a browser). */
export function isConsoleIndex(req: FastifyRequest, status: number): boolean {
  if (req.method !== 'GET' || status !== 200) return false;
  const q = req.url.indexOf('?');
  const url = q < 0 ? req.url : req.url.slice(0, q);
  return url === '/' || url === '/index.html';
}

/** How the build's hashed files (assets/) are kept by the browser. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The built console's files (every file under `dir`, `/` its index.html), served by @fastify/static. */
export async function registerStaticFiles(app: FastifyInstance, dir: string): Promise<void> {
  const { default: fastifyStatic } = await import('@fastify/static');
  const assets = path.join(dir, 'assets') + path.sep;
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    cacheControl: true,
    maxAge: 0,
    // The build names each file under assets/ by its content's hash (a new build, new names): the
    // browser keeps them for good and a console opened again asks only its index.html (asked
    // again each time, like the other files, so a new build is seen at once).
    setHeaders: (reply, file) => {
      if (file.startsWith(assets)) reply.header('Cache-Control', ASSET_CACHE_CONTROL);
    },
  });
}

/**
 * The paths the console's files may be served at: `/`, and each entry of `dir` (a file's path,
 * a folder's path with everything below it); null when an entry's name is not a plain path
 * segment (the files are then registered with the app itself).
 */
export function staticAreaPaths(dir: string): AreaPath[] | null {
  const paths: AreaPath[] = [{ path: '/' }];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!/^[A-Za-z0-9._~-]+$/.test(e.name) || e.name === '.' || e.name === '..') return null;
    paths.push({ path: `/${e.name}`, under: !e.isFile() });
  }
  return paths;
}
