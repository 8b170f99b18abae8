// The console's files (the built renderer: index.html, favicon.svg, assets/), served by the main
// port itself from the moment it listens: the gate (gate.ts) answers them before the app is built
// and after, so a console opened on a server just started gets its code while the API is still
// being built, and the app never loads a static-file plugin. Everything else under those paths
// (a file the build did not make, a method other than GET and HEAD) goes to the app, which answers
// in the API's error shape. The shell holds no data and is served without credentials; the Host
// check (DNS rebinding) applies as it does to every answer of the port.
//
// Each answer is made from the file as it is on disk when asked (a new build is served at once):
// its validators are the file's size and modification time (ETag W/"size-mtime", Last-Modified),
// a conditional request whose validators match is answered 304; hashed files (assets/) are kept
// by the browser for good, the others asked again each time. A Range header is ignored (the whole
// file is sent, as HTTP allows); none is advertised.
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { PLATFORM_VERSION } from '../../src-shared/version';
import type { OwnAnswers } from './gate';
import { isAllowedHost } from './hosts';

/** The built console's folder: the given one, or the build's place beside the server's code. */
export function findRendererDir(explicit?: string): string | undefined {
  const candidates = explicit
    ? [explicit]
    : [path.resolve(__dirname, '../renderer'), path.resolve(__dirname, '../../renderer'), path.resolve(__dirname, '../../out/renderer'), path.resolve(process.cwd(), 'out/renderer')];
  return candidates.find((d) => fs.existsSync(path.join(d, 'index.html')));
}

/** The directives of the console's Content-Security-Policy. */
export const CSP_DIRECTIVES: readonly string[] = [
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
];

/** The console's Content-Security-Policy (the Electron window applies it to every answer too). */
export const CSP = CSP_DIRECTIVES.join('; ');

/** The headers of every answer at the console's paths (its files, and the 404s of paths that would be its files). */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** How the build's hashed files (assets/) are kept by the browser. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** How the other files are kept: asked again each time (a new build is seen at once). */
export const FILE_CACHE_CONTROL = 'public, max-age=0';

/** The content types of the files a build makes (test/http/console-files.test.ts checks each file has one). */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

const SAFE_NAME = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

/**
 * The file a console path names, relative to the console's folder: `/` and `/index.html` its
 * index, `/favicon.svg` and `/favicon.ico`, `/assets/<name>`; null for any other path (and for a
 * name with anything but letters, digits and `._~-`, or starting with a dot).
 */
export function consoleFileOf(url: string): string | null {
  const q = url.indexOf('?');
  const p = q < 0 ? url : url.slice(0, q);
  if (p === '/' || p === '/index.html') return 'index.html';
  if (p === '/favicon.svg' || p === '/favicon.ico') return p.slice(1);
  if (p.startsWith('/assets/')) {
    const name = p.slice('/assets/'.length);
    return SAFE_NAME.test(name) ? `assets/${name}` : null;
  }
  return null;
}

/** Whether an `If-None-Match` value names this entity tag (weak comparison, `*` any). */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

export class ConsoleFiles implements OwnAnswers {
  private indexListeners: (() => void)[] = [];
  private indexServed = false;

  /** `extraHosts`: the Host names the server answers to besides the loopback ones. */
  constructor(
    readonly dir: string,
    private readonly extraHosts: readonly string[] = [],
  ) {}

  /**
   * Calls `fn` once the console's index.html has been served (at once if it has been already):
   * the console is opening in a browser.
   */
  onIndexServed(fn: () => void): void {
    if (this.indexServed) fn();
    else this.indexListeners.push(fn);
  }

  /** Whether `req` asks for what may be one of the console's files (GET or HEAD at one of their paths). */
  wants(req: IncomingMessage): boolean {
    return (req.method === 'GET' || req.method === 'HEAD') && consoleFileOf(req.url ?? '') !== null;
  }

  /**
   * Answers `req` when it asks for one of the console's files (GET or HEAD, a Host this server
   * answers to, a file that exists): true once it is answered, false when the request is not for
   * it (nothing written). The file is read at once (a few hundred KB at most, from the local
   * disk): the answer goes out in the same turn of the event loop, which on a server just
   * started is one of the few between the steps of its build.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const rel = consoleFileOf(req.url ?? '');
    if (rel === null || !isAllowedHost(req.headers.host, this.extraHosts)) return false;
    const file = path.join(this.dir, rel);
    let body: Buffer | null = null;
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
      if (!st.isFile()) return false;
      if (req.method === 'GET') body = fs.readFileSync(file);
    } catch {
      return false;
    }
    const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      ...CONSOLE_HEADERS,
      'Cache-Control': rel.startsWith('assets/') ? ASSET_CACHE_CONTROL : FILE_CACHE_CONTROL,
      'Content-Type': CONTENT_TYPES[path.extname(rel).toLowerCase()] ?? 'application/octet-stream',
      ETag: etag,
      'Last-Modified': st.mtime.toUTCString(),
      'x-radar-platform-version': PLATFORM_VERSION,
    };
    if (rel === 'index.html' && req.method === 'GET') this.indexOpened();
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const fresh = inm !== undefined ? etagMatches(inm, etag) : ims !== undefined && Math.floor(st.mtimeMs / 1000) <= Math.floor(Date.parse(ims) / 1000);
    if (fresh) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    // A file replaced between the two reads (a build in progress): its length as read.
    headers['Content-Length'] = String(body ? body.length : st.size);
    res.writeHead(200, headers);
    res.end(body ?? undefined);
    return true;
  }

  private indexOpened(): void {
    this.indexServed = true;
    for (const fn of this.indexListeners.splice(0)) fn();
  }
}
