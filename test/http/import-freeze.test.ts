// An import through the API runs on its own thread: meanwhile the server answers a trivial GET
// and a search, and a write meets the import's lock and is answered 503 with Retry-After.
// `npm test` imports 20,000 records and checks what is answered (`npm run test:fast` 10,000); `npm run test:robust`
// (RADAR_ROBUST=1) imports 100,000 and holds the answers to time limits measured against the same
// traffic without an import in the same run: a trivial GET about as quick, a refused write at once
// (never after a wait on the event loop), the event loop never held for long. IMPORT_ROWS sets the
// size.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const ROBUST = process.env.RADAR_ROBUST === '1';
const ROWS = Number(process.env.IMPORT_ROWS ?? (ROBUST ? 100_000 : 20_000));
const STATUSES = ['new', 'assigned_customer', 'working_customer', 'closed'];

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await srv?.stop();
});

function incidents(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    lines.push(JSON.stringify({ id, title: `Инцидент ${i} на узле srv-${i % 977}`, status: STATUSES[i % STATUSES.length], risklevel: (i % 101) / 10 }));
  }
  return `${lines.join('\n')}\n`;
}

const timed = async <T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
};

interface Traffic {
  gets: number[];
  searches: number[];
  writes: { status: number; ms: number; retryAfter: string | null }[];
  loop: ReturnType<typeof monitorEventLoopDelay>;
  /** Share of the time the event loop was busy (not waiting for events). */
  utilization: number;
}

/**
 * A trivial GET, a search and a write, over and over: until `go` answers false, or for `ms`.
 * `go` answers true (go on), 'wait' (go on, no write yet) or false (stop).
 */
async function traffic(go: () => Promise<boolean | 'wait'>, ms = Number.POSITIVE_INFINITY): Promise<Traffic> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const elu0 = performance.eventLoopUtilization();
  const end = performance.now() + ms;
  const t: Omit<Traffic, 'loop' | 'utilization'> = { gets: [], searches: [], writes: [] };
  while (performance.now() < end) {
    const get = await timed(() => srv.call('GET', '/tenancy/instance/list'));
    expect(get.value.status).toBe(200);
    t.gets.push(get.ms);
    const s = await timed(() => srv.call('POST', '/cruddy/v2/service_asset_findings/search', search({ limit: 5, filters: [{ field: 'status', filter_type: 'equal', value: 'closed' }], ordering: [{ field: 'risklevel', direction: 'desc' }] })));
    expect(s.value.status, s.value.text).toBe(200);
    t.searches.push(s.ms);
    const more = await go();
    if (more === false) break;
    if (more === true) {
      const w = await timed(() => srv.call('POST', '/cruddy/v2/software_groups/create', { name: `while asked ${crypto.randomUUID()}` }));
      t.writes.push({ status: w.value.status, ms: w.ms, retryAfter: w.value.headers.get('retry-after') });
      if (w.value.status !== 201) expect(w.value.body).toEqual({ error: expect.stringMatching(/busy/), error_code: 503 });
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  loop.disable();
  return { ...t, loop, utilization: performance.eventLoopUtilization(elu0).utilization };
}

describe(`an import of ${ROWS.toLocaleString('en-US')} records through the API`, () => {
  it(`leaves the server answering: a trivial GET${ROBUST ? ' about as quick as without it' : ''}, a search, writes refused${ROBUST ? ' at once' : ''} with 503`, async () => {
    // The same traffic for a few seconds without an import: the event loop's share of busy time
    // in this process (the test's own client included) is the baseline of the time limits.
    const baseline = await traffic(() => Promise.resolve(true), ROBUST ? 3000 : 0);

    const body = incidents(ROWS);
    const started = await fetch(`${srv.main}/console/v1/import?kind=service_asset_findings&filename=incidents.ndjson`, {
      method: 'POST',
      headers: { PgrApiKey: TEST_KEY, 'Content-Type': 'application/x-ndjson' },
      body,
    });
    expect(started.status).toBe(202);
    const job = (await started.json()) as { id: string };
    const phases = new Set<string>();
    const during = await traffic(async () => {
      const view = (await srv.call('GET', `/console/v1/jobs/${job.id}`)).body as { state: string; progress: { phase: string; records: number } };
      phases.add(view.progress.phase);
      return view.state === 'running' && view.progress.records > 0 ? true : view.state === 'running' ? 'wait' : false;
    });
    const { gets, searches, writes, loop } = during;
    const elu = during.utilization;
    const final = (await srv.call('GET', `/console/v1/jobs/${job.id}`)).body;
    expect(final.state, JSON.stringify(final.error)).toBe('done');
    expect(final.summary.records).toBe(ROWS);

    const sorted = [...gets].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const p95 = sorted[Math.floor(sorted.length * 0.95)]!;
    const busy = writes.filter((w) => w.status === 503);
    console.log(
      `import of ${ROWS} rows: ${gets.length} GETs during it, median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms; ` +
        `searches max ${Math.max(...searches).toFixed(1)} ms; writes ${writes.length} (${busy.length} refused 503, slowest ${Math.max(0, ...writes.map((w) => w.ms)).toFixed(1)} ms); ` +
        `event loop delay max ${(loop.max / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, busy ${(elu * 100).toFixed(0)}% of the time ` +
        (baseline.gets.length
          ? `(${(baseline.utilization * 100).toFixed(0)}% for the same traffic without an import, GET p95 ${baseline.gets.sort((a, b) => a - b)[Math.floor(baseline.gets.length * 0.95)]!.toFixed(1)} ms); `
          : '') +
        `phases ${[...phases].join(', ')}`,
    );
    expect(gets.length).toBeGreaterThan(5);
    // Writes that met the import's lock were refused with Retry-After.
    expect(busy.length).toBeGreaterThan(0);
    for (const w of busy) expect(w.retryAfter).toBe('1');
    if (ROBUST) {
      // The limits are measured against the same traffic without an import, in the same run (a
      // 2-core machine shared with other work makes any fixed number flaky): the GETs' p95 under
      // the larger of ten times the baseline's and the baseline's plus 100 ms; the slowest GET and
      // the event loop's longest delay under the baseline's plus 500 ms. Before the import ran on its own
      // thread, GETs waited 6-10 s for its lock: far past any of these.
      const base = [...baseline.gets].sort((a, b) => a - b);
      const baseP95 = base[Math.floor(base.length * 0.95)]!;
      const baseMax = base[base.length - 1]!;
      const baseLoopMax = baseline.loop.max / 1e6;
      console.log(
        `import of ${ROWS} rows, limits from the baseline: GET p95 ${p95.toFixed(1)} ms (limit ${Math.max(10 * baseP95, baseP95 + 100).toFixed(1)}), ` +
          `GET max ${sorted[sorted.length - 1]!.toFixed(1)} ms (limit ${(baseMax + 500).toFixed(1)}), event loop delay max ${(loop.max / 1e6).toFixed(1)} ms (limit ${(baseLoopMax + 500).toFixed(1)})`,
      );
      expect(p95).toBeLessThan(Math.max(10 * baseP95, baseP95 + 100));
      expect(sorted[sorted.length - 1]!).toBeLessThan(baseMax + 500);
      // Refused at once, never after a wait (the slowest write without an import, plus 500 ms).
      const baseWrite = Math.max(0, ...baseline.writes.map((w) => w.ms));
      for (const w of busy) expect(w.ms).toBeLessThan(baseWrite + 500);
      expect(loop.max / 1e6).toBeLessThan(baseLoopMax + 500);
      // The thread is not held by the import: about as busy as with the same traffic and no import.
      expect(elu).toBeLessThan(baseline.utilization + 0.3);
    }

    const after = await srv.call('POST', '/cruddy/v2/service_asset_findings/search', search({ limit: 1, virtual_search: { value: `Инцидент ${ROWS - 1} `, strict: false } }));
    expect(after.body.total).toBe(1);
  }, ROBUST ? 600_000 : 180_000);
});
