// A port that listens before its app is built. The server answers "ready" as soon as its ports
// accept connections; the apps (Fastify, the routes of every resource, their schemas) are built
// right after, and requests that arrive meanwhile wait for them (their bodies wait unread in the
// socket). The app takes the port over through Fastify's serverFactory, so it configures the
// server (client errors, time-outs) as it would its own; this closes it. The main port's gate
// answers the console's files itself (console-files.ts), from the moment it listens: a console
// opened on a server just started loads its code while the app is built.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../../src-shared/errors';
import { clientErrorAnswer } from './client-error';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface GateOptions {
  maxHeaderSize: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Answers the port gives itself, whether or not its app is built (the console's files). */
export interface OwnAnswers {
  /** Whether the request may be one of them (decided at once, without I/O). */
  wants(req: IncomingMessage): boolean;
  /** Answers it at once: true when answered, false when it is not one of them after all (nothing written). */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Fastify's default keep-alive time-out (this server is made before the app that would set it). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export class Gate {
  readonly server: http.Server;
  private handler: Handler | null = null;
  private next: Handler | null = null;
  private waiting: [IncomingMessage, ServerResponse][] = [];
  private failed = false;
  private asked = false;
  private first: (() => void) | null = null;

  constructor(o: GateOptions, own?: OwnAnswers) {
    this.server = http.createServer({ maxHeaderSize: o.maxHeaderSize, headersTimeout: o.headersTimeoutMs, requestTimeout: o.requestTimeoutMs }, (req, res) => {
      if (!this.asked) {
        this.asked = true;
        const f = this.first;
        this.first = null;
        f?.();
      }
      if (!own?.wants(req) || !own.serve(req, res)) this.route(req, res);
    });
    this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Until the app takes the port over (and answers them itself), requests Node's parser
    // refuses are answered here, in the same shape.
    this.server.on('clientError', (err: { code?: string }, socket) => {
      if (!this.next) clientErrorAnswer(err, socket as Socket);
    });
  }

  /** To the app, or to wait for it. */
  private route(req: IncomingMessage, res: ServerResponse): void {
    if (this.handler) this.handler(req, res);
    else if (this.failed) refuse(res);
    else this.waiting.push([req, res]);
  }

  /** Calls `fn` once, when the first request arrives (at once if one already has). */
  onFirstRequest(fn: () => void): void {
    if (this.asked) fn();
    else this.first = fn;
  }

  /** Listens on `host:port` (0: a free port) and answers the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const a = this.server.address();
        resolve(typeof a === 'object' && a ? a.port : 0);
      });
    });
  }

  /** Fastify's serverFactory: the app's handler is kept until open(). */
  readonly factory = (handler: Handler): http.Server => {
    this.next = handler;
    return this.server;
  };

  /** The app is ready: it takes the waiting requests and every later one. */
  open(): void {
    this.handler = this.next;
    for (const [req, res] of this.waiting.splice(0)) this.handler!(req, res);
  }

  /** The app could not be built: waiting and later requests are answered 503. */
  fail(): void {
    this.failed = true;
    for (const [, res] of this.waiting.splice(0)) refuse(res);
  }

  async close(): Promise<void> {
    this.fail();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Lets the requests that arrived meanwhile in (a turn of the event loop with its I/O), between
 * the long synchronous steps of a start (loading the apps' modules, building the app): the port
 * answers what it can without its app (the console's files) instead of after the whole build.
 */
export async function letRequestsIn(): Promise<void> {
  // Two turns: a connection accepted in the first has its request read in the second.
  for (let i = 0; i < 2; i++) {
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function refuse(res: ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(errorBody(503, 'the server is not available')));
}
