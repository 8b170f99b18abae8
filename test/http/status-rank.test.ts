// Incidents sorted by status in workflow order: the sort-only key `status_rank` of the v2 search
// orders by the spec's list of states (new first, invalid last), then by creation time, the same
// rows on every page whether a page is reached page by page (keyset paging) or by a jump (offset).
// `status` keeps sorting the values as text. The expected order is computed here from the
// database file, on a connection of the test's own.
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src-main/store/connection';
import { openDatabase } from '../../src-main/store/db';
import { search, startTestServer, type TestServer } from '../helpers/server';

// The spec's "States and transitions" table, in its order.
const WORKFLOW = ['new', 'assigned_customer', 'working_customer', 'feedback_required', 'verify_close', 'risk_accepted', 'closed', 'invalid'];
const I = '/cruddy/v2/service_asset_findings';
const INDEX = 'ix_service_asset_findings_status_rank_created_at';

let srv: TestServer;
let truth: Database.Database;

interface Row {
  id: string;
  status: string;
  created_at: string;
  _rid: number;
}

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  // Incidents created in one statement share created_at: only the tie-break orders them.
  const refs = await srv.call('POST', `${I}/search`, search({ limit: 1, include_fields: ['service_asset_id', 'finding_id'] }));
  const { service_asset_id, finding_id } = refs.body.items[0];
  const items = WORKFLOW.flatMap((status) => [0, 1, 2].map((i) => ({ title: `tie ${status} ${i}`, status, service_asset_id, finding_id })));
  const made = await srv.call('POST', `${I}/mass_create`, items);
  expect(made.status, made.text).toBeLessThan(300);
  truth = new Database(srv.db, { readonly: true });
}, 120_000);

afterAll(async () => {
  truth?.close();
  await srv?.stop();
});

function expected(direction: 'asc' | 'desc', statuses?: readonly string[]): string[] {
  const rows = (truth.prepare('SELECT id, status, created_at, _rid FROM service_asset_findings').all() as Row[]).filter((r) => !statuses || statuses.includes(r.status));
  const rank = (s: string) => WORKFLOW.indexOf(s);
  const sign = direction === 'asc' ? 1 : -1;
  rows.sort((a, b) => sign * (rank(a.status) - rank(b.status) || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) || a._rid - b._rid));
  return rows.map((r) => r.id);
}

async function page(direction: 'asc' | 'desc', limit: number, offset: number, over: Record<string, unknown> = {}): Promise<{ ids: string[]; total: number }> {
  const res = await srv.call('POST', `${I}/search`, search({ ordering: [{ field: 'status_rank', direction }], include_fields: ['id', 'status'], limit, offset, ...over }));
  expect(res.status, res.text).toBe(200);
  return { ids: res.body.items.map((x: { id: string }) => x.id), total: res.body.total };
}

describe('ordering by status_rank', () => {
  it('orders incidents by workflow status, then creation time, in both directions, page after page and by jumps', async () => {
    for (const direction of ['asc', 'desc'] as const) {
      const all = expected(direction);
      expect(all.length).toBeGreaterThan(40);
      const statuses = (await page(direction, all.length, 0)).ids.map((id) => (truth.prepare('SELECT status FROM service_asset_findings WHERE id = ?').pluck().get(id) as string));
      const ranks = statuses.map((s) => WORKFLOW.indexOf(s));
      expect(ranks, direction).toEqual([...ranks].sort((a, b) => (direction === 'asc' ? a - b : b - a)));
      expect(new Set(statuses).size).toBe(WORKFLOW.length);
      // Page by page: each page after the first starts from a row an earlier page noted.
      const walked: string[] = [];
      for (let offset = 0; offset < all.length; offset += 7) {
        const p = await page(direction, 7, offset);
        expect(p.total).toBe(all.length);
        walked.push(...p.ids);
      }
      expect(walked, direction).toEqual(all);
      // Jumps back and forth, then the same pages again: the same rows (a stable order).
      for (const offset of [all.length - 3, 5, 31, 30, 0, 17, all.length - 1, 31]) {
        expect((await page(direction, 9, offset)).ids, `${direction} @${offset}`).toEqual(all.slice(offset, offset + 9));
      }
    }
  });

  it('pages through a status filter and combines with other keys', async () => {
    const chosen = ['closed', 'new', 'verify_close'];
    const filters = [{ field: 'status', filter_type: 'intersection', value: chosen }];
    const all = expected('desc', chosen);
    const walked: string[] = [];
    for (let offset = 0; offset < all.length; offset += 4) walked.push(...(await page('desc', 4, offset, { filters })).ids);
    expect(walked).toEqual(all);
    // A second key after the rank: risklevel within each status.
    const res = await srv.call(
      'POST',
      `${I}/search`,
      search({ ordering: [{ field: 'status_rank', direction: 'asc' }, { field: 'risklevel', direction: 'desc' }], include_fields: ['status', 'risklevel'], limit: 10_000 }),
    );
    expect(res.status, res.text).toBe(200);
    const got = res.body.items as { status: string; risklevel: number }[];
    for (let i = 1; i < got.length; i++) {
      const [a, b] = [got[i - 1]!, got[i]!];
      const d = WORKFLOW.indexOf(a.status) - WORKFLOW.indexOf(b.status);
      expect(d <= 0 && (d < 0 || a.risklevel >= b.risklevel), `row ${i}`).toBe(true);
    }
  });

  it('leaves ordering by status as the values sorted as text', async () => {
    const res = await srv.call('POST', `${I}/search`, search({ ordering: [{ field: 'status', direction: 'asc' }], include_fields: ['status'], limit: 10_000 }));
    expect(res.status, res.text).toBe(200);
    const statuses = res.body.items.map((x: { status: string }) => x.status);
    expect(statuses).toEqual([...statuses].sort());
    expect(statuses[0]).toBe('assigned_customer');
  });

  it('answers 400 for an unknown ordering field, and for status_rank on a resource without it', async () => {
    for (const [resource, field] of [
      ['service_asset_findings', 'status_rankx'],
      ['service_asset_findings', 'no_such_field'],
      ['service_assets', 'status_rank'],
    ]) {
      const res = await srv.call('POST', `/cruddy/v2/${resource}/search`, search({ ordering: [{ field, direction: 'asc' }] }));
      expect(res.status, `${resource} ${field}`).toBe(400);
      expect(res.body.error_code).toBe(400);
      expect(res.body.error).toContain(field);
    }
    // status_rank is for ordering only: no field to return or filter on.
    const asField = await srv.call('POST', `${I}/search`, search({ include_fields: ['status_rank'] }));
    expect(asField.status).toBe(400);
    const asFilter = await srv.call('POST', `${I}/search`, search({ filters: [{ field: 'status_rank', filter_type: 'equal', value: 0 }] }));
    expect(asFilter.status).toBe(400);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await srv.call('GET', '/openapi.json')).body;
    const op = Object.values(doc.paths as Record<string, Record<string, { operationId?: string; description?: string }>>)
      .flatMap((p) => Object.values(p))
      .find((o) => o.operationId === 'service_asset_findings.search');
    expect(op?.description).toContain('`status_rank`');
    expect(op?.description).toContain(WORKFLOW.join(', '));
    const other = Object.values(doc.paths as Record<string, Record<string, { operationId?: string; description?: string }>>)
      .flatMap((p) => Object.values(p))
      .find((o) => o.operationId === 'service_assets.search');
    expect(other?.description).not.toContain('status_rank');
  });

  it('reads the pages from an index on the rank and creation time, no sort of every match', () => {
    const rank = `CASE t.status ${WORKFLOW.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} ELSE ${WORKFLOW.length} END`;
    for (const dir of ['ASC', 'DESC']) {
      const plan = (truth.prepare(`EXPLAIN QUERY PLAN SELECT t._rid FROM service_asset_findings t ORDER BY (${rank}) ${dir}, t.created_at ${dir}, t._rid ${dir} LIMIT 50`).all() as { detail: string }[])
        .map((r) => r.detail)
        .join(' | ');
      expect(plan, dir).toContain(`USING COVERING INDEX ${INDEX}`);
      expect(plan, dir).not.toContain('TEMP B-TREE');
    }
  });
});

describe('a database made before the rank index', () => {
  it('gets the index when the server opens it, and sorts by status_rank', async () => {
    const file = path.join(srv.dir, 'older.sqlite');
    const { db } = openDatabase(file);
    db.exec(`DROP INDEX ${INDEX}`);
    db.pragma('user_version = 7');
    db.close();
    const older = await startTestServer({ db: file, seed: 'demo' });
    try {
      const check = new Database(file, { readonly: true });
      const version = check.pragma('user_version', { simple: true }) as number;
      const sql = check.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck().get(INDEX) as string | undefined;
      check.close();
      expect(version).toBe(SCHEMA_VERSION);
      expect(sql).toMatch(/CASE status WHEN 'new' THEN 0 .* ELSE 8 END\), "created_at"\)$/);
      const res = await older.call('POST', `${I}/search`, search({ ordering: [{ field: 'status_rank', direction: 'asc' }], include_fields: ['status'], limit: 10_000 }));
      expect(res.status, res.text).toBe(200);
      const ranks = res.body.items.map((x: { status: string }) => WORKFLOW.indexOf(x.status));
      expect(ranks.length).toBeGreaterThan(0);
      expect(ranks).toEqual([...ranks].sort((a: number, b: number) => a - b));
    } finally {
      await older.stop();
    }
  }, 120_000);
});
