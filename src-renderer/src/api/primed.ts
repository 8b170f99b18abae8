// Requests sent before the console's code has loaded (the opening's first page: data/opening.ts),
// kept for the call that would send the same request: the client's transport takes the answer
// instead of asking again. Only a request equal in every part (method, address, headers, body)
// is taken, once; anything else goes to the server as usual.

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** How long an answer nobody took is kept. */
const KEEP_MS = 30_000;

const signature = (s: Sent): string =>
  JSON.stringify([
    s.method.toUpperCase(),
    s.url,
    Object.entries(s.headers)
      .map(([k, v]) => [k.toLowerCase(), v])
      .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
    s.body ?? null,
  ]);

const kept = new Map<string, Promise<Response>>();

/** Sends a request now; its answer waits for the call that sends the same. */
export function sendAhead(s: Sent): void {
  const key = signature(s);
  if (kept.has(key)) return;
  const answer = fetch(s.url, { method: s.method, headers: s.headers, body: s.body, credentials: 'same-origin' });
  // A failure is the taker's to hear; untaken, it is dropped with the answer.
  answer.catch(() => {});
  kept.set(key, answer);
  setTimeout(() => {
    if (kept.get(key) === answer) kept.delete(key);
  }, KEEP_MS);
}

/** The answer to a request sent ahead that equals this one, taken (once); undefined if none. */
export function takeAhead(url: string, init: RequestInit | undefined): Promise<Response> | undefined {
  if (!kept.size) return undefined;
  const raw = init?.headers;
  const headers: Record<string, string> = {};
  if (raw instanceof Headers) raw.forEach((v, k) => (headers[k] = v));
  else if (Array.isArray(raw)) for (const [k, v] of raw) headers[k!] = v!;
  else if (raw) Object.assign(headers, raw);
  if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') return undefined;
  const key = signature({ url, method: init?.method ?? 'GET', headers, body: (init?.body as string | null | undefined) ?? undefined });
  const answer = kept.get(key);
  if (answer) kept.delete(key);
  return answer;
}
