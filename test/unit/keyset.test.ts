// Keyset paging behind offset paging: a page read after others of the same search starts from a
// noted row instead of counting the offset, and answers exactly what plain OFFSET answers, for
// every order (one key or several, either direction, mixed), after writes too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch, type SearchOrdering, type SearchRequest } from '../../src-shared/schemas/search';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileSearch } from '../../src-main/store/search';
import { keysetUsable } from '../../src-main/store/query/keyset';
import { compileSearchPlan } from '../../src-main/store/query/plan';
import { Store } from '../../src-main/store/store';
import { copyDemoDatabase } from '../helpers/seed';
import { Runner } from '../../src-main/store/query/runner';

const I = getResource('service_asset_findings');
let db: Db;
let store: Store;

// Each test on its own copy of the seeded demo database.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-keyset-'));
let copies = 0;
beforeEach(() => {
  db = openDatabase(copyDemoDatabase(path.join(tmp, `demo-${++copies}.sqlite`))).db;
  store = new Store(db);
});
afterEach(() => db.close());
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The page as plain OFFSET gives it, on a statement of the test's own. */
function byOffset(req: SearchRequest): string[] {
  const c = compileSearch(I, req);
  const ids = db.prepare(c.ids.sql).all(...c.ids.params) as { _rid: number }[];
  const idOf = db.prepare('SELECT id FROM service_asset_findings WHERE _rid = ?').pluck();
  return ids.map((x) => idOf.get(x._rid) as string);
}

const ids = (req: SearchRequest): string[] => new Runner(store).search(I, req).items.map((x) => x.id as string);

const orders: SearchOrdering[][] = [
  [{ field: 'created_at', direction: 'desc' }],
  [{ field: 'risklevel', direction: 'desc' }],
  [{ field: 'status', direction: 'asc' }, { field: 'risklevel', direction: 'desc' }],
  // display_id may be NULL: plain OFFSET.
  [{ field: 'display_id', direction: 'asc' }],
  [],
];

describe('keyset paging', () => {
  it('applies to orders of never-NULL keys only', () => {
    const usable = (ordering: SearchOrdering[]) => keysetUsable(compileSearchPlan(I, { ...emptySearch(10, 20), ordering }));
    expect(orders.map(usable)).toEqual([true, true, true, false, true]);
    expect(usable([{ field: 'title', direction: 'asc' }])).toBe(false);
    expect(keysetUsable(compileSearchPlan(I, { ...emptySearch(0, 20), ordering: orders[0]! }))).toBe(false);
  });

  it('answers what OFFSET answers, page after page, on jumps back and forth, and after writes', () => {
    const filters = [{ field: 'status', filter_type: 'intersection' as const, value: ['new', 'assigned_customer', 'closed'] }];
    for (const ordering of orders) {
      const req = (offset: number, limit = 7): SearchRequest => ({ ...emptySearch(limit, offset), filters, ordering });
      const total = new Runner(store).search(I, req(0)).total;
      for (let offset = 0; offset < total + 7; offset += 7) expect(ids(req(offset)), `${JSON.stringify(ordering)} @${offset}`).toEqual(byOffset(req(offset)));
      for (const offset of [50, 13, 49, 3, 120, 119, 121, total - 1, 0, 64]) {
        expect(ids(req(offset, 11)), `${JSON.stringify(ordering)} jump @${offset}`).toEqual(byOffset(req(offset, 11)));
      }
      const some = ids(req(20, 3));
      store.update(I, { id: some[0]!, status: 'closed', risklevel: 9.9 });
      store.delete(I, some[1]!);
      for (const offset of [21, 28, 14, 35]) expect(ids(req(offset)), `${JSON.stringify(ordering)} after writes @${offset}`).toEqual(byOffset(req(offset)));
    }
  });

  it('pages by status_rank (an indexed expression) as OFFSET does, bounding the rank alone too', () => {
    const rankOrders: SearchOrdering[][] = [
      [{ field: 'status_rank', direction: 'asc' }],
      [{ field: 'status_rank', direction: 'desc' }],
      [{ field: 'status_rank', direction: 'asc' }, { field: 'risklevel', direction: 'desc' }],
    ];
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    (db as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      seen.push(sql);
      return prepare(sql);
    };
    for (const ordering of rankOrders) {
      expect(keysetUsable(compileSearchPlan(I, { ...emptySearch(7, 7), ordering }))).toBe(true);
      const req = (offset: number, limit = 7): SearchRequest => ({ ...emptySearch(limit, offset), ordering });
      const total = new Runner(store).search(I, req(0)).total;
      for (let offset = 0; offset < total + 7; offset += 7) expect(ids(req(offset)), `${JSON.stringify(ordering)} @${offset}`).toEqual(byOffset(req(offset)));
      for (const offset of [50, 13, 49, 3, total - 1, 0]) expect(ids(req(offset, 11)), `${JSON.stringify(ordering)} jump @${offset}`).toEqual(byOffset(req(offset, 11)));
    }
    expect(seen.some((s) => /\(CASE t\.status .* END\) >= \? AND \(\(CASE t\.status .* END\), t\.created_at, t\._rid\) >= \(\?, \?, \?\)/.test(s))).toBe(true);
    expect(seen.some((s) => /\(CASE t\.status .* END\) <= \? AND \(\(CASE t\.status .* END\), t\.created_at, t\._rid\) <= \(\?, \?, \?\)/.test(s))).toBe(true);
  });

  it('starts a later page from a noted row rather than counting the offset', () => {
    const ordering: SearchOrdering[] = [{ field: 'created_at', direction: 'desc' }];
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    (db as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      seen.push(sql);
      return prepare(sql);
    };
    new Runner(store).search(I, { ...emptySearch(10, 100), ordering });
    expect(seen.some((s) => s.includes('(t."created_at", t._rid) <= (?, ?)'))).toBe(false);
    new Runner(store).search(I, { ...emptySearch(10, 110), ordering });
    expect(seen.some((s) => s.includes('(t."created_at", t._rid) <= (?, ?)'))).toBe(true);
  });
});
