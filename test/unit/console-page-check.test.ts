// The console's check of a list's pages (src-renderer/src/api/pageCheck.ts): compiled from the
// search operation's answer schema, it accepts exactly the pages the schema accepts (a page it
// cannot vouch for goes to the schema, whose issues are the error), and a malformed answer from
// a real socket fails the console's search with the contract's error, as before.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ContractMismatchError } from '../../src-shared/client/index';
import { findOperation } from '../../src-shared/contract/index';
import { checkedPage } from '../../src-renderer/src/api/pageCheck';
import { createApi, MAIN } from '../../src-renderer/src/api/client';
import { search } from '../../src-renderer/src/api/radar';
import { emptySearch } from '../../src-shared/client/empty-search';

const R = 'service_asset_findings';
const schema = findOperation(`${R}.search`)!.responses[200] as unknown as { safeParse(v: unknown): { success: boolean } };

const record = (i: number): Record<string, unknown> => ({
  id: `6f8c17d8-f049-420d-b77e-${String(i).padStart(12, '0')}`,
  display_id: 1000 + i,
  title: `Jira Remote code execution на proxy-kzn-${i}`,
  status: 'new',
  risk: 'critical',
  risklevel: 9.5,
  service_asset_id: 'cf1c3072-8fec-4e87-aff5-ec6509016631',
  finding_id: null,
  user_id: null,
  group_id: '00000000-0000-4000-9000-000000000004',
  external: false,
  created_at: '2026-10-31T23:59:51.415253Z',
  updated_at: '2026-11-01T00:00:00.000000Z',
});
const page = (n = 300) => ({ items: Array.from({ length: n }, (_, i) => record(i)), total: 1_000_000 });

/** Pages the schema refuses, each for one reason. */
const malformed: [string, (p: ReturnType<typeof page>) => unknown][] = [
  ['a field of the wrong type', (p) => ((p.items[7]!.risklevel = 'high'), p)],
  ['a value outside an enumeration', (p) => ((p.items[7]!.risk = 'severe'), p)],
  ['a status the contract does not know', (p) => ((p.items[299]!.status = 'gone'), p)],
  ['a fractional incident number', (p) => ((p.items[0]!.display_id = 1.5), p)],
  ['null where the field is never null', (p) => ((p.items[3]!.id = null), p)],
  ['null for a field never null (created_at)', (p) => ((p.items[3]!.created_at = null), p)],
  ['a field the resource does not have', (p) => ((p.items[5]!.not_a_field = 1), p)],
  ['a boolean as a string', (p) => ((p.items[5]!.external = 'false'), p)],
  ['a record that is not an object', (p) => ((p.items as unknown[])[4] = 'x', p)],
  ['a record that is an array', (p) => ((p.items as unknown[])[4] = [], p)],
  ['items missing', (p) => ({ total: p.total })],
  ['total missing', (p) => ({ items: p.items })],
  ['a fractional total', (p) => ({ ...p, total: 10.5 })],
  ['a key beside items and total', (p) => ({ ...p, next: 1 })],
  ['not an object', () => 'items'],
  ['an array', (p) => [p]],
  ['a relation of the wrong shape', (p) => ((p.items[1]!.service_asset = 'web-msk-001'), p)],
];

describe('a page of a search, checked by the compiled check', () => {
  test('a well-formed page is handed over as it came, and the schema agrees', () => {
    const p = page();
    expect(schema.safeParse(p).success).toBe(true);
    expect(checkedPage(R, p)).toBe(p);
    const empty = { items: [], total: 0 };
    expect(checkedPage(R, empty)).toBe(empty);
  });

  test('a page with a relation loaded is checked by the relation own schema', () => {
    const p = page(3);
    (p.items[0] as Record<string, unknown>).status_changes = [];
    expect(schema.safeParse(p).success).toBe(true);
    expect(checkedPage(R, p)).toEqual(p);
  });

  for (const [why, spoil] of malformed) {
    test(`is refused with the contract's issues: ${why}`, () => {
      const bad = spoil(page());
      expect(schema.safeParse(bad).success).toBe(false);
      let thrown: unknown;
      try {
        checkedPage(R, bad);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ContractMismatchError);
      expect((thrown as Error).message).toMatch(new RegExp(`^${R}\\.search: the answer does not match the contract: `));
    });
  }
});

describe("the console's search over a real socket", () => {
  let server: http.Server;
  let base = '';
  let answer: unknown = null;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test('answers a well-formed page, and fails on a malformed one with the contract error', async () => {
    const api = createApi('k'.repeat(32), base);
    answer = page(5);
    const got = await search(api, MAIN, R, { ...emptySearch(5), include_fields: ['id'] });
    expect(got).toEqual(answer);
    answer = { items: [{ ...record(0), risk: 'severe' }], total: 1 };
    await expect(search(api, MAIN, R, { ...emptySearch(5), include_fields: ['id'] })).rejects.toThrow(/service_asset_findings\.search: the answer does not match the contract: items\.0\.risk/);
  });
});
