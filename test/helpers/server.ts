// Starts the real server on free loopback ports for a test file, and calls it over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer, type ServerConfig } from '../../src-main/server/start';
import { emptySearch } from '../../src-shared/schemas/search';

export const TEST_KEY = 'test-api-key-0123456789';

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestServer extends RunningServer {
  dir: string;
  call<T = any>(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>, base?: string): Promise<CallResult<T>>;
  stop(): Promise<void>;
}

export async function startTestServer(cfg: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-test-'));
  const server = await startServer({ db: path.join(dir, 'test.sqlite'), port: 0, routingPort: 0, apiKey: TEST_KEY, seed: 'none', ...cfg });
  return {
    ...server,
    dir,
    async call(method, urlPath, body, headers = {}, base = server.main) {
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
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async stop() {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The search request with every part empty; override what a test needs. */
export function search(over: Record<string, unknown> = {}) {
  return { ...emptySearch(50, 0), ...over };
}
