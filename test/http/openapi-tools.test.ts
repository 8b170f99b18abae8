// /openapi.json in tools that expand its references, which a document whose schemas refer to each
// other in cycles never lets finish: a dereferencing parser (@apidevtools/json-schema-ref-parser,
// the one behind swagger-parser) expands every reference within a time budget; Stoplight Prism
// starts a mock server on it, and as a validating proxy in front of the server it reports no
// violation (request or answer) over the recorded examples of every operation.
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src-shared/contract/index';
import { ROOT } from '../helpers/cli';
import { replayExamples } from '../helpers/example-replay';
import { startTestServer, type TestServer } from '../helpers/server';

const PRISM = path.join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
/** Generous on a busy machine: a document with cycles does not finish in any time. */
const BUDGET_MS = 180_000;

let srv: TestServer;
let file = '';
let text = '';
/** Prism as a mock and as a proxy, started together (each reads the whole document first, which takes most of this file's time). */
let mockStarted: ReturnType<typeof prism>;
let proxyStarted: ReturnType<typeof prism>;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo', scan: { ports: [], timeoutMs: 100, budgetMs: 1000 } });
  const res = await srv.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  text = res.text;
  file = path.join(srv.dir, 'openapi.json');
  fs.writeFileSync(file, text);
  const [mockPort, proxyPort] = [await freePort(), await freePort()];
  mockStarted = prism(['mock', '-h', '127.0.0.1', '-p', String(mockPort), file]).then((p) => ({ ...p, port: mockPort }));
  proxyStarted = prism(['proxy', '-h', '127.0.0.1', '-p', String(proxyPort), file, srv.main]).then((p) => ({ ...p, port: proxyPort }));
  // A failure to start is reported by the test that needs that Prism.
  mockStarted.catch(() => {});
  proxyStarted.catch(() => {});
}, 120_000);

afterAll(async () => {
  for (const started of [mockStarted, proxyStarted]) {
    const p = await started?.catch(() => undefined);
    if (p) await stop(p.child);
  }
  await srv?.stop();
});

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** Starts Prism; resolves once it listens, with its log so far and how long it took. */
function prism(args: string[]): Promise<{ child: ChildProcess; log: () => string; ms: number; port?: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [PRISM, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Prism did not start within ${BUDGET_MS} ms:\n${log.slice(-2000)}`));
    }, BUDGET_MS);
    const hear = (d: Buffer) => {
      log += d;
      if (/Prism is listening/.test(log)) {
        clearTimeout(timer);
        resolve({ child, log: () => log, ms: Date.now() - started });
      }
    };
    child.stdout!.on('data', hear);
    child.stderr!.on('data', hear);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code}:\n${log.slice(-2000)}`));
    });
  });
}

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('/openapi.json in tools that expand its references', () => {
  it('has no reference cycle: a dereferencing parser expands every reference within the budget', async () => {
    const started = Date.now();
    const parser = new $RefParser();
    const doc = (await parser.dereference(JSON.parse(text) as object, { dereference: { circular: false } })) as Record<string, unknown>;
    const ms = Date.now() - started;
    console.log(`json-schema-ref-parser: ${text.length} bytes, ${(text.match(/"\$ref"/g) ?? []).length} references, dereferenced in ${ms} ms`);
    expect(parser.$refs.circular).toBe(false);
    expect(ms).toBeLessThan(BUDGET_MS);
    expect(Object.keys(doc.paths as object).length).toBeGreaterThan(300);
  }, BUDGET_MS + 30_000);

  it('Prism starts a mock server on it, which answers an operation with its example', async () => {
    const mock = await mockStarted;
    const port = mock.port!;
    try {
      console.log(`prism mock: listening after ${mock.ms} ms`);
      const res = await fetch(`http://127.0.0.1:${port}/data/public/api/v1/incidents?per_page=2`, { headers: { PgrApiKey: srv.apiKey } });
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { objects: { id: string }[]; total: number };
      expect(body.objects.length).toBeGreaterThan(0);
      expect(typeof body.total).toBe('number');
    } finally {
      await stop(mock.child);
    }
  }, BUDGET_MS + 60_000);

  it('Prism as a validating proxy in front of the server reports no violation over the recorded examples', async () => {
    const proxy = await proxyStarted;
    const port = proxy.port!;
    try {
      console.log(`prism proxy: listening after ${proxy.ms} ms`);
      const { calls, mismatches } = await replayExamples(srv, `http://127.0.0.1:${port}`);
      expect(calls).toBe(operations().length);
      expect(mismatches).toEqual([]);
      await new Promise((r) => setTimeout(r, 500));
      // Each violation with the request it is about (Prism logs the request first).
      const violations: string[] = [];
      let request = '';
      for (const line of proxy.log().split('\n')) {
        const l = line.replace(/^.*?\] › +/, '').trim();
        if (/Request received/.test(l)) request = l;
        else if (/Violation|✖/.test(l)) violations.push(`${request}: ${l}`);
      }
      expect(violations.slice(0, 30)).toEqual([]);
      // The proxy did see the traffic.
      expect(proxy.log()).toMatch(/GET +http:\/\/127\.0\.0\.1:\d+\/data\/public\/api\/v1\/incidents/);
    } finally {
      await stop(proxy.child);
    }
  }, BUDGET_MS + 300_000);
});
