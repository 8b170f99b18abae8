// The console's HTTP client: the package's typed client (src-shared/client), built from the same
// contract as the server's routes, so every call names an operation and every answer is checked
// against that operation's schema; the console keeps no copies of the server's schemas. Calls go
// out through ofetch; the main instance is called directly, another instance through the routing
// port on the main origin (/console/v1/route, header PgrSelectedInstance), whose one-element
// envelope the typed client unwraps; `fanOut` asks every instance at once.
import { ofetch } from 'ofetch';
import { createClient, RadarApiError, type CallInput, type RadarClient, type RoutedElement } from '../../../src-shared/client/index';
import { takeAhead } from './primed';

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

export type Element = RoutedElement;

export interface CallOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Give up after this many milliseconds (counted as no answer). */
  timeout?: number;
}

/** `fetch` for the typed client, through ofetch: the answer whatever its status (the typed
 * client reads the status and the body), reachability heard from every call. */
async function transport(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  try {
    // The same request sent ahead while the console loaded (the opening's first page): its answer.
    const ahead = takeAhead(String(url), init);
    if (ahead) {
      if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      const res = await ahead;
      reached(true);
      return res;
    }
    const res = await ofetch.raw(String(url), {
      method: init?.method,
      headers: init?.headers,
      body: init?.body as BodyInit | undefined,
      signal: init?.signal ?? undefined,
      responseType: 'stream',
      ignoreResponseError: true,
      retry: 0,
    });
    reached(true);
    return res;
  } catch {
    const signal = init?.signal;
    const timedOut = !!signal?.aborted && signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
    if (signal?.aborted && !timedOut) throw new DOMException('aborted', 'AbortError');
    // No answer at all (or none in time): the server is not there.
    reached(false);
    throw new ApiFailure(0, 'no response');
  }
}

/** The client's failures as the console shows them. */
function failureOf(e: unknown, signal: AbortSignal | undefined): unknown {
  if (e instanceof RadarApiError) return new ApiFailure(e.status, e.message);
  if (e instanceof ApiFailure) return e;
  if (signal?.aborted || isAbort(e)) return new DOMException('aborted', 'AbortError');
  return e;
}

export function createApi(apiKey: string, base = '') {
  const common: Record<string, string> = {};
  const client: RadarClient = createClient({ url: base, apiKey, headers: common, fetch: transport as typeof fetch });
  // The same calls with the answer handed over as the server gave it: for the pages of a list,
  // which are checked by a check compiled from the same schemas (pageCheck.ts).
  const raw: RadarClient = createClient({ url: base, apiKey, headers: common, fetch: transport as typeof fetch, validate: false });
  const on = (target: Target) => (target.kind === 'main' ? client : client.instance(target.id));
  const onRaw = (target: Target) => (target.kind === 'main' ? raw : raw.instance(target.id));

  /** Runs a call of the typed client, its failures as ApiFailure (or an AbortError). */
  async function run<T>(signal: AbortSignal | undefined, timeout: number | undefined, go: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const sig = timeout === undefined ? signal : signal ? AbortSignal.any([signal, AbortSignal.timeout(timeout)]) : AbortSignal.timeout(timeout);
    try {
      return await go(sig);
    } catch (e) {
      throw failureOf(e, signal);
    }
  }

  /** One operation of the contract (by operationId) on one instance; its answer checked. */
  function op<T = unknown>(target: Target, operationId: string, input: CallInput = {}, opts: { timeout?: number } = {}): Promise<T> {
    return run(input.signal, opts.timeout, (signal) => on(target).dynamic.call(operationId, { ...input, signal }) as Promise<T>);
  }

  /** The same call on every instance (the routing port without PgrSelectedInstance). */
  function fanOut(method: string, path: string, opts: CallOptions = {}): Promise<Element[]> {
    return run(opts.signal, opts.timeout, (signal) => client.fanOut(method, path, { body: opts.body, signal }));
  }

  /** The local analyst, sent as Pgr-User-Id (status changes and messages record the author). */
  function setUser(id: string | null): void {
    if (id) common['Pgr-User-Id'] = id;
    else delete common['Pgr-User-Id'];
  }
  return {
    apiKey,
    client,
    /** The typed client's calls on one instance, its failures as ApiFailure. */
    on: (target: Target) => on(target),
    /** The same calls, their answers not checked: the caller checks them (pageCheck.ts). */
    unchecked: (target: Target) => onRaw(target),
    run,
    op,
    fanOut,
    setUser,
    headers: (): Record<string, string> => ({ PgrApiKey: apiKey, ...common }),
  };
}

export type Api = ReturnType<typeof createApi>;
