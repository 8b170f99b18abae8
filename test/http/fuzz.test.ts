// The API fuzzed from its own OpenAPI document (test/helpers/fuzz.ts): about 2,000 cases here,
// FUZZ_RUNS=N for more (`npm run test:robust` runs 10,000). FUZZ_SEED replays a run.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldsOf, relationsOf, RESOURCES } from '../../src-shared/resources/index';
import { alive, caseArbitrary, operationsOf, poolsFrom, runCase, SIDE_EFFECTS, type FuzzTarget, type Tally } from '../helpers/fuzz';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let srv: TestServer;
let target: FuzzTarget;
let doc: Record<string, unknown>;
let ids: string[];

beforeAll(async () => {
  // The service scan probes a closed port briefly, so fuzzed addresses cost little.
  srv = await startTestServer({ seed: 'demo', scan: { ports: [9], timeoutMs: 100, budgetMs: 300 } });
  target = { main: srv.main, routing: srv.routing, key: TEST_KEY };
  doc = (await srv.call('GET', '/openapi.json')).body;
  ids = [];
  for (const r of RESOURCES) {
    const res = await srv.call('POST', `/cruddy/v2/${r.name}/search`, search({ limit: 3 }));
    for (const it of res.body.items ?? []) ids.push(it.id);
  }
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

const fieldNames = () => [...new Set(RESOURCES.flatMap((r) => [...fieldsOf(r).map((f) => f.name), ...relationsOf(r).map(([n]) => n)]))];

describe('fuzzing every operation of /openapi.json', () => {
  it(`${RUNS} cases: never a 500, every refusal {error, error_code} equal to its status, the server answering throughout`, async () => {
    const ops = operationsOf(doc as never).filter((o) => !SIDE_EFFECTS.some((re) => re.test(`${o.method} ${o.path}`)));
    expect(ops.length).toBeGreaterThan(300);
    const pools = poolsFrom(doc, ids, fieldNames());
    const tally: Tally = { cases: 0, byStatus: {}, failures: [] };
    const started = performance.now();
    let down = 0;
    await fc.assert(
      fc.asyncProperty(caseArbitrary(doc, ops, pools), async (c) => {
        const problem = await runCase(target, c, tally);
        if (problem) tally.failures.push(problem);
        if (tally.cases % 250 === 0 && !(await alive(target))) down++;
        return problem === null;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true, verbose: 0 },
    ).catch((e: Error) => {
      throw new Error(`${tally.failures[0] ?? e.message}\n(replay with FUZZ_SEED; ${e.message.split('\n')[0]})`);
    });
    const statuses = Object.entries(tally.byStatus)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    console.log(`fuzz: ${tally.cases} cases over ${ops.length} operations in ${((performance.now() - started) / 1000).toFixed(1)} s; answers ${statuses}; 500s: ${tally.byStatus[500] ?? 0}; bodies outside {error, error_code}: ${tally.failures.length}; server down at checks: ${down}`);
    expect(tally.failures).toEqual([]);
    expect(down).toBe(0);
    expect(await alive(target)).toBe(true);
  }, 1_800_000);

  it('DELETE .../all with fuzzed filters answers in the error shape too', async () => {
    const ops = operationsOf(doc as never).filter((o) => /^DELETE .*\/all$/.test(`${o.method} ${o.path}`));
    const pools = poolsFrom(doc, ids, fieldNames());
    const tally: Tally = { cases: 0, byStatus: {}, failures: [] };
    await fc.assert(
      fc.asyncProperty(caseArbitrary(doc, ops, pools), async (c) => {
        const problem = await runCase(target, c, tally);
        if (problem) tally.failures.push(problem);
        return problem === null;
      }),
      { numRuns: Math.max(50, Math.round(RUNS / 20)), seed: SEED, endOnFailure: true },
    ).catch((e: Error) => {
      throw new Error(tally.failures[0] ?? e.message);
    });
    expect(await alive(target)).toBe(true);
  }, 600_000);
});
