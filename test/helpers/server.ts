// Starts the real server on free loopback ports for a test file, and calls it over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer, type ServerConfig } from '../../src-main/server/start';
import { emptySearch } from '../../src-shared/schemas/search';
import { ContractCheck } from './contract-check';
import { copyDemoDatabase } from './seed';

export const TEST_KEY = 'test-api-key-0123456789';

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * Every answer `call` receives is checked against the served OpenAPI document (see
 * contract-check.ts); a mismatch fails the call, so any test that meets one fails. A test that
 * sends what is meant to be off the contract to something that is not this server passes
 * `{ check: false }`.
 */
export interface CallOptions {
  check?: boolean;
}

export interface TestServer extends RunningServer {
  dir: string;
  call<T = any>(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>, base?: string, opts?: CallOptions): Promise<CallResult<T>>;
  stop(): Promise<void>;
}

/**
 * A server on free loopback ports over a database of its own in a new folder: empty by default;
 * with `seed: 'demo'` a copy of the run's seeded demo database (test/helpers/seed.ts), unless
 * `db` names a file to open instead.
 */
export async function startTestServer(cfg: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-test-'));
  const db = path.join(dir, 'test.sqlite');
  if (cfg.seed === 'demo' && cfg.db === undefined) copyDemoDatabase(db);
  const server = await startServer({ db, port: 0, routingPort: 0, apiKey: TEST_KEY, seed: 'none', ...cfg });
  // Made before the first call, so that no call a test times pays for it.
  await contractOf(server);
  return {
    ...server,
    dir,
    async call(method, urlPath, body, headers = {}, base = server.main, opts = {}) {
      const h: Record<string, string> = { PgrApiKey: TEST_KEY, 'Content-Type': 'application/json', ...headers };
      for (const [k, v] of Object.entries(h)) if (v === '') delete h[k];
      const res = await fetch(base + urlPath, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      if (opts.check !== false && (base === server.main || base === server.routing)) {
        const contract = await contractOf(server);
        const ours = async () => {
          const list = await fetch(`${server.main}/console/v1/instances`, { headers: { PgrApiKey: server.apiKey } });
          const views = (await list.json()) as { id: string; kind: string }[];
          const local = new Set(views.filter((v) => v.kind !== 'remote').map((v) => v.id));
          return (id: string) => local.has(id);
        };
        const problems = await contract.check(method.toUpperCase(), urlPath, res.status, res.headers.get('content-type'), text === '' ? undefined : parsed, base === server.routing, ours);
        if (problems.length) throw new Error(`the answer does not match /openapi.json:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 600)}`);
      }
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async stop() {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The served document, loaded into the answer checker once per process. */
function contractOf(server: RunningServer): Promise<ContractCheck> {
  return ContractCheck.load(async () => {
    const doc = await fetch(`${server.main}/openapi.json`, { headers: { PgrApiKey: server.apiKey } });
    return (await doc.json()) as Record<string, unknown>;
  });
}

/** The search request with every part empty; override what a test needs. */
export function search(over: Record<string, unknown> = {}) {
  return { ...emptySearch(50, 0), ...over };
}

/**
 * A snapshot of `origin` taken by `local` into `dbFile` and added as the local instance `name`
 * (waited for); answers that instance. Throws with the answer when it is not 200.
 */
export async function takeSnapshot(local: TestServer, origin: TestServer, o: { name: string; dbFile: string; perPage: number }): Promise<any> {
  const res = await local.call('POST', '/console/v1/snapshot?wait=1', { url: origin.main, api_key: TEST_KEY, name: o.name, db_file: o.dbFile, per_page: o.perPage });
  if (res.status !== 200) throw new Error(`the snapshot answered ${res.status}: ${res.text}`);
  return res.body.instance;
}
