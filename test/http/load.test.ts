// Many clients writing at once, then kill -9 while they still write. Every write's fate is
// recorded: acknowledged (a 2xx answer: it must be there after a restart), refused (any other
// answer: it must not be) or in flight at the kill (no answer: either state, but whole: each record
// it writes holds the value before it or the value sent, and a mass create is all or nothing).
// After a restart every record is checked through the API and, with the server stopped, in the
// file itself; every read answered during the load must show the client's own acknowledged
// writes. No answer may be a 500 and no connection may fail. LOAD_CLIENTS and LOAD_SECONDS size
// it (30 clients for 5 s here; `npm run test:robust` runs 200 clients for 60 s).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { serve, type ServeProcess } from '../helpers/cli';
import { copyDemoDatabase } from '../helpers/seed';

const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 30);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 5);
const KEY = 'load-test-key-0123456789';
/** Records listed in full when something does not match (the count is always printed). */
const SHOWN = 20;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-load-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A record as stored: absent (null) or its name and description. */
type State = { name: string; description: string | null } | null;
type Op = 'create' | 'update' | 'mass_create' | 'delete';
type Fate = 'acknowledged' | 'refused' | 'in flight';

interface Write {
  op: Op;
  client: number;
  /** The client's request number. */
  seq: number;
  /** Each record it writes and the state the record has once it is applied. */
  sets: Map<string, State>;
  /** When it was sent and answered (ms since the load started). */
  sentAt: number;
  answeredAt?: number;
  /** The answer's status; set with an in-flight fate when the answer was cut after its head. */
  status?: number;
  fate: Fate;
}

const same = (a: State, b: State): boolean => (a === null || b === null ? a === b : a.name === b.name && a.description === b.description);
const show = (s: State): string => (s === null ? 'absent' : JSON.stringify(s));

interface Verdict {
  /** What the record must hold: the state after its last acknowledged write, or, with a write in flight, either. */
  settled: State;
  inFlight?: Write;
}

/** What a record must hold after the restart, from its writes in the order its client sent them. */
function verdictOf(id: string, writes: readonly Write[]): Verdict {
  let settled: State = null;
  let inFlight: Write | undefined;
  for (const w of writes) {
    if (inFlight) throw new TestBug(`record ${id}: a write sent after one left in flight`);
    if (w.fate === 'acknowledged') settled = w.sets.get(id)!;
    else if (w.fate === 'in flight') inFlight = w;
  }
  return { settled, inFlight };
}

/** A mistake of this test itself (not of the server): it fails the test at once. */
class TestBug extends Error {}

const fmtMs = (ms: number): string => `${ms >= 0 ? '+' : ''}${(ms / 1000).toFixed(3)} s`;

describe(`${CLIENTS} clients writing for ${SECONDS} s, then kill -9`, () => {
  it('keeps every acknowledged write, applies no refused one, leaves in-flight writes whole; answers no 500, drops no connection', async () => {
    // The demo data set, seeded once for the run and copied here.
    const db = copyDemoDatabase(path.join(dir, 'load.sqlite'));
    const args = ['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none', '--api-key', KEY];
    let s: ServeProcess = await serve(args);
    const agent = new Agent({ connections: CLIENTS + 4, pipelining: 1 });
    const call = async (method: string, urlPath: string, body?: unknown, w?: Write) => {
      const res = await request(s.ready.main + urlPath, {
        method: method as 'GET',
        headers: { pgrapikey: KEY, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
      });
      if (w) w.status = res.statusCode;
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : null };
    };

    // The load starts once the server answers (its ready line comes before its routes are built).
    expect((await call('GET', '/data/public/api/v1/incidents?per_page=1')).status).toBe(200);

    /** Every record written, with its writes in the order sent. */
    const records = new Map<string, Write[]>();
    const writes: Write[] = [];
    const staleReads: string[] = [];
    const statuses: Record<number, number> = {};
    const latencies: number[] = [];
    let failures = 0;
    let stopping = false;
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    const since = () => performance.now() - started;

    const client = async (c: number) => {
      /** This client's records that exist (acknowledged creates not deleted), in the order created. */
      const live: string[] = [];
      for (let i = 0; performance.now() < deadline && !stopping; i++) {
        const roll = Math.random();
        const t0 = performance.now();
        let w: Write | undefined;
        const write = (op: Op, sets: [string, State][]): Write => {
          w = { op, client: c, seq: i, sets: new Map(sets), sentAt: since(), fate: 'in flight' };
          writes.push(w);
          for (const [id] of sets) {
            let list = records.get(id);
            if (!list) {
              if (op !== 'create' && op !== 'mass_create') throw new TestBug(`record ${id}: written before its create`);
              records.set(id, (list = []));
            } else if (op === 'create' || op === 'mass_create') {
              throw new TestBug(`record ${id}: id used twice`);
            }
            list.push(w);
          }
          return w;
        };
        let res: { status: number; body: any };
        let onAck: (() => void) | null = null;
        let check: ((body: any) => void) | null = null;
        try {
          if (roll < 0.35 || live.length === 0) {
            const id = crypto.randomUUID();
            const name = `load-${c}-${i}-${id.slice(0, 8)}`;
            const description = `created ${i}`;
            const wr = write('create', [[id, { name, description }]]);
            res = await call('POST', '/cruddy/v2/software_groups/create', { id, name, description }, wr);
            onAck = () => {
              live.push(id);
            };
          } else if (roll < 0.6) {
            const id = live[Math.floor(Math.random() * live.length)]!;
            const description = `updated ${c}-${i}`;
            const name = (records.get(id)![0]!.sets.get(id) as { name: string }).name;
            const wr = write('update', [[id, { name, description }]]);
            res = await call('PUT', '/cruddy/v2/software_groups/update', { id, description }, wr);
          } else if (roll < 0.7) {
            const items = Array.from({ length: 5 }, (_, k) => ({ id: crypto.randomUUID(), name: `load-${c}-${i}-m${k}`, description: `mass ${i}` }));
            const wr = write('mass_create', items.map((x) => [x.id, { name: x.name, description: x.description }]));
            res = await call('POST', '/cruddy/v2/software_groups/mass_create', items, wr);
            onAck = () => {
              for (const x of items) {
                live.push(x.id);
              }
            };
          } else if (roll < 0.75) {
            const id = live[Math.floor(Math.random() * live.length)]!;
            const wr = write('delete', [[id, null]]);
            res = await call('DELETE', `/cruddy/v2/software_groups/${id}`, undefined, wr);
            onAck = () => {
              live.splice(live.indexOf(id), 1);
            };
          } else if (roll < 0.9) {
            // A read sent after this client's writes were answered shows every one of them.
            const asked = since();
            res = await call('POST', '/cruddy/v2/software_groups/search', {
              include_fields: ['id', 'name', 'description'], exclude_fields: [], filters: [{ field: 'name', filter_type: 'substr', value: `load-${c}-` }], ordering: [{ field: 'created_at', direction: 'desc' }],
              virtual_search: { value: '', strict: false }, extension_params: { chidlrens_all: false, parents_all: false }, relations: [], limit: 20, offset: 0,
            });
            check = (body) => {
              const want = live.slice(-20).reverse();
              const got = body.items as { id: string; name: string; description: string | null }[];
              const wrong: string[] = [];
              if (body.total !== live.length) wrong.push(`total ${body.total}, expected ${live.length}`);
              for (let k = 0; k < Math.max(want.length, got.length); k++) {
                const id = want[k];
                const expected = id === undefined ? null : verdictOf(id, records.get(id)!).settled;
                const row = got[k];
                const found: State = row ? { name: row.name, description: row.description } : null;
                if (id !== row?.id || !same(expected, found)) wrong.push(`row ${k}: expected ${id ?? 'none'} ${show(expected)}, found ${row?.id ?? 'none'} ${show(found)}`);
              }
              if (wrong.length) staleReads.push(`client ${c} search #${i} sent at ${fmtMs(asked)}: ${wrong.slice(0, 3).join('; ')}`);
            };
          } else {
            res = await call('GET', '/data/public/api/v1/incidents?per_page=20&order=-risklevel&status=in,new,closed');
          }
        } catch (e) {
          if (e instanceof TestBug) throw e;
          // The kill cut this request (or, before it, a failed connection): a write keeps its
          // in-flight fate, and this client stops (it has at most one write in flight).
          if (!stopping) failures++;
          return;
        }
        latencies.push(performance.now() - t0);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const ok = res.status >= 200 && res.status < 300;
        if (w) {
          w.answeredAt = since();
          w.fate = ok ? 'acknowledged' : 'refused';
          if (ok) onAck?.();
        } else if (ok) {
          check?.(res.body);
        }
      }
    };

    const running = Array.from({ length: CLIENTS }, (_, c) => client(c));
    // Kill the server while the clients are still writing, a little before the end.
    await new Promise((r) => setTimeout(r, Math.max(1000, SECONDS * 1000 - 500)));
    stopping = true;
    const killAt = since();
    const killWall = performance.timeOrigin + performance.now();
    await s.stop('SIGKILL');
    const exitedAt = since();
    await Promise.all(running);
    const elapsed = killAt / 1000;

    // After a restart, each record through the API (reader threads of a new server)...
    s = await serve(args);
    const ids = [...records.keys()];
    const viaApi = new Map<string, State>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const found = await call('POST', '/cruddy/v2/software_groups/search', {
        include_fields: ['id', 'name', 'description'], exclude_fields: [], filters: [{ field: 'id', filter_type: 'intersection', value: chunk }], ordering: [],
        virtual_search: { value: '', strict: false }, extension_params: { chidlrens_all: false, parents_all: false }, relations: [], limit: 10_000, offset: 0,
      });
      expect(found.status).toBe(200);
      const byId = new Map((found.body.items as { id: string; name: string; description: string | null }[]).map((x) => [x.id, x]));
      for (const id of chunk) {
        const x = byId.get(id);
        viaApi.set(id, x ? { name: x.name, description: x.description } : null);
      }
    }
    await s.stop();
    await agent.close();

    // ...and in the file itself, with the server stopped: the two must agree.
    const file = new Database(db, { readonly: true });
    const stored = new Map<string, { state: State; created_at: string; updated_at: string }>();
    for (let i = 0; i < ids.length; i += 10_000) {
      const rows = file
        .prepare('SELECT id, name, description, created_at, updated_at FROM software_groups WHERE id IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(ids.slice(i, i + 10_000))) as { id: string; name: string; description: string | null; created_at: string; updated_at: string }[];
      for (const r of rows) stored.set(r.id, { state: { name: r.name, description: r.description }, created_at: r.created_at, updated_at: r.updated_at });
    }
    file.close();

    /** When the server wrote the record last (its updated_at), relative to the kill. */
    const writtenAt = (id: string): string => {
      const x = stored.get(id);
      if (!x) return '';
      const micros = Date.parse(x.updated_at.replace(/(\.\d{3})\d{3}Z$/, '$1Z')) * 1000 + Number(/\.\d{3}(\d{3})Z$/.exec(x.updated_at)?.[1] ?? 0);
      return `, stored updated_at ${x.updated_at} (${(micros / 1000 - killWall).toFixed(1)} ms from the kill)`;
    };
    const nameOf = (w: Write): string => `${w.op} #${w.client}-${w.seq}`;
    const history = (id: string): string =>
      records
        .get(id)!
        .map((w) => `${nameOf(w)} ${w.fate}${w.status !== undefined ? ` (${w.status})` : ''} sent ${fmtMs(w.sentAt - killAt)}${w.answeredAt !== undefined ? ` answered ${fmtMs(w.answeredAt - killAt)}` : ''} → ${show(w.sets.get(id)!)}`)
        .join('; ');

    const mismatches: string[] = [];
    const readPath: string[] = [];
    let checkedAcknowledged = 0;
    /** Per in-flight write: how many of its records hold the value sent. */
    const applied = new Map<Write, number>();
    for (const id of ids) {
      const found = viaApi.get(id)!;
      const inFile = stored.get(id)?.state ?? null;
      if (!same(found, inFile)) readPath.push(`record ${id}: the API answered ${show(found)}, the file holds ${show(inFile)}`);
      const v = verdictOf(id, records.get(id)!);
      if (records.get(id)!.some((w) => w.fate === 'acknowledged')) checkedAcknowledged++;
      if (same(found, v.settled) && !(v.inFlight && same(found, v.inFlight.sets.get(id)!))) {
        if (v.inFlight) applied.set(v.inFlight, applied.get(v.inFlight) ?? 0);
        continue;
      }
      if (v.inFlight && same(found, v.inFlight.sets.get(id)!)) {
        applied.set(v.inFlight, (applied.get(v.inFlight) ?? 0) + 1);
        continue;
      }
      const list = records.get(id)!;
      const expectedBy = list.findLast((w) => w.fate === 'acknowledged');
      const foundBy = list.findLast((w) => same(found, w.sets.get(id)!));
      mismatches.push(
        `record ${id}: expected ${show(v.settled)} (${expectedBy ? `${nameOf(expectedBy)}, acknowledged` : 'no acknowledged write'})` +
          `${v.inFlight ? ` or ${show(v.inFlight.sets.get(id)!)} (${nameOf(v.inFlight)}, in flight)` : ''}, ` +
          `found ${show(found)} (${foundBy ? `the value of ${nameOf(foundBy)}, ${foundBy.fate}` : found === null ? 'absent' : 'written by no write'})${writtenAt(id)}; writes: ${history(id)}`,
      );
    }

    // In-flight writes: found applied or not, each whole (a mass create all or nothing).
    const inFlight = writes.filter((w) => w.fate === 'in flight');
    const tally = (pick: (w: Write) => boolean) => {
      const of = inFlight.filter(pick);
      const by = Object.fromEntries((['create', 'mass_create', 'update', 'delete'] as Op[]).map((op) => [op, of.filter((w) => w.op === op).length]).filter(([, n]) => n));
      return of.length ? `${of.length} ${JSON.stringify(by)}` : '0';
    };
    const isApplied = (w: Write) => applied.get(w) === w.sets.size;
    const isNotApplied = (w: Write) => (applied.get(w) ?? 0) === 0;
    for (const w of inFlight) {
      if (!isApplied(w) && !isNotApplied(w)) {
        mismatches.push(`${nameOf(w)} in flight: ${applied.get(w)} of its ${w.sets.size} records applied, expected all or none; ${[...w.sets.keys()].map((id) => `${id} found ${show(viaApi.get(id)!)}`).join(', ')}`);
      }
    }
    const appliedWrites = inFlight.filter(isApplied);

    const sorted = [...latencies].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
    const count = (f: Fate) => writes.filter((w) => w.fate === f).length;
    console.log(
      `load: ${CLIENTS} clients for ${elapsed.toFixed(1)} s, ${latencies.length} answers (${(latencies.length / elapsed).toFixed(0)}/s), p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms; ` +
        `statuses ${JSON.stringify(statuses)}; writes acknowledged ${count('acknowledged')}, refused ${count('refused')}, in flight at the kill ${inFlight.length}; ` +
        `records checked after kill -9 and restart ${ids.length} (${checkedAcknowledged} with an acknowledged write): ${mismatches.length} mismatches; ` +
        `in-flight writes found applied ${tally(isApplied)}, not applied ${tally(isNotApplied)}; ` +
        `reads during the load missing an acknowledged write ${staleReads.length}; API and file disagreeing ${readPath.length}; failed connections ${failures}`,
    );
    console.log(`load test: the kill was sent at ${fmtMs(killAt)} and the server exited ${(exitedAt - killAt).toFixed(1)} ms later; in-flight writes found applied (committed, never answered):`);
    for (const w of appliedWrites.slice(0, SHOWN)) {
      const id = [...w.sets.keys()][0]!;
      console.log(`  ${nameOf(w)} sent ${fmtMs(w.sentAt - killAt)} from the kill${w.status !== undefined ? `, answer cut after its status ${w.status}` : ''}; ${id}${writtenAt(id)}`);
    }
    for (const m of [...mismatches, ...readPath, ...staleReads].slice(0, SHOWN)) console.log(`MISMATCH ${m}`);

    expect(mismatches).toEqual([]);
    expect(readPath).toEqual([]);
    expect(staleReads).toEqual([]);
    expect(statuses[500] ?? 0).toBe(0);
    expect(failures).toBe(0);
    expect(count('acknowledged')).toBeGreaterThan(CLIENTS);
  }, 300_000 + SECONDS * 3000);
});
