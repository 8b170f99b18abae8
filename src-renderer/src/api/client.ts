// The console's HTTP client (ofetch): the main instance is called directly; another instance
// through the routing port on the main origin (/console/v1/route, header PgrSelectedInstance),
// whose answer is unwrapped from its one-element envelope; `fanOut` asks every instance at once.
import { FetchError, ofetch } from 'ofetch';
import { z } from 'zod';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

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
  const call = ofetch.create({ baseURL: base, headers: { PgrApiKey: apiKey }, retry: 0 });

  async function raw<T>(method: string, path: string, opts: CallOptions & { headers?: Record<string, string> } = {}): Promise<T> {
    try {
      return await call<T>(path, { method, body: opts.body as Record<string, unknown> | undefined, signal: opts.signal, headers: opts.headers });
    } catch (e) {
      if (e instanceof FetchError) {
        if (isAbort(e.cause) || opts.signal?.aborted) {
          throw new DOMException('aborted', 'AbortError');
        }
        const data = e.data as unknown;
        // A routed call that the instance refused comes back as its envelope.
        if (Array.isArray(data) && data.length === 1) {
          const el = elementSchema.safeParse(data[0]);
          if (el.success) throw new ApiFailure(el.data.status_code, errorText(el.data.data, e.message));
        }
        throw new ApiFailure(e.statusCode ?? 0, errorText(data, e.message));
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

  return { apiKey, raw, at, fanOut };
}

export type Api = ReturnType<typeof createApi>;
