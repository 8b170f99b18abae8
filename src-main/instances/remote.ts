// Calls to a remote platform: the caller's method, path, query and body, the remote's own key,
// hop-by-hop and credential headers dropped, a time-out and a size bound, TLS verified (extra
// CAs and a pinned certificate fingerprint optional; verification is never turned off).
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import tls, { type PeerCertificate } from 'node:tls';
import type { Agent } from 'undici';

/** undici, loaded on the first remote call (most servers never make one; loading it is costly). */
let undici: typeof import('undici') | undefined;
const loadUndici = async (): Promise<typeof import('undici')> => (undici ??= await import('undici'));

export interface RemoteConfig {
  url: string;
  apiKey: string;
  remoteInstanceId?: string | null;
  caFile?: string | null;
  pinnedSha256?: string | null;
  timeoutMs: number;
  maxBytes: number;
}

/** A failure to get an answer: 502 (unreachable, refused, TLS, too large) or 504 (time-out). */
export class RemoteError extends Error {
  constructor(
    readonly status: 502 | 504,
    message: string,
  ) {
    super(message);
  }
}

export interface RemoteAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface RemoteStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
]);
const CREDENTIALS = new Set(['pgrapikey', 'authorization', 'cookie', 'pgrselectedinstance']);

/** Headers safe to pass on: no hop-by-hop ones, no credentials of the caller. */
export function forwardHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  // Fields named in Connection are hop-by-hop too (RFC 9110 §7.6.1).
  const listed = new Set(
    String(h.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [k, v] of Object.entries(h)) {
    const key = k.toLowerCase();
    if (v === undefined || HOP_BY_HOP.has(key) || CREDENTIALS.has(key) || listed.has(key) || key === 'x-radar-instance') continue;
    out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export const fingerprint256 = (cert: PeerCertificate): string =>
  cert.raw ? crypto.createHash('sha256').update(cert.raw).digest('hex').toUpperCase() : '';

export class RemoteClient {
  private agent: Agent | undefined;
  private readonly agentOptions: ConstructorParameters<typeof Agent>[0];

  constructor(readonly cfg: RemoteConfig) {
    const pin = cfg.pinnedSha256?.replace(/[:\s]/g, '').toUpperCase();
    // undici's own timers are coarse (they may fire a tick early); the precise bound is the
    // AbortSignal of each request, these only back it up.
    const backstop = cfg.timeoutMs + 1000;
    this.agentOptions = {
      headersTimeout: backstop,
      bodyTimeout: backstop,
      connectTimeout: backstop,
      connect: {
        rejectUnauthorized: true,
        ...(cfg.caFile ? { ca: [...tls.rootCertificates, fs.readFileSync(cfg.caFile, 'utf8')] } : {}),
        ...(pin
          ? {
              checkServerIdentity: (host: string, cert: PeerCertificate) => {
                const err = tls.checkServerIdentity(host, cert);
                if (err) return err;
                if (fingerprint256(cert) !== pin) return new Error('the certificate does not match the pinned SHA-256 fingerprint');
                return undefined;
              },
            }
          : {}),
      },
    };
  }

  private target(pathAndQuery: string): string {
    return `${this.cfg.url}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
  }

  private headers(incoming: IncomingHttpHeaders): Record<string, string> {
    const h = forwardHeaders(incoming);
    h.pgrapikey = this.cfg.apiKey;
    h['accept-encoding'] = 'identity';
    if (this.cfg.remoteInstanceId) h.pgrselectedinstance = this.cfg.remoteInstanceId;
    return h;
  }

  private fail(e: unknown): RemoteError {
    if (e instanceof RemoteError) return e;
    const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = err.code ?? err.cause?.code ?? '';
    const errors = undici?.errors;
    if (
      (errors && (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError || e instanceof errors.ConnectTimeoutError)) ||
      err.name === 'TimeoutError' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      return new RemoteError(504, `no answer within ${this.cfg.timeoutMs} ms`);
    }
    return new RemoteError(502, `${code ? `${code}: ` : ''}${err.cause?.message ?? err.message ?? 'unreachable'}`);
  }

  /** Opens the answer as a stream (the caller must consume or destroy it). */
  async open(method: string, pathAndQuery: string, incoming: IncomingHttpHeaders, body?: Buffer): Promise<RemoteStream> {
    try {
      const { Agent, request } = await loadUndici();
      this.agent ??= new Agent(this.agentOptions);
      const res = await request(this.target(pathAndQuery), {
        method: method as 'GET',
        headers: this.headers(incoming),
        body: body && body.length ? body : undefined,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.cfg.timeoutMs),
      });
      const length = Number(res.headers['content-length'] ?? 0);
      if (length > this.cfg.maxBytes) {
        res.body.destroy();
        throw new RemoteError(502, `the answer is larger than ${this.cfg.maxBytes} bytes`);
      }
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (e) {
      throw this.fail(e);
    }
  }

  /** The whole answer, bounded in size and time. */
  async call(method: string, pathAndQuery: string, incoming: IncomingHttpHeaders, body?: Buffer): Promise<RemoteAnswer> {
    const s = await this.open(method, pathAndQuery, incoming, body);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of s.body) {
        size += (chunk as Buffer).length;
        if (size > this.cfg.maxBytes) {
          s.body.destroy();
          throw new RemoteError(502, `the answer is larger than ${this.cfg.maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (e) {
      throw this.fail(e);
    }
    return { status: s.status, headers: s.headers, body: Buffer.concat(chunks) };
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}
