// A read sent after a write has been answered sees that write, whichever reader thread takes it,
// whatever the readers kept or were computing when the write landed: the v2 search's rows and
// total, the public list's total and the console's counts, asked one after another and at once,
// over many rounds of a bulk change and its reversal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, type TestServer } from '../helpers/server';

/** Rounds of a bulk change and its reversal: 30 in `npm test`, fewer in `npm run test:fast`. */
const ROUNDS = Number(process.env.READ_AFTER_WRITE_ROUNDS ?? 30);
let srv: TestServer;
const I = '/cruddy/v2/service_asset_findings';

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo', readers: 2 });
});

afterAll(async () => {
  await srv?.stop();
});

describe('read after write', () => {
  it(`every read sent after a bulk change answers it, over ${ROUNDS} rounds`, async () => {
    const page = await srv.call('POST', `${I}/search`, search({ limit: 40, include_fields: ['id'], ordering: [{ field: 'created_at', direction: 'asc' }] }));
    const ids = (page.body.items as { id: string }[]).map((r) => r.id);
    expect(ids).toHaveLength(40);
    const inSet = { field: 'id', filter_type: 'intersection', value: ids };
    const count = async (status: string) => {
      const body = search({ limit: 50, include_fields: ['id', 'status'], filters: [inSet, { field: 'status', filter_type: 'equal', value: status }] });
      // The same search three times at once (both readers, and a share of one in flight) and once alone.
      const answers = await Promise.all([1, 2, 3].map(() => srv.call('POST', `${I}/search`, body, {}, undefined, { check: false })));
      answers.push(await srv.call('POST', `${I}/search`, body, {}, undefined, { check: false }));
      return answers.map((a) => [a.body.total as number, (a.body.items as unknown[]).length]);
    };
    // A slow, wide read in flight while the writes land: nothing it computed may be reused after them.
    const busy = () => srv.call('POST', `${I}/search`, search({ limit: 1, virtual_search: { value: 'a', strict: false } }), {}, undefined, { check: false });
    for (let round = 0; round < ROUNDS; round++) {
      const [from, to] = round % 2 === 0 ? ['new', 'working_customer'] : ['working_customer', 'new'];
      const inflight = busy();
      const before = await count(to);
      const w = await srv.call('POST', `${I}/mass_update`, { ids, field: 'status', value: to }, {}, undefined, { check: false });
      expect(w.status, w.text).toBe(200);
      const after = await count(to);
      const left = await count(from);
      expect(after, `round ${round}: ${to}`).toEqual([[40, 40], [40, 40], [40, 40], [40, 40]]);
      expect(left, `round ${round}: ${from}`).toEqual([[0, 0], [0, 0], [0, 0], [0, 0]]);
      if (round > 0) expect(before[0]![0], `round ${round}: before`).toBe(0);
      const stats = await srv.call('GET', `/console/v1/stats/incidents?bucket=day`, undefined, {}, undefined, { check: false });
      const byStatus = Object.fromEntries((stats.body.by_status as { status: string; count: number }[]).map((s) => [s.status, s.count]));
      const truth = await srv.call('POST', `${I}/search`, search({ limit: 1, filters: [{ field: 'status', filter_type: 'equal', value: to }] }), {}, undefined, { check: false });
      expect(byStatus[to] ?? 0, `round ${round}: chips`).toBe(truth.body.total);
      await inflight;
    }
  }, 120_000);
});
