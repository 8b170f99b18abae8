// Many clients writing at once, then kill -9 while they still write: after a restart every
// write the server acknowledged is there (and deleted records are gone), no answer was a 500,
// no connection failed. LOAD_CLIENTS and LOAD_SECONDS size it (30 clients for 5 s here;
// `npm run test:robust` runs 200 clients for 60 s).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { serve, type ServeProcess } from '../helpers/cli';

const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 30);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 5);
const KEY = 'load-test-key-0123456789';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-load-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Expected {
  /** The description of the last acknowledged write, or null once deleted. */
  description: string | null;
  name: string;
}

describe(`${CLIENTS} clients writing for ${SECONDS} s, then kill -9`, () => {
  it('loses no acknowledged write, answers no 500, drops no connection', async () => {
    const db = path.join(dir, 'load.sqlite');
    const args = ['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'demo', '--api-key', KEY];
    let s: ServeProcess = await serve(args);
    const agent = new Agent({ connections: CLIENTS + 4, pipelining: 1 });
    const call = async (method: string, urlPath: string, body?: unknown) => {
      const res = await request(s.ready.main + urlPath, {
        method: method as 'GET',
        headers: { pgrapikey: KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : null };
    };

    const expected = new Map<string, Expected>();
    const statuses: Record<number, number> = {};
    const latencies: number[] = [];
    let failures = 0;
    let acknowledged = 0;
    let stopping = false;
    const deadline = performance.now() + SECONDS * 1000;

    const client = async (c: number) => {
      const mine: string[] = [];
      for (let i = 0; performance.now() < deadline && !stopping; i++) {
        const roll = Math.random();
        const t0 = performance.now();
        let res: { status: number; body: any };
        let after: (() => void) | null = null;
        try {
          if (roll < 0.35 || mine.length === 0) {
            const id = crypto.randomUUID();
            const name = `load-${c}-${i}-${id.slice(0, 8)}`;
            const description = `created ${i}`;
            res = await call('POST', '/cruddy/v2/software_groups/create', { id, name, description });
            after = () => {
              mine.push(id);
              expected.set(id, { name, description });
            };
          } else if (roll < 0.6) {
            const id = mine[Math.floor(Math.random() * mine.length)]!;
            const description = `updated ${c}-${i}`;
            res = await call('PUT', '/cruddy/v2/software_groups/update', { id, description });
            after = () => (expected.get(id)!.description = description);
          } else if (roll < 0.7) {
            const items = Array.from({ length: 5 }, (_, k) => ({ id: crypto.randomUUID(), name: `load-${c}-${i}-m${k}`, description: `mass ${i}` }));
            res = await call('POST', '/cruddy/v2/software_groups/mass_create', items);
            after = () => {
              for (const it of items) {
                mine.push(it.id);
                expected.set(it.id, { name: it.name, description: it.description });
              }
            };
          } else if (roll < 0.75) {
            const id = mine.splice(Math.floor(Math.random() * mine.length), 1)[0]!;
            res = await call('DELETE', `/cruddy/v2/software_groups/${id}`);
            after = () => (expected.get(id)!.description = null);
            if (res.status !== 200) mine.push(id);
          } else if (roll < 0.9) {
            res = await call('POST', '/cruddy/v2/software_groups/search', {
              include_fields: [], exclude_fields: [], filters: [{ field: 'name', filter_type: 'substr', value: `load-${c}-` }], ordering: [{ field: 'created_at', direction: 'desc' }],
              virtual_search: { value: '', strict: false }, extension_params: { chidlrens_all: false, parents_all: false }, relations: [], limit: 20, offset: 0,
            });
          } else {
            res = await call('GET', '/data/public/api/v1/incidents?per_page=20&order=-risklevel&status=in,new,closed');
          }
        } catch {
          if (!stopping) failures++;
          return;
        }
        latencies.push(performance.now() - t0);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 200 && res.status < 300 && after) {
          after();
          acknowledged++;
        }
      }
    };

    const started = performance.now();
    const running = Array.from({ length: CLIENTS }, (_, c) => client(c));
    // Kill the server while the clients are still writing, a little before the end.
    await new Promise((r) => setTimeout(r, Math.max(1000, SECONDS * 1000 - 500)));
    stopping = true;
    await s.stop('SIGKILL');
    await Promise.all(running);
    const elapsed = (performance.now() - started) / 1000;

    // After a restart, every acknowledged write is there.
    s = await serve(args);
    let lost = 0;
    const ids = [...expected.keys()];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const found = await call('POST', '/cruddy/v2/software_groups/search', {
        include_fields: ['id', 'name', 'description'], exclude_fields: [], filters: [{ field: 'id', filter_type: 'intersection', value: chunk }], ordering: [],
        virtual_search: { value: '', strict: false }, extension_params: { chidlrens_all: false, parents_all: false }, relations: [], limit: 10_000, offset: 0,
      });
      const byId = new Map((found.body.items as { id: string; name: string; description: string }[]).map((x) => [x.id, x]));
      for (const id of chunk) {
        const want = expected.get(id)!;
        const got = byId.get(id);
        if (want.description === null ? got !== undefined : got?.description !== want.description || got?.name !== want.name) lost++;
      }
    }
    await s.stop();
    await agent.close();

    const sorted = [...latencies].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
    console.log(
      `load: ${CLIENTS} clients for ${elapsed.toFixed(1)} s, ${latencies.length} answers (${(latencies.length / elapsed).toFixed(0)}/s), p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms; ` +
        `statuses ${JSON.stringify(statuses)}; acknowledged writes ${acknowledged}, records checked after kill -9 and restart ${ids.length}, lost ${lost}; failed connections ${failures}`,
    );
    expect(statuses[500] ?? 0).toBe(0);
    expect(failures).toBe(0);
    expect(acknowledged).toBeGreaterThan(CLIENTS);
    expect(lost).toBe(0);
  }, 300_000 + SECONDS * 3000);
});
