// The interactive API reference at /reference/: Scalar's API reference (its standalone bundle,
// copied beside the built console, to out/reference/scalar.js; no CDN) rendering this
// server's /openapi.json, with "try it" sending the console's key to this same origin. The page
// holds no data and no key: it takes the key as the console does (the desktop bridge, #key=...,
// or the tab's session) and fetches the document with it.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CSP_DIRECTIVES } from './console-files';

export const REFERENCE_PATH = '/reference/';

/** Where the bundle is: the built console, or (a checkout that was not built) the package itself. */
export function findReferenceBundle(rendererDir: string | undefined): string | undefined {
  const built = rendererDir && path.join(rendererDir, '..', 'reference', 'scalar.js');
  if (built && fs.existsSync(built)) return built;
  try {
    return require.resolve('@scalar/api-reference/dist/browser/standalone.js');
  } catch {
    return undefined;
  }
}

export const isReferenceRequest = (req: FastifyRequest): boolean => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const url = req.url.split('?')[0]!;
  return url === '/reference' || url.startsWith(REFERENCE_PATH);
};

/**
 * The page's Content-Security-Policy: the console's, with the one thing the renderer needs
 * beyond it, its workers (Vue's styles are set inline, as the console's own already allow).
 */
export const REFERENCE_CSP = CSP_DIRECTIVES.flatMap((d) => (d.startsWith('font-src ') ? [d, "worker-src 'self' blob:"] : [d])).join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Radar console — API reference</title>
    <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    <style>
      body { margin: 0; font-family: system-ui, sans-serif; }
      .radar-reference-bar { display: flex; gap: 1rem; align-items: center; padding: 0.4rem 1rem; border-bottom: 1px solid #8884; font-size: 0.9rem; }
      .radar-reference-bar a { color: inherit; }
      #radar-reference-note { padding: 2rem; }
    </style>
  </head>
  <body>
    <nav class="radar-reference-bar"><a href="/">← Radar console</a><span>API reference</span></nav>
    <p id="radar-reference-note" hidden></p>
    <div id="radar-reference"></div>
    <script src="/reference/scalar.js"></script>
    <script src="/reference/init.js"></script>
  </body>
</html>
`;

/** Finds the key as the console does, fetches the document with it, and renders the reference. */
const INIT = `'use strict';
(async function () {
  var STORAGE_KEY = 'radar-console.apiKey';
  var note = document.getElementById('radar-reference-note');
  function say(text) { note.textContent = text; note.hidden = false; }
  async function key() {
    if (window.radarDesktop) return (await window.radarDesktop.session()).apiKey;
    var m = /(?:^#|&)key=([^&]+)/.exec(location.hash);
    if (m) {
      var k = decodeURIComponent(m[1]);
      sessionStorage.setItem(STORAGE_KEY, k);
      history.replaceState(null, '', location.pathname + location.search);
      return k;
    }
    return sessionStorage.getItem(STORAGE_KEY);
  }
  try {
    var apiKey = await key();
    if (!apiKey) {
      say('The reference needs the API key: open it from the console, or add #key=<key> to this address (serve prints the key).');
      return;
    }
    var res = await fetch('/openapi.json', { headers: { PgrApiKey: apiKey } });
    if (!res.ok) { say('The document could not be read: HTTP ' + res.status + '.'); return; }
    var doc = await res.json();
    // "Try it" calls this origin (the page's), whatever address the document names.
    doc.servers = [{ url: location.origin, description: 'this server (the main port)' }];
    window.Scalar.createApiReference('#radar-reference', {
      content: doc,
      servers: doc.servers,
      authentication: { preferredSecurityScheme: 'PgrApiKey', securitySchemes: { PgrApiKey: { value: apiKey } } },
      withDefaultFonts: false,
      hideClientButton: true,
      telemetry: false,
      defaultOpenAllTags: false,
      hideDownloadButton: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
    });
  } catch (e) {
    say('The reference could not be shown: ' + (e && e.message ? e.message : e));
  }
})();
`;

const send = (reply: FastifyReply, type: string, body: string | Buffer) =>
  reply
    .type(type)
    .header('Content-Security-Policy', REFERENCE_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-cache')
    .send(body);

/** The reference page, its start script and the renderer's bundle (public like the console's shell). */
export function registerReference(app: FastifyInstance, rendererDir: string | undefined): void {
  const bundle = findReferenceBundle(rendererDir);
  let code: Buffer | undefined;
  app.get(REFERENCE_PATH, { schema: { hide: true } }, async (_req, reply) => send(reply, 'text/html; charset=utf-8', PAGE));
  app.get(`${REFERENCE_PATH}init.js`, { schema: { hide: true } }, async (_req, reply) => send(reply, 'text/javascript; charset=utf-8', INIT));
  app.get(`${REFERENCE_PATH}scalar.js`, { schema: { hide: true } }, async (_req, reply) => {
    if (!bundle) return reply.code(404).type('text/plain; charset=utf-8').send('the reference renderer is not installed: run npm install and npm run build');
    code ??= fs.readFileSync(bundle);
    return send(reply, 'text/javascript; charset=utf-8', code);
  });
}
