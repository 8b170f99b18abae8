// JSON calls to a remote platform over RemoteClient: the body sent as JSON, the answer parsed,
// and the routing port's one-element envelope ([{id, name, data, status_code, ...}], when the
// remote is reached through PgrSelectedInstance) unwrapped to the instance's own status and body.
import type { RemoteClient } from './remote';

export interface JsonAnswer {
  status: number;
  body: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body of an answer, unwrapped from the routing port's envelope when there is one. */
export function unwrapEnvelope(status: number, body: unknown): JsonAnswer {
  if (Array.isArray(body) && body.length === 1 && isObject(body[0]) && 'data' in body[0] && 'status_code' in body[0]) {
    const env = body[0];
    return { status: typeof env.status_code === 'number' ? env.status_code : status, body: env.data };
  }
  return { status, body };
}

/** Calls the remote; a failure to get any answer throws RemoteError (502 / 504). */
export async function callJson(client: RemoteClient, method: string, path: string, body?: unknown): Promise<JsonAnswer> {
  const res = await client.call(method, path, { 'content-type': 'application/json' }, body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
  const text = res.body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return unwrapEnvelope(res.status, parsed);
}

/** The error text of a platform answer ({error, error_code}), or the start of the body. */
export function errorText(a: JsonAnswer): string {
  const b = a.body;
  if (isObject(b) && typeof b.error === 'string') return `HTTP ${a.status}: ${b.error}`;
  const raw = typeof b === 'string' ? b : JSON.stringify(b ?? '');
  return `HTTP ${a.status}${raw ? `: ${raw.slice(0, 200)}` : ''}`;
}
