// The group operation's pages (`order`, `limit`, `offset`) over a real socket, on the demo data
// set: every page is checked against SQLite's own GROUP BY of the incidents, read here from the
// database file on a connection of the test's own. Without the paging parameters the answer is
// the spec's: every group, the most frequent first, `{items}` alone. The groupings cover both
// ways the server answers: from the kept counts (status, owner, asset) and grouped in SQL (title,
// and any grouping with a text search).
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;
let truth: Database.Database;
const I = '/cruddy/v2/service_asset_findings';

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  truth = new Database(srv.db, { readonly: true });
});

afterAll(async () => {
  truth?.close();
  await srv?.stop();
});

type Item = { value: unknown; count: number };
type Answer = { items: Item[]; groups?: number; total?: number };

const group = async (body: Record<string, unknown>): Promise<Answer> => {
  const res = await srv.call('POST', `${I}/group`, body);
  expect(res.status, res.text).toBe(200);
  return res.body as Answer;
};

/** SQLite's grouping of the incidents by a column, in either order. */
function recount(column: string, order: 'count' | 'value', where = '1', ...params: unknown[]): Item[] {
  const by = order === 'value' ? 'value ASC' : 'count DESC, value ASC';
  return truth.prepare(`SELECT ${column} AS value, COUNT(*) AS count FROM service_asset_findings WHERE ${where} GROUP BY 1 ORDER BY ${by}`).all(...params) as Item[];
}

const NEW = [{ field: 'status', filter_type: 'equal', value: 'new' }];
const CASES: { name: string; field: string; filters: unknown[]; where: string; params: unknown[] }[] = [
  { name: 'title (grouped in SQL)', field: 'title', filters: [], where: '1', params: [] },
  { name: 'title, status new', field: 'title', filters: NEW, where: "status = 'new'", params: [] },
  { name: 'title, status closed (its status and title index)', field: 'title', filters: [{ field: 'status', filter_type: 'equal', value: 'closed' }], where: "status = 'closed'", params: [] },
  { name: 'title, band critical as risklevel 9 or more (read from the status, title and risklevel index)', field: 'title', filters: [{ field: 'risklevel', filter_type: 'range', value: [9, null] }], where: 'risklevel >= 9', params: [] },
  { name: 'title, band critical as the stored band', field: 'title', filters: [{ field: 'risk', filter_type: 'equal', value: 'critical' }], where: "risk = 'critical'", params: [] },
  {
    name: 'title, status new and band high as risklevel 7 to under 9',
    field: 'title',
    filters: [...NEW, { field: 'risklevel', filter_type: 'range', value: [7, null] }, { field: 'risklevel', filter_type: 'range', value: [9, null], negation: true }],
    where: "status = 'new' AND risklevel >= 7 AND risklevel < 9",
    params: [],
  },
  {
    name: 'title, status new, risk 7 to 10',
    field: 'title',
    filters: [...NEW, { field: 'risklevel', filter_type: 'range', value: [7, 10] }],
    where: "status = 'new' AND risklevel BETWEEN 7 AND 10",
    params: [],
  },
  { name: 'status (kept counts)', field: 'status', filters: [], where: '1', params: [] },
  { name: 'owner (kept counts, with none)', field: 'user_id', filters: [], where: '1', params: [] },
  { name: 'asset, status new (kept counts)', field: 'service_asset_id', filters: NEW, where: "status = 'new'", params: [] },
];

describe('POST /<resource>/group, paged', () => {
  it('without order, limit or offset answers every group, the most frequent first, and nothing else', async () => {
    for (const c of CASES) {
      const a = await group({ group_field: c.field, filters: c.filters });
      expect(Object.keys(a), c.name).toEqual(['items']);
      expect(a.items, c.name).toEqual(recount(c.field, 'count', c.where, ...c.params));
    }
  });

  it('pages in value order (none first, then the index order) with the number of groups and of records', async () => {
    for (const c of CASES) {
      const all = recount(c.field, 'value', c.where, ...c.params);
      const records = all.reduce((n, g) => n + g.count, 0);
      expect(all.length, c.name).toBeGreaterThan(1);
      const size = Math.max(1, Math.floor(all.length / 3));
      const seen: Item[] = [];
      for (let offset = 0; offset <= all.length; offset += size) {
        const a = await group({ group_field: c.field, filters: c.filters, order: 'value', limit: size, offset });
        expect(a.groups, c.name).toBe(all.length);
        expect(a.total, c.name).toBe(records);
        expect(a.items.length, c.name).toBe(Math.min(size, all.length - offset));
        seen.push(...a.items);
      }
      expect(seen, c.name).toEqual(all);
      // The whole list in value order, unpaged: no numbers added.
      expect(await group({ group_field: c.field, filters: c.filters, order: 'value' }), c.name).toEqual({ items: all });
    }
  });

  it('small pages by value under a condition most records meet (read along the field\'s index) are SQLite\'s', async () => {
    for (const [name, filters, where] of [
      ['status other than closed', [{ field: 'status', filter_type: 'intersection', value: ['new', 'assigned_customer', 'working_customer', 'feedback_required', 'verify_close', 'risk_accepted', 'invalid'] }], "status <> 'closed'"],
      ['status new', NEW, "status = 'new'"],
      ['status closed', [{ field: 'status', filter_type: 'equal', value: 'closed' }], "status = 'closed'"],
    ] as const) {
      const all = recount('title', 'value', where);
      for (const offset of [0, 2, 5, all.length - 2]) {
        const a = await group({ group_field: 'title', filters, order: 'value', limit: 2, offset });
        expect(a.items, `${name} @${offset}`).toEqual(all.slice(offset, offset + 2));
        expect(a.groups, name).toBe(all.length);
      }
    }
  });

  it('pages in count order: the pages put together are the unpaged answer', async () => {
    for (const c of CASES) {
      const all = (await group({ group_field: c.field, filters: c.filters })).items;
      const seen: Item[] = [];
      for (let offset = 0; offset < all.length; offset += 4) {
        const a = await group({ group_field: c.field, filters: c.filters, limit: 4, offset });
        expect(a.groups, c.name).toBe(all.length);
        seen.push(...a.items);
      }
      expect(seen, c.name).toEqual(all);
    }
  });

  it('an offset alone answers the rest; limit 0 only the numbers; past the end no group', async () => {
    const all = recount('title', 'count');
    const records = all.reduce((n, g) => n + g.count, 0);
    expect(await group({ group_field: 'title', offset: 2 })).toEqual({ items: all.slice(2), groups: all.length, total: records });
    expect(await group({ group_field: 'title', limit: 0 })).toEqual({ items: [], groups: all.length, total: records });
    expect(await group({ group_field: 'title', order: 'value', limit: 5, offset: all.length })).toEqual({ items: [], groups: all.length, total: records });
    const nothing = [{ field: 'title', filter_type: 'equal', value: 'no incident has this title' }];
    expect(await group({ group_field: 'title', filters: nothing, limit: 10 })).toEqual({ items: [], groups: 0, total: 0 });
  });

  it('counts the records without a value as one group', async () => {
    const all = recount('user_id', 'value');
    expect(all[0]!.value).toBeNull();
    const a = await group({ group_field: 'user_id', order: 'value', limit: 1 });
    expect(a).toEqual({ items: [all[0]], groups: all.length, total: all.reduce((n, g) => n + g.count, 0) });
  });

  it('the number of groups follows a write', async () => {
    const shared = truth.prepare('SELECT title FROM service_asset_findings GROUP BY title HAVING COUNT(*) > 1 LIMIT 1').get() as { title: string };
    const id = (truth.prepare('SELECT id FROM service_asset_findings WHERE title = ? LIMIT 1').get(shared.title) as { id: string }).id;
    const before = await group({ group_field: 'title', order: 'value', limit: 1 });
    const res = await srv.call('PUT', `${I}/update`, { id, title: `${shared.title} (split off)` });
    expect(res.status, res.text).toBe(200);
    const after = await group({ group_field: 'title', order: 'value', limit: 1 });
    expect(after.groups).toBe(before.groups! + 1);
    expect(after.groups).toBe(recount('title', 'value').length);
    expect(after.total).toBe(before.total);
  });

  it('a bad order, limit or offset is a 400 in the error shape', async () => {
    for (const bad of [
      { limit: -1 },
      { limit: 1.5 },
      { limit: 10_001 },
      { limit: '10' },
      { offset: -1 },
      { offset: 0.5 },
      { offset: null },
      { order: 'size' },
    ]) {
      const res = await srv.call('POST', `${I}/group`, { group_field: 'title', ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body, JSON.stringify(bad)).toEqual({ error: expect.stringMatching(new RegExp(Object.keys(bad)[0]!)), error_code: 400 });
    }
    // The field is still checked first.
    const res = await srv.call('POST', `${I}/group`, { limit: 10 });
    expect(res.body).toEqual({ error: 'group_field should not be empty', error_code: 400 });
  });
});
