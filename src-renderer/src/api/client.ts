// The console's HTTP client (ofetch): the main instance is called directly; another instance
// through the routing port on the main origin (/console/v1/route, header PgrSelectedInstance),
// whose answer is unwrapped from its one-element envelope; `fanOut` asks every instance at once.
import { FetchError, ofetch } from 'ofetch';
import { z } from 'zod';

/** A call that failed: the HTTP status (0 when the server did not answer at all) and the
 * server's error text. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }

  /** The server (or the instance behind the routing port) did not answer. */
  get unreachable(): boolean {
    return this.status === 0 || this.status === 502 || this.status === 504;
  }
}

type Reachability = (ok: boolean) => void;
const reachability = new Set<Reachability>();
/** Hears whether each call reached the server (an answer of any status) or not (no answer). */
export function onReachability(l: Reachability): () => void {
  reachability.add(l);
  return () => reachability.delete(l);
}
const reached = (ok: boolean) => {
  for (const l of reachability) l(ok);
};

export const isAbort = (e: unknown): boolean => !!e && typeof e === 'object' && (e as { name?: unknown }).name === 'AbortError';

/** Where a call goes: the main instance, or one instance by id through the routing port. */
export type Target = { kind: 'main' } | { kind: 'instance'; id: string };
export const MAIN: Target = { kind: 'main' };

export const ROUTE_PREFIX = '/console/v1/route';

export const elementSchema = z.object({
  id: z.string(),
  name: z.string(),
  data: z.unknown(),
  error: z.number(),
  status_code: z.number(),
  time: z.string(),
  version: z.string(),
});
export type Element = z.infer<typeof elementSchema>;

export interface CallOptions {
  body?: unknown;
  signal?: AbortSignal;
}

function errorText(data: unknown, fallback: string): string {
  if (data && typeof data === 'object') {
    const d = data as { error?: unknown; data?: unknown };
    if (typeof d.error === 'string') return d.error;
  }
  return fallback;
}

export function createApi(apiKey: string, base = '') {
  const common: Record<string, string> = { PgrApiKey: apiKey };
  const call = ofetch.create({ baseURL: base, retry: 0 });

  async function raw<T>(method: string, path: string, opts: CallOptions & { headers?: Record<string, string>; timeout?: number } = {}): Promise<T> {
    try {
      const out = await call<T>(path, { method, body: opts.body as Record<string, unknown> | undefined, signal: opts.signal, headers: { ...common, ...opts.headers }, timeout: opts.timeout });
      reached(true);
      return out;
    } catch (e) {
      if (e instanceof FetchError) {
        if (opts.signal?.aborted || (isAbort(e.cause) && !opts.timeout)) {
          throw new DOMException('aborted', 'AbortError');
        }
        if (e.statusCode === undefined) {
          // No answer at all: the server is not there (or the time-out passed).
          reached(false);
          throw new ApiFailure(0, 'no response');
        }
        reached(true);
        const data = e.data as unknown;
        // A routed call that the instance refused comes back as its envelope.
        if (Array.isArray(data) && data.length === 1) {
          const el = elementSchema.safeParse(data[0]);
          if (el.success) throw new ApiFailure(el.data.status_code, errorText(el.data.data, `HTTP ${el.data.status_code}`));
        }
        throw new ApiFailure(e.statusCode, errorText(data, e.statusMessage || `HTTP ${e.statusCode}`));
      }
      throw e;
    }
  }

  /** A call on one instance; the answer as that instance gave it. */
  async function at<T>(target: Target, method: string, path: string, opts: CallOptions = {}): Promise<T> {
    if (target.kind === 'main') return raw<T>(method, path, opts);
    const answer = await raw<unknown>(method, `${ROUTE_PREFIX}${path}`, { ...opts, headers: { PgrSelectedInstance: target.id } });
    const els = z.array(elementSchema).parse(answer);
    const el = els[0];
    if (!el) throw new ApiFailure(502, 'empty routing answer');
    if (el.error !== 0) throw new ApiFailure(el.status_code, errorText(el.data, `HTTP ${el.status_code}`));
    return el.data as T;
  }

  /** The same call on every instance (the routing port without PgrSelectedInstance). */
  async function fanOut(method: string, path: string, opts: CallOptions = {}): Promise<Element[]> {
    return z.array(elementSchema).parse(await raw<unknown>(method, `${ROUTE_PREFIX}${path}`, opts));
  }

  /** The local analyst, sent as Pgr-User-Id (status changes and messages record the author). */
  function setUser(id: string | null): void {
    if (id) common['Pgr-User-Id'] = id;
    else delete common['Pgr-User-Id'];
  }
  return { apiKey, raw, at, fanOut, setUser, headers: (): Record<string, string> => ({ ...common }) };
}

export type Api = ReturnType<typeof createApi>;
