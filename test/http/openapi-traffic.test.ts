// Realistic traffic over every operation of the contract: the examples of /openapi.json (taken
// from the demo data by scripts/examples.ts) replayed in their order against a new demo server,
// each answer checked against the document's schema for its status by the shared helper (an
// OpenAPI validator); then every operation once more without credentials (401, checked too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_FILE } from '../../src-shared/contract/examples';
import { findOperation, operations } from '../../src-shared/contract/index';
import { fillPath } from '../../src-shared/contract/operation';
import { startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo', scan: { ports: [], timeoutMs: 100, budgetMs: 1000 } });
});

afterAll(async () => {
  await srv?.stop();
});

/** Values of the generating run (addresses, ids the server chose) → this run's. */
const replaced = new Map<string, string>();
function subst<T>(v: T): T {
  if (typeof v === 'string') {
    let s: string = v;
    for (const [from, to] of replaced) s = s.split(from).join(to);
    return s as T;
  }
  if (Array.isArray(v)) return v.map(subst) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x)])) as T;
  return v;
}

/** Pairs the ids of an example's answer with this run's (top level, or each element of a list). */
function learnIds(before: unknown, now: unknown): void {
  if (Array.isArray(before) && Array.isArray(now)) {
    before.forEach((b, i) => learnIds(b, now[i]));
    return;
  }
  const b = (before as { id?: unknown } | undefined)?.id;
  const n = (now as { id?: unknown } | undefined)?.id;
  if (typeof b === 'string' && typeof n === 'string' && b !== n && b.length >= 8) replaced.set(b, n);
  // A job that made an instance (a snapshot) names it.
  const bi = (before as { instance?: unknown } | undefined)?.instance;
  const ni = (now as { instance?: unknown } | undefined)?.instance;
  if (bi && ni && typeof bi === 'object' && typeof ni === 'object') learnIds(bi, ni);
}

const urlOf = (path: string, params: Record<string, string> | undefined, query: Record<string, string> | undefined): string => {
  const p = fillPath(path, params).replace(/%2F/gi, '/');
  const qs = new URLSearchParams(query ?? {}).toString();
  return qs ? `${p}?${qs}` : p;
};

describe('every operation, with the example of the document, answers as the document says', () => {
  it('has an example for every operation, each request valid by the operation’s own schemas', () => {
    const missing = operations()
      .filter((op) => !(op.operationId in EXAMPLES_FILE.examples))
      .map((op) => op.operationId);
    expect(missing).toEqual([]);
    const invalid: string[] = [];
    for (const [id, ex] of Object.entries(EXAMPLES_FILE.examples)) {
      const op = findOperation(id)!;
      if (op.body && ex.body !== undefined && !op.bodyContent && ex.status < 300) {
        const r = op.body.safeParse(ex.body);
        if (!r.success) invalid.push(`${id}: ${r.error.issues[0]?.message}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('replays the examples in their order: the same statuses, 0 answers off the document', async () => {
    replaced.set(EXAMPLES_FILE.servers.main, srv.main);
    replaced.set(EXAMPLES_FILE.servers.routing, srv.routing);
    if (EXAMPLES_FILE.servers.apiKey) replaced.set(EXAMPLES_FILE.servers.apiKey, srv.apiKey);
    const mismatches: string[] = [];
    let calls = 0;
    for (const [id, ex] of Object.entries(EXAMPLES_FILE.examples)) {
      const op = findOperation(id)!;
      const raw = typeof ex.body === 'string';
      const headers = { ...subst(ex.headers ?? {}), ...(raw ? { 'Content-Type': 'application/octet-stream' } : {}) };
      try {
        calls++;
        // The example's scene (e.g. changes made offline in a snapshot before its push).
        for (const step of ex.before ?? []) {
          const set = await srv.call(step.method, subst(step.path), subst(step.body), subst(step.headers ?? {}));
          if (set.status >= 300) mismatches.push(`${id}: the scene's ${step.method} ${step.path} answered ${set.status}: ${set.text.slice(0, 200)}`);
        }
        const res = await srv.call(op.method, urlOf(op.path, subst(ex.params), subst(ex.query)), subst(ex.body), headers);
        if (res.status !== ex.status) mismatches.push(`${id}: ${res.status}, the example ${ex.status}: ${res.text.slice(0, 200)}`);
        // Ids the server chose (instances, jobs, generated record ids) stand for the example's.
        learnIds(ex.answer, res.body);
      } catch (e) {
        mismatches.push(`${id}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
    expect(calls).toBe(operations().length);
    expect(mismatches).toEqual([]);
  }, 300_000);

  it('answers every operation without credentials with 401 in the document’s shape', async () => {
    const mismatches: string[] = [];
    for (const op of operations()) {
      const ex = EXAMPLES_FILE.examples[op.operationId]!;
      try {
        const res = await srv.call(op.method, urlOf(op.path, subst(ex.params), subst(ex.query)), undefined, { PgrApiKey: '' });
        if (res.status !== 401) mismatches.push(`${op.operationId}: ${res.status}`);
      } catch (e) {
        mismatches.push(`${op.operationId}: ${(e as Error).message.slice(0, 300)}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
