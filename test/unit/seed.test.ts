import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src-main/store/db';
import { seedDemo, type SeedSummary } from '../../src-main/store/seed';
import { q } from '../../src-main/store/sql';
import { Store } from '../../src-main/store/store';
import { FINAL_STATUSES, INCIDENT_STATUSES, OPEN_STATUSES, riskBand, type IncidentStatus } from '../../src-shared/resources/fields';
import { getResource, linkTables, RESOURCES } from '../../src-shared/resources/index';
import { OCCURRENCE_EVENT_TYPES } from '../../src-shared/resources/occurrences';
import { createSchemaOf } from '../../src-shared/schemas/resource';
import { emptySearch } from '../../src-shared/schemas/search';
import { normalizeTs } from '../../src-shared/time';
import { Runner } from '../../src-main/store/query/runner';

const ANCHOR = '2026-11-01T00:00:00.000000Z';
const TS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

type Row = Record<string, unknown>;

function seeded(scale?: number): { db: Db; store: Store; summary: SeedSummary } {
  const { db } = openDatabase(':memory:');
  const store = new Store(db);
  const summary = seedDemo(store, scale === undefined ? undefined : { scale });
  return { db, store, summary };
}

const all = (db: Db, sql: string, ...params: unknown[]): Row[] => db.prepare(sql).all(...params) as Row[];
const count = (db: Db, table: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM ${q(table)}`).get() as { n: number }).n;

/** Every row of every table the registry declares, in a stable order, all columns. */
function dump(db: Db): Record<string, Row[]> {
  const out: Record<string, Row[]> = {};
  for (const r of RESOURCES) out[r.table] = all(db, `SELECT * FROM ${q(r.table)} ORDER BY id`);
  for (const l of linkTables()) out[l.table] = all(db, `SELECT * FROM ${q(l.table)} ORDER BY ${q(l.a.col)}, ${q(l.b.col)}`);
  out.settings = all(db, `SELECT * FROM settings ORDER BY key`);
  return out;
}

describe('seedDemo', () => {
  let a: ReturnType<typeof seeded>;
  let b: ReturnType<typeof seeded>;

  beforeAll(() => {
    a = seeded();
    b = seeded();
  });

  it('gives every resource at least one row and reports the counts', () => {
    expect(Object.keys(a.summary).sort()).toEqual(RESOURCES.map((r) => r.name).sort());
    for (const r of RESOURCES) {
      const n = count(a.db, r.table);
      expect(n, r.name).toBeGreaterThan(0);
      expect(a.summary[r.name], r.name).toBe(n);
    }
  });

  it('has the documented sizes at scale 1', () => {
    expect(a.summary.service_assets).toBe(60);
    expect(a.summary.findings).toBe(40);
    expect(a.summary.service_asset_findings).toBe(400);
    expect(a.summary.occurrences).toBeGreaterThan(600);
    expect(a.summary.occurrences).toBeLessThan(1000);
  });

  it('is deterministic: two databases hold identical rows, ids and timestamps included', () => {
    const da = dump(a.db);
    const db2 = dump(b.db);
    expect(Object.keys(da).sort()).toEqual(Object.keys(db2).sort());
    for (const table of Object.keys(da)) {
      expect(da[table]!.length, table).toBe(db2[table]!.length);
      expect(da[table], table).toEqual(db2[table]);
    }
    expect(b.summary).toEqual(a.summary);
  });

  it('populates every many-to-many link table', () => {
    for (const l of linkTables()) expect(count(a.db, l.table), l.table).toBeGreaterThan(0);
  });

  it('writes well-formed timestamps, all before the anchor instant', () => {
    for (const r of RESOURCES) {
      const tsFields = ['created_at', 'updated_at', ...Object.entries(r.fields).filter(([, d]) => d.kind === 'timestamp').map(([n]) => n)];
      for (const row of all(a.db, `SELECT ${tsFields.map(q).join(', ')} FROM ${q(r.table)}`)) {
        for (const f of tsFields) {
          const v = row[f];
          if (v === null) continue;
          expect(v, `${r.name}.${f}`).toMatch(TS_RE);
          expect(normalizeTs(v as string), `${r.name}.${f}`).toBe(v);
          // Revisit dates of accepted risks are planned reviews, after the anchor by design.
          if (f !== 'revisit_at') expect((v as string) < ANCHOR, `${r.name}.${f} ${v}`).toBe(true);
        }
        expect((row.created_at as string) <= (row.updated_at as string), `${r.name} created_at <= updated_at`).toBe(true);
      }
    }
  });

  it('stores only values the API itself would accept on create', () => {
    for (const r of RESOURCES) {
      const schema = createSchemaOf(r);
      for (const { id } of all(a.db, `SELECT id FROM ${q(r.table)}`)) {
        const rec = a.store.find(r, id as string)!;
        const res = schema.safeParse(rec);
        expect(res.success ? null : res.error.issues, `${r.name} ${id as string}`).toBeNull();
      }
    }
  });

  it('links every incident to an existing asset and finding type', () => {
    const bad = all(
      a.db,
      `SELECT i.id FROM service_asset_findings i
       LEFT JOIN service_assets s ON s.id = i.service_asset_id
       LEFT JOIN findings f ON f.id = i.finding_id
       WHERE i.service_asset_id IS NULL OR i.finding_id IS NULL OR s.id IS NULL OR f.id IS NULL`,
    );
    expect(bad).toEqual([]);
  });

  it('derives risk from risklevel (one decimal, 0..10)', () => {
    const rows = all(a.db, `SELECT risklevel, risk FROM service_asset_findings`);
    for (const row of rows) {
      const level = row.risklevel as number;
      expect(level).toBeGreaterThanOrEqual(0);
      expect(level).toBeLessThanOrEqual(10);
      expect(Math.round(level * 10) / 10).toBe(level);
      expect(row.risk).toBe(riskBand(level));
    }
    expect(new Set(rows.map((r) => r.risk)).size).toBeGreaterThanOrEqual(4);
  });

  it('covers every incident status and every occurrence event type', () => {
    const statuses = all(a.db, `SELECT DISTINCT status FROM service_asset_findings`).map((r) => r.status);
    expect([...statuses].sort()).toEqual([...INCIDENT_STATUSES].sort());
    const types = all(a.db, `SELECT DISTINCT event_type FROM occurrences`).map((r) => r.event_type);
    expect([...types].sort()).toEqual([...OCCURRENCE_EVENT_TYPES].sort());
  });

  it('numbers incidents 1..N in creation order', () => {
    const rows = all(a.db, `SELECT display_id FROM service_asset_findings ORDER BY created_at, display_id`);
    expect(rows.map((r) => r.display_id)).toEqual(rows.map((_, i) => i + 1));
  });

  it('keeps each incident consistent with its status history', () => {
    const incidents = all(a.db, `SELECT * FROM service_asset_findings`);
    const changes = all(a.db, `SELECT * FROM service_asset_finding_status_changes ORDER BY service_asset_finding_id, created_at`);
    const byIncident = new Map<string, Row[]>();
    for (const c of changes) {
      const list = byIncident.get(c.service_asset_finding_id as string) ?? [];
      list.push(c);
      byIncident.set(c.service_asset_finding_id as string, list);
    }
    for (const inc of incidents) {
      const h = byIncident.get(inc.id as string) ?? [];
      expect(h.length, `history of ${inc.display_id}`).toBeGreaterThan(0);
      expect(h[0]!.status).toBe('new');
      expect(h[0]!.previous_status).toBeNull();
      expect(h[0]!.created_at).toBe(inc.created_at);
      for (let j = 1; j < h.length; j++) {
        expect(h[j]!.previous_status).toBe(h[j - 1]!.status);
        expect((h[j]!.created_at as string) > (h[j - 1]!.created_at as string)).toBe(true);
      }
      const last = h[h.length - 1]!;
      expect(inc.status).toBe(last.status);
      expect(inc.acknowledged_at).toBe(h.length > 1 ? h[1]!.created_at : null);
      const reopenings = h.filter(
        (c, j) => j > 0 && FINAL_STATUSES.includes(h[j - 1]!.status as IncidentStatus) && OPEN_STATUSES.includes(c.status as IncidentStatus),
      );
      expect(inc.c_reopened_count).toBe(reopenings.length);
      expect(inc.reopened_at).toBe(reopenings.length ? reopenings[reopenings.length - 1]!.created_at : null);
      expect((inc.updated_at as string) >= (last.created_at as string)).toBe(true);
    }
    // Reopened incidents exist, so the reopening path is exercised.
    expect(incidents.some((i) => (i.c_reopened_count as number) > 0)).toBe(true);
  });

  it('keeps occurrences consistent with their incidents', () => {
    const rows = all(
      a.db,
      `SELECT i.id, i.c_occurrence_count AS declared, i.last_occurrence_id AS last_id, i.created_at,
              (SELECT COUNT(*) FROM occurrences o WHERE o.service_asset_finding_id = i.id) AS actual,
              (SELECT o.id FROM occurrences o WHERE o.service_asset_finding_id = i.id ORDER BY o.created_at DESC, o._rid DESC LIMIT 1) AS newest,
              (SELECT MIN(o.created_at) FROM occurrences o WHERE o.service_asset_finding_id = i.id) AS first_at
       FROM service_asset_findings i`,
    );
    for (const r of rows) {
      expect(r.actual).toBeGreaterThan(0);
      expect(r.declared).toBe(r.actual);
      expect(r.last_id).toBe(r.newest);
      expect(r.first_at).toBe(r.created_at);
    }
    // Each occurrence points at a status change of its own incident, in force at the time.
    const wrong = all(
      a.db,
      `SELECT o.id FROM occurrences o JOIN service_asset_finding_status_changes c ON c.id = o.service_asset_finding_status_change_id
       WHERE c.service_asset_finding_id <> o.service_asset_finding_id OR c.created_at > o.created_at`,
    );
    expect(wrong).toEqual([]);
    expect(count(a.db, 'occurrences')).toBe(
      (a.db.prepare(`SELECT COUNT(*) AS n FROM occurrences WHERE service_asset_finding_status_change_id IS NOT NULL`).get() as { n: number }).n,
    );
  });

  it('skews incidents towards recent days', () => {
    const rows = all(a.db, `SELECT created_at FROM service_asset_findings`);
    const recent = rows.filter((r) => (r.created_at as string) >= '2026-10-02').length;
    const old = rows.filter((r) => (r.created_at as string) < '2026-08-03').length;
    expect(recent).toBeGreaterThan(old);
    expect(rows.every((r) => (r.created_at as string) >= '2026-07-03')).toBe(true);
  });

  it('builds trees for responsible groups and software groups', () => {
    for (const [table, parent] of [
      ['responsible_groups', 'parent_group'],
      ['software_groups', 'parent_id'],
    ] as const) {
      const rows = all(a.db, `SELECT id, ${parent} AS parent FROM ${table}`);
      const ids = new Set(rows.map((r) => r.id));
      expect(rows.some((r) => r.parent === null), table).toBe(true);
      expect(rows.some((r) => r.parent !== null), table).toBe(true);
      for (const r of rows) if (r.parent !== null) expect(ids.has(r.parent), table).toBe(true);
    }
  });

  it('stores valid correlation content and active-action parameters', () => {
    const found = new Runner(a.store).search(getResource('engine_go_rules'), { ...emptySearch(), limit: 100 });
    expect(found.total).toBeGreaterThan(0);
    for (const rule of found.items) {
      const fd = rule.frontend_data as { alert?: { template?: string }; grouper?: { grouped_by?: unknown[] }; conditions?: unknown[] };
      expect(fd.alert?.template, rule.name as string).toMatch(/\{\{ \.\w+/);
      expect(fd.grouper?.grouped_by?.length).toBeGreaterThan(0);
      expect(fd.conditions?.length).toBeGreaterThan(0);
      expect(rule.lua).toMatch(/function on_logline/);
    }
    for (const row of all(a.db, `SELECT params, user_id FROM engine_go_rules_integration_actions`)) {
      const params = JSON.parse(row.params as string) as { parameter_name: string; parameter_value: string; from_logline: boolean; strategy: string }[];
      expect(params.length).toBeGreaterThan(0);
      for (const p of params) {
        expect(typeof p.parameter_name).toBe('string');
        expect(typeof p.parameter_value).toBe('string');
        expect(typeof p.from_logline).toBe('boolean');
        expect(['first', 'last']).toContain(p.strategy);
      }
      expect(row.user_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    for (const row of all(a.db, `SELECT port FROM input_sources`)) expect(String(row.port)).toMatch(/^\d{4}$/);
    expect(count(a.db, 'agents')).toBeGreaterThan((a.db.prepare(`SELECT COUNT(*) AS n FROM agents WHERE pending_config IS NULL`).get() as { n: number }).n);
  });

  it('scales the big collections and still covers every resource', () => {
    const small = seeded(0.1);
    for (const r of RESOURCES) expect(small.summary[r.name], r.name).toBeGreaterThan(0);
    for (const l of linkTables()) expect(count(small.db, l.table), l.table).toBeGreaterThan(0);
    expect(small.summary.service_asset_findings).toBeLessThan(a.summary.service_asset_findings!);
    expect(small.summary.service_assets).toBeLessThan(a.summary.service_assets!);
    const statuses = all(small.db, `SELECT DISTINCT status FROM service_asset_findings`);
    expect(statuses.length).toBe(INCIDENT_STATUSES.length);
  });
});
