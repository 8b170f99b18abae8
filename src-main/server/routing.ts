// The routing port (spec: Multi-instance routing): every path of the main port, sent to the
// instance named by `PgrSelectedInstance` (a one-element array holding its answer under `data`),
// or, without the header, to every instance in parallel (one element each, in sort_order).
// One slow or dead instance never fails the whole answer: it gets 504 or 502 in its element.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody } from '../../src-shared/errors';
import { nowTs } from '../../src-shared/time';
import { PLATFORM_VERSION } from '../../src-shared/version';
import type { InstanceInfo, InstanceManager, Target } from '../instances/manager';
import { forwardHeaders, RemoteError } from '../instances/remote';
import { checkJsonDepth } from '../../src-shared/json';
import { createBaseApp, type BaseOptions } from './base';
import { sendError } from './errors';
import { installSecurity, type AuthConfig } from './security';
import { ROUTE_PREFIX } from './addresses';

export interface Element {
  id: string;
  name: string;
  data: unknown;
  error: number;
  status_code: number;
  time: string;
  version: string;
}

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Paths that name one instance by their meaning: the header is required. */
const NEEDS_INSTANCE = new Set(['/data/v1/create']);

/**
 * Routing loops. Every request this server forwards (to its own in-process instances or to a
 * remote platform) carries HOPS_HEADER: the ids of the servers that routed it so far, this one
 * last. A request that reaches the routing code of a server already in that list is a loop
 * (a path routing itself, an instance whose URL is this server, two servers listing each other)
 * and is refused with 508 before anything is sent anywhere; so is one routed MAX_HOPS times.
 */
export const HOPS_HEADER = 'x-radar-route-hops';
export const MAX_HOPS = 4;
/** The console's routing endpoint: a routed path must never name it (it would route again). */
export { ROUTE_PREFIX };

function hopsOf(req: { headers: FastifyRequest['headers'] }): string[] {
  const v = req.headers[HOPS_HEADER];
  const text = Array.isArray(v) ? v.join(',') : (v ?? '');
  return text
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** The path as a router would see it: %-decoded where possible, slashes collapsed, lower case. */
export function normalisedPath(url: string): string {
  let p = url.split('?')[0]!.split('#')[0]!;
  for (let i = 0; i < 3; i++) {
    try {
      const d = decodeURIComponent(p);
      if (d === p) break;
      p = d;
    } catch {
      break;
    }
  }
  return p.replace(/[\\/]+/g, '/').toLowerCase();
}

/** Refuses a request that would route again: its path names the routing endpoint, or it has been here. */
export function checkLoop(serverId: string, url: string, req: { headers: FastifyRequest['headers'] }): string[] {
  const path = normalisedPath(url);
  if (path === ROUTE_PREFIX || path.startsWith(`${ROUTE_PREFIX}/`)) {
    throw new ApiError(400, `a routed path cannot name ${ROUTE_PREFIX} itself`);
  }
  const hops = hopsOf(req);
  if (hops.includes(serverId.toLowerCase())) throw new ApiError(508, 'routing loop: this request was already routed by this server');
  if (hops.length >= MAX_HOPS) throw new ApiError(508, `routing loop: the request was routed ${hops.length} times`);
  return [...hops, serverId.toLowerCase()];
}

/**
 * A JSON answer kept as the bytes it came in and written into the envelope as they are, so a
 * fan-out neither parses and re-serialises every instance's body nor decodes and re-encodes it
 * (JSON answers are passed through verbatim, as the single-instance stream does).
 */
export class RawJson {
  constructor(readonly bytes: Buffer) {}
  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

/** Whether a body holds only JSON whitespace (or nothing). */
function isBlank(raw: Buffer): boolean {
  for (const b of raw) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  return true;
}

function parseBody(contentType: string | undefined, raw: Buffer): unknown {
  if (contentType?.includes('json')) return isBlank(raw) ? null : new RawJson(raw);
  const text = raw.toString('utf8');
  return text.trim() === '' ? null : text;
}

/** The envelope array as JSON bytes, raw answers spliced in as they came. */
export function serializeElements(elements: readonly Element[]): Buffer {
  const parts: Buffer[] = [];
  elements.forEach((e, i) => {
    const { data, ...rest } = e;
    const head = JSON.stringify(rest);
    parts.push(Buffer.from(`${i === 0 ? '[' : ','}${head.slice(0, -1)},"data":`));
    parts.push(data instanceof RawJson ? data.bytes : Buffer.from(JSON.stringify(data ?? null)));
    parts.push(Buffer.from('}'));
  });
  parts.push(Buffer.from(elements.length ? ']' : '[]'));
  return Buffer.concat(parts);
}

const sendElements = (reply: FastifyReply, status: number, elements: readonly Element[]): FastifyReply =>
  reply.code(status).type('application/json; charset=utf-8').send(serializeElements(elements));

function element(info: InstanceInfo, status: number, data: unknown, version = PLATFORM_VERSION): Element {
  return {
    id: info.id,
    name: info.name,
    data,
    error: status >= 200 && status < 300 ? 0 : status,
    status_code: status,
    time: nowTs(),
    version,
  };
}

/** A remote that was itself asked for one of its instances answers with an envelope: unwrap it. */
function unwrapEnvelope(data: unknown, status: number): { data: unknown; status: number; version?: string } {
  if (Array.isArray(data) && data.length === 1 && data[0] && typeof data[0] === 'object' && 'data' in data[0]) {
    const e = data[0] as Partial<Element>;
    return { data: e.data, status: typeof e.status_code === 'number' ? e.status_code : status, version: e.version };
  }
  return { data, status };
}

/** The platform version a remote states in its answer headers (this server sends one). */
export const VERSION_HEADER = 'x-radar-platform-version';
const versionOf = (headers: Record<string, string | string[] | undefined>): string => {
  const v = headers[VERSION_HEADER];
  return typeof v === 'string' ? v : '';
};

export async function callInstance(
  target: Target,
  req: { method: string; url: string; headers: FastifyRequest['headers']; body?: Buffer },
  mainHost?: string,
): Promise<Element> {
  const { info } = target;
  if (target.kind === 'app') {
    const headers = forwardHeaders(req.headers);
    for (const k of ['pgrapikey', 'authorization']) {
      const v = req.headers[k];
      if (typeof v === 'string') headers[k] = v;
    }
    // Links the instance builds (front_link) point at the console on the main port.
    if (mainHost) headers.host = mainHost;
    if (info.kind !== 'main') headers['x-radar-instance'] = info.id;
    const res = await target.app.inject({ method: req.method as 'GET', url: req.url, headers, payload: req.body && req.body.length ? req.body : undefined });
    return element(info, res.statusCode, parseBody(res.headers['content-type'] as string | undefined, res.rawPayload));
  }
  try {
    const res = await target.client.call(req.method, req.url, req.headers, req.body);
    const parsed = parseBody(res.headers['content-type'] as string | undefined, res.body);
    if (target.client.cfg.remoteInstanceId) {
      let envelope: unknown = parsed;
      try {
        envelope = parsed instanceof RawJson ? parsed.toJSON() : parsed;
      } catch {
        return element(info, 502, errorBody(502, 'the instance answered malformed JSON'), versionOf(res.headers));
      }
      const u = unwrapEnvelope(envelope, res.status);
      return element(info, u.status, u.data, u.version ?? versionOf(res.headers));
    }
    return element(info, res.status, parsed, versionOf(res.headers));
  } catch (e) {
    const status = e instanceof RemoteError ? e.status : 502;
    return element(info, status, errorBody(status, (e as Error).message), '');
  }
}

/**
 * One remote's answer inside the envelope. A JSON answer is streamed through without being held
 * in memory; anything else is read (bounded) and placed under `data` as text.
 */
async function sendRemote(
  target: Extract<Target, { kind: 'remote' }>,
  call: { method: string; url: string; headers: FastifyRequest['headers']; body?: Buffer },
  _req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { info, client } = target;
  let s;
  try {
    s = await client.open(call.method, call.url, call.headers, call.body);
  } catch (e) {
    const status = e instanceof RemoteError ? e.status : 502;
    return sendElements(reply, status, [element(info, status, errorBody(status, (e as Error).message), '')]);
  }
  const type = String(s.headers['content-type'] ?? '');
  if (!type.includes('json')) {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of s.body) {
        size += (chunk as Buffer).length;
        if (size > client.cfg.maxBytes) throw new RemoteError(502, `the answer is larger than ${client.cfg.maxBytes} bytes`);
        chunks.push(chunk as Buffer);
      }
    } catch (e) {
      s.body.destroy();
      const status = e instanceof RemoteError ? e.status : 502;
      return sendElements(reply, status, [element(info, status, errorBody(status, (e as Error).message), '')]);
    }
    return sendElements(reply, s.status, [element(info, s.status, parseBody(type, Buffer.concat(chunks)), versionOf(s.headers))]);
  }
  const { data: _d, ...rest } = element(info, s.status, null, versionOf(s.headers));
  reply.hijack();
  reply.raw.writeHead(s.status, { 'content-type': 'application/json; charset=utf-8' });
  reply.raw.write(`[${JSON.stringify(rest).slice(0, -1)},"data":`);
  let size = 0;
  let empty = true;
  try {
    for await (const chunk of s.body) {
      size += (chunk as Buffer).length;
      if (size > client.cfg.maxBytes) throw new RemoteError(502, 'the answer is too large');
      if ((chunk as Buffer).length) empty = false;
      if (!reply.raw.write(chunk as Buffer)) await new Promise((r) => reply.raw.once('drain', r));
    }
    reply.raw.end(`${empty ? 'null' : ''}}]`);
  } catch {
    // The status is sent already: cutting the connection tells the client the body is incomplete.
    s.body.destroy();
    reply.raw.destroy();
  }
  return reply;
}

/**
 * Routes one request: to the instance named by PgrSelectedInstance, or to all of them.
 * `url` is the path and query the instances receive.
 */
export async function routeRequest(manager: InstanceManager, req: FastifyRequest, reply: FastifyReply, url: string, body: Buffer | undefined): Promise<FastifyReply> {
  const selected = req.headers.pgrselectedinstance;
  const path = url.split('?')[0]!;
  const hops = checkLoop(manager.serverId(), url, req);
  const call = { method: req.method, url, headers: { ...req.headers, [HOPS_HEADER]: hops.join(',') }, body };
  const mainHost = new URL(manager.mainUrl()).host;
  if (selected === undefined || selected === '') {
    if (NEEDS_INSTANCE.has(path)) throw new ApiError(400, 'PgrSelectedInstance header is required');
    const elements = await Promise.all(
      manager.list().map(async (info) => {
        try {
          return await callInstance(await manager.target(info), call, mainHost);
        } catch (e) {
          const status = e instanceof ApiError ? e.status : 502;
          return element(info, status, errorBody(status, (e as Error).message), '');
        }
      }),
    );
    return sendElements(reply, 200, elements);
  }
  const info = manager.find(Array.isArray(selected) ? selected[0]! : selected);
  if (!info) return sendError(reply, 404, 'instance not found');
  const target = await manager.target(info);
  if (target.kind === 'remote' && !target.client.cfg.remoteInstanceId && req.method !== 'HEAD') {
    return sendRemote(target, { ...call, url }, req, reply);
  }
  const el = await callInstance(target, call, mainHost);
  return sendElements(reply, el.status_code, [el]);
}

export interface RoutingOptions extends BaseOptions {
  manager: InstanceManager;
  auth: AuthConfig;
}

export async function createRoutingApp(o: RoutingOptions): Promise<FastifyInstance> {
  const app = createBaseApp({ logger: o.logger, limits: o.limits, serverFactory: o.serverFactory });
  installSecurity(app, o.auth);
  // Bodies are forwarded as they came; a JSON one is checked as every JSON body is (its depth),
  // so no instance is sent what this server would refuse itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: app.limits.bodyBytes }, (req, body, done) => {
    if (/\bjson\b/i.test(String(req.headers['content-type'] ?? ''))) {
      try {
        checkJsonDepth((body as Buffer).toString('utf8'));
      } catch (e) {
        return done(e as Error, undefined);
      }
    }
    return done(null, body);
  });

  const handler = (req: FastifyRequest, reply: FastifyReply) =>
    routeRequest(o.manager, req, reply, req.url, Buffer.isBuffer(req.body) ? req.body : undefined);
  app.route({ method: [...ALL_METHODS], url: '/', handler });
  app.route({ method: [...ALL_METHODS], url: '/*', handler });
  await app.ready();
  return app;
}
