// Helpers of the public API, routing and remote-instance tests: tiny HTTP(S) servers that play
// remote platforms (recording what they receive, answering slowly, answering too much), a raw
// HTTP client that can send the headers fetch refuses to send, and small lookups.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server';

export const PUB = '/data/public/api/v1';
export const V2 = '/cruddy/v2';
export const UNKNOWN_ID = '6f1c1b8e-2f0f-4a44-9a39-00000000abcd';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Header names as sent, in order (rawHeaders), lower-cased. */
  names: string[];
  body: string;
}

export interface LittleServer {
  url: string;
  port: number;
  requests: Recorded[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, rec: Recorded) => void;

function recorder(handler: Handler, requests: Recorded[]): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => void collect(req).then((body) => {
    const rec: Recorded = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      names: req.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()),
      body,
    };
    requests.push(rec);
    handler(req, res, rec);
  });
}

function collect(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

async function listen(server: http.Server | https.Server, scheme: 'http' | 'https', requests: Recorded[]): Promise<LittleServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A plain HTTP server answering with `handler`, recording every request. */
export function startHttp(handler: Handler): Promise<LittleServer> {
  const requests: Recorded[] = [];
  return listen(http.createServer(recorder(handler, requests)), 'http', requests);
}

/** An HTTPS server with the given certificate, answering with `handler`. */
export function startHttps(tls: { key: string; cert: string }, handler: Handler): Promise<LittleServer> {
  const requests: Recorded[] = [];
  return listen(https.createServer({ key: tls.key, cert: tls.cert }, recorder(handler, requests)), 'https', requests);
}

/** A recording proxy: records each request, then forwards it as is (Host rewritten) to `target`. */
export function startRecordingProxy(target: string): Promise<LittleServer> {
  const t = new URL(target);
  return startHttp((req, res, rec) => {
    const headers = { ...req.headers, host: t.host };
    const out = http.request({ host: t.hostname, port: t.port, method: rec.method, path: rec.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      res.writeHead(599);
      res.end();
    });
    out.end(rec.body);
  });
}

/** A JSON answer. */
export function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** An address on which nobody listens. */
export async function deadUrl(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
  /** The connection broke before the answer was complete. */
  aborted: boolean;
}

/** node:http request: any header may be sent (fetch refuses Connection, Keep-Alive, TE...). */
export function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, method, path: u.pathname + u.search, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let aborted = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => (aborted = true));
      res.on('error', () => (aborted = true));
      res.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed, aborted: aborted || !res.complete });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** fetch with only the spec's headers. */
export async function api(base: string, key: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { PgrApiKey: key, 'Content-Type': 'application/json', ...extra },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** The main instance's id, from the instance list. */
export async function mainId(srv: TestServer): Promise<string> {
  const res = await srv.call('GET', '/tenancy/instance/list');
  expect(res.status, res.text).toBe(200);
  const main = (res.body as any[]).find((i) => i.url === srv.main);
  expect(main, res.text).toBeTruthy();
  return main.id as string;
}

/** Every public incident of an instance reached through `srv.call` (per_page 1000). */
export async function allIncidents(srv: TestServer, query = ''): Promise<any[]> {
  const res = await srv.call('GET', `${PUB}/incidents?per_page=1000${query ? `&${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.total).toBeLessThanOrEqual(1000);
  return res.body.objects;
}

/** The fan-out element shape (contract.md §3). */
export const ELEMENT_KEYS = ['data', 'error', 'id', 'name', 'status_code', 'time', 'version'];
export const TS_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function expectElement(el: any, want: { id: string; name?: string; status: number }): void {
  expect(Object.keys(el).sort()).toEqual(ELEMENT_KEYS);
  expect(el.id).toBe(want.id);
  if (want.name !== undefined) expect(el.name).toBe(want.name);
  expect(el.status_code, JSON.stringify(el).slice(0, 400)).toBe(want.status);
  expect(el.error).toBe(want.status >= 200 && want.status < 300 ? 0 : want.status);
  expect(el.time).toMatch(TS_ISO);
  expect(typeof el.version).toBe('string');
  if (want.status >= 400) {
    expect(el.data, 'the error body is under data').toMatchObject({ error: expect.any(String), error_code: want.status });
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
