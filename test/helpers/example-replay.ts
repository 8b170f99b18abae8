// The recorded examples of every operation (src-shared/contract/examples.json) replayed in their
// order against a server, each example's values of the recording run (addresses, the key, ids
// the server chose) replaced by this run's. `base` is where the calls go: the server itself, or
// a tool in front of it (a validating proxy).
import { EXAMPLES_FILE } from '../../src-shared/contract/examples';
import { findOperation } from '../../src-shared/contract/index';
import { fillPath } from '../../src-shared/contract/operation';
import type { TestServer } from './server';

const urlOf = (path: string, params: Record<string, string> | undefined, query: Record<string, string> | undefined): string => {
  const p = fillPath(path, params);
  const qs = new URLSearchParams(query ?? {}).toString();
  return qs ? `${p}?${qs}` : p;
};

/** Replays every example; answers the differences of status (and failed scenes), one line each. */
export async function replayExamples(srv: TestServer, base: string): Promise<{ calls: number; mismatches: string[] }> {
  const replaced = new Map<string, string>([
    [EXAMPLES_FILE.servers.main, srv.main],
    [EXAMPLES_FILE.servers.routing, srv.routing],
  ]);
  if (EXAMPLES_FILE.servers.apiKey) replaced.set(EXAMPLES_FILE.servers.apiKey, srv.apiKey);
  const subst = <T>(v: T): T => {
    if (typeof v === 'string') {
      let s: string = v;
      for (const [from, to] of replaced) s = s.split(from).join(to);
      return s as T;
    }
    if (Array.isArray(v)) return v.map(subst) as T;
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x)])) as T;
    return v;
  };
  /** Pairs the ids of an example's answer with this run's (top level, or each element of a list). */
  const learnIds = (before: unknown, now: unknown): void => {
    if (Array.isArray(before) && Array.isArray(now)) {
      before.forEach((b, i) => learnIds(b, now[i]));
      return;
    }
    const b = (before as { id?: unknown } | undefined)?.id;
    const n = (now as { id?: unknown } | undefined)?.id;
    if (typeof b === 'string' && typeof n === 'string' && b !== n && b.length >= 8) replaced.set(b, n);
    const bi = (before as { instance?: unknown } | undefined)?.instance;
    const ni = (now as { instance?: unknown } | undefined)?.instance;
    if (bi && ni && typeof bi === 'object' && typeof ni === 'object') learnIds(bi, ni);
  };
  const mismatches: string[] = [];
  let calls = 0;
  for (const [id, ex] of Object.entries(EXAMPLES_FILE.examples)) {
    const op = findOperation(id)!;
    const raw = typeof ex.body === 'string';
    const headers = { ...subst(ex.headers ?? {}), ...(raw ? { 'Content-Type': 'application/octet-stream' } : {}) };
    try {
      calls++;
      for (const step of ex.before ?? []) {
        const set = await srv.call(step.method, subst(step.path), subst(step.body), subst(step.headers ?? {}), base, { check: false });
        if (set.status >= 300) mismatches.push(`${id}: the scene's ${step.method} ${step.path} answered ${set.status}: ${set.text.slice(0, 200)}`);
      }
      const res = await srv.call(op.method, urlOf(op.path, subst(ex.params), subst(ex.query)), subst(ex.body), headers, base, { check: false });
      if (res.status !== ex.status) mismatches.push(`${id}: ${res.status}, the example ${ex.status}: ${res.text.slice(0, 200)}`);
      learnIds(ex.answer, res.body);
    } catch (e) {
      mismatches.push(`${id}: ${(e as Error).message.slice(0, 600)}`);
    }
  }
  return { calls, mismatches };
}
