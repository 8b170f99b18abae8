// The console's built renderer, served at `/`. The shell (HTML, scripts, styles) holds no data
// and is served without credentials; everything it shows comes through the authenticated API.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';

export function findRendererDir(explicit?: string): string | undefined {
  const candidates = explicit
    ? [explicit]
    : [path.resolve(__dirname, '../renderer'), path.resolve(__dirname, '../../renderer'), path.resolve(__dirname, '../../out/renderer'), path.resolve(process.cwd(), 'out/renderer')];
  return candidates.find((d) => fs.existsSync(path.join(d, 'index.html')));
}

export function isStaticRequest(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url.split('?')[0]!;
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

export async function registerStatic(app: FastifyInstance, dir: string | undefined): Promise<void> {
  app.addHook('onSend', async (req, reply, payload) => {
    if (isStaticRequest(req)) {
      reply.header('Content-Security-Policy', CSP);
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    }
    return payload;
  });
  if (!dir) {
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .send('<!doctype html><meta charset="utf-8"><title>Radar console</title><p>The console is not built. Run <code>npm run build</code> and restart the server.</p>'),
    );
    return;
  }
  await app.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: ['index.html'], cacheControl: true, maxAge: 0 });
}
