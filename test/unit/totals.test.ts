// Totals paid once: the data version a kept value is checked against (every write, by this
// connection or another, moves it; scratch tables do not), the totals kept per matched set, and
// the kept per-day incident counts behind the console's chips and charts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseStandardQuery } from '../../src-shared/public/standard-filters';
import { publicEntity, publicResource } from '../../src-shared/public/entities';
import { INCIDENT_STATUSES, riskBandSql } from '../../src-shared/resources/fields';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { compileStandardQuery } from '../../src-main/store/query/standard';
import { VersionedCache } from '../../src-main/store/data-version';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileSearchPlan, matchKey } from '../../src-main/store/query/plan';
import { incidentStats } from '../../src-main/store/query/stats';
import { seedDemo } from '../../src-main/store/seed';
import { Store } from '../../src-main/store/store';
import { Runner } from '../../src-main/store/query/runner';

const I = getResource('service_asset_findings');
const A = getResource('service_assets');
const F = getResource('findings');
const PUBLIC_INCIDENTS = publicResource(publicEntity('incidents')!);

let dir: string;
let file: string;
let db: Db;
let store: Store;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-totals-'));
  file = path.join(dir, 'db.sqlite');
  db = openDatabase(file).db;
  store = new Store(db);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Statements this connection prepares from now on, by SQL text (to see whether a COUNT ran). */
function watchSql(d: Db): string[] {
  const seen: string[] = [];
  const prepare = d.prepare.bind(d);
  (d as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
    seen.push(sql);
    const st = prepare(sql) as { all: (...a: unknown[]) => unknown; get: (...a: unknown[]) => unknown; run: (...a: unknown[]) => unknown };
    return new Proxy(st, {
      get(target, key, recv) {
        const v = Reflect.get(target, key, recv);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (key === 'all' || key === 'get' || key === 'run' || key === 'iterate') seen.push(`run: ${sql}`);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  };
  return seen;
}

function seedIncidents(n: number): void {
  const asset = store.create(A, { name: 'srv-db-01', type: 'Host', location: 'Москва' });
  const finding = store.create(F, { title: 'Уязвимость', type: 'vulnerability' });
  store.tx(() => {
    for (let i = 0; i < n; i++) {
      store.create(I, {
        title: `Инцидент ${i} на srv-db-01`,
        status: INCIDENT_STATUSES[i % INCIDENT_STATUSES.length],
        risklevel: (i * 37) % 101 / 10,
        service_asset_id: asset.id as string,
        finding_id: finding.id as string,
      }, { at: new Date(Date.UTC(2026, 0, 1) + i * 7 * 3_600_000).toISOString().replace('Z', '000Z') });
    }
  });
}

describe('data version', () => {
  it('moves on every write of this connection and of another, not on scratch tables, and is null inside a transaction', () => {
    seedIncidents(3);
    const v0 = store.version();
    expect(v0).not.toBeNull();
    expect(store.version()).toBe(v0);
    // A search with a full-text match writes its scratch tables only.
    new Runner(store).search(I, { ...emptySearch(1, 0), virtual_search: { value: 'srv-db', strict: false } });
    new Runner(store).search(I, { ...emptySearch(1, 0), filters: [{ field: 'title', filter_type: 'substr', value: 'Инцидент' }] });
    expect(store.version()).toBe(v0);
    store.update(I, { id: new Runner(store).search(I, emptySearch(1, 0)).items[0]!.id as string, status: 'closed' });
    const v1 = store.version();
    expect(v1).not.toBe(v0);
    const other = openDatabase(file).db;
    other.prepare(`UPDATE service_asset_findings SET risklevel = 1 WHERE _rid = 1`).run();
    other.close();
    const v2 = store.version();
    expect(v2).not.toBe(v1);
    store.tx(() => expect(store.version()).toBeNull());
  });

  it('VersionedCache answers a value only for the version it was kept at, and never inside a transaction', () => {
    const c = new VersionedCache<number>(2);
    c.set('a', '1.0', 5);
    expect(c.get('a', '1.0')).toBe(5);
    expect(c.get('a', '1.1')).toBeUndefined();
    expect(c.get('a', '1.0')).toBeUndefined();
    c.set('b', null, 1);
    expect(c.get('b', null)).toBeUndefined();
    c.set('x', 'v', 1);
    c.set('y', 'v', 2);
    c.get('x', 'v');
    c.set('z', 'v', 3);
    expect(c.get('y', 'v')).toBeUndefined();
    expect(c.get('x', 'v')).toBe(1);
  });
});

describe('totals', () => {
  const req = (over: Partial<ReturnType<typeof emptySearch>> = {}) => ({ ...emptySearch(2, 0), filters: [{ field: 'status', filter_type: 'equal' as const, value: 'new' }], ...over });
  const trueCount = () => (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE status = 'new'`).get() as { n: number }).n;

  it('counts a matched set once while the data is unchanged: later pages and refreshes reuse the total', () => {
    seedIncidents(80);
    const seen = watchSql(db);
    // A condition no kept count answers (those are counted without a COUNT over the table).
    const req = (over: Partial<ReturnType<typeof emptySearch>> = {}) => ({ ...emptySearch(2, 0), filters: [{ field: 'status', filter_type: 'equal' as const, value: 'new' }, { field: 'title', filter_type: 'substr' as const, value: 'srv-db' }], ...over });
    const first = new Runner(store).search(I, req());
    const counts = () => seen.filter((s) => s.startsWith('run: SELECT COUNT(*) AS n FROM "service_asset_findings" t')).length;
    expect(counts()).toBe(1);
    expect(first.total).toBe(trueCount());
    expect(new Runner(store).search(I, req({ offset: 2 })).total).toBe(first.total);
    expect(new Runner(store).search(I, req({ offset: 4, include_fields: ['id'] })).total).toBe(first.total);
    expect(counts()).toBe(1);
    expect(store.totals.get(matchKey(compileSearchPlan(I, req())), store.version())).toBe(first.total);
  });

  it('is never stale: each write, here or through another connection, is seen by the next total', () => {
    seedIncidents(40);
    expect(new Runner(store).search(I, req()).total).toBe(trueCount());
    const some = new Runner(store).search(I, { ...emptySearch(3, 0), filters: [{ field: 'status', filter_type: 'equal', value: 'closed' }] }).items;
    store.update(I, { id: some[0]!.id as string, status: 'new' });
    expect(new Runner(store).search(I, req()).total).toBe(trueCount());
    store.massUpdateField(I, [some[1]!.id as string], 'status', 'new');
    expect(new Runner(store).search(I, req()).total).toBe(trueCount());
    const other = openDatabase(file).db;
    other.prepare(`UPDATE service_asset_findings SET status = 'new' WHERE id = ?`).run(some[2]!.id);
    other.close();
    expect(new Runner(store).search(I, req()).total).toBe(trueCount());
    new Runner(store).deleteAll(getResource('service_asset_finding_status_changes'));
    new Runner(store).deleteAll(I, [{ field: 'status', filter_type: 'equal', value: 'new' }]);
    expect(new Runner(store).search(I, req()).total).toBe(0);
    expect(trueCount()).toBe(0);
  });

  it('does not keep a total read inside a transaction that is rolled back', () => {
    seedIncidents(20);
    const before = trueCount();
    try {
      store.tx(() => {
        const asset = new Runner(store).search(A, emptySearch(1, 0)).items[0]!;
        const finding = new Runner(store).search(F, emptySearch(1, 0)).items[0]!;
        for (let i = 0; i < 5; i++) store.create(I, { status: 'new', service_asset_id: asset.id as string, finding_id: finding.id as string });
        expect(new Runner(store).search(I, req()).total).toBe(before + 5);
        throw new Error('roll back');
      });
    } catch {
      // rolled back
    }
    expect(new Runner(store).search(I, req()).total).toBe(before);
  });
});

describe('kept per-day incident counts', () => {
  const groupNow = () =>
    db
      .prepare(`SELECT substr(created_at, 1, 10) AS day, status, ${riskBandSql('risklevel')} AS risk, COUNT(*) AS n FROM service_asset_findings GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
      .all();
  const kept = () => db.prepare(`SELECT day, status, risk, n FROM incident_day_counts ORDER BY 1, 2, 3`).all();

  it('equal the incidents grouped by day, status and band after inserts, updates and deletes, here and from another connection', () => {
    seedDemo(store);
    expect(kept()).toEqual(groupNow());
    const ids = (db.prepare(`SELECT id FROM service_asset_findings ORDER BY _rid LIMIT 30`).all() as { id: string }[]).map((r) => r.id);
    ids.slice(0, 10).forEach((id, i) => store.update(I, { id, status: INCIDENT_STATUSES[(i * 3) % INCIDENT_STATUSES.length] }));
    ids.slice(10, 20).forEach((id, i) => store.update(I, { id, risklevel: (i * 1.3) % 10 }));
    db.prepare(`UPDATE service_asset_findings SET created_at = '2020-02-02T10:00:00.000000Z' WHERE id = ?`).run(ids[20]);
    const other = openDatabase(file).db;
    other.prepare(`DELETE FROM service_asset_finding_status_changes WHERE service_asset_finding_id IN (SELECT id FROM service_asset_findings WHERE id = ? OR id = ?)`).run(ids[21], ids[22]);
    other.prepare(`DELETE FROM occurrences WHERE service_asset_finding_id IN (?, ?)`).run(ids[21], ids[22]);
    other.prepare(`DELETE FROM messages WHERE service_asset_finding_id IN (?, ?)`).run(ids[21], ids[22]);
    other.prepare(`DELETE FROM custom_field_values WHERE service_asset_finding_id IN (?, ?)`).run(ids[21], ids[22]);
    other.prepare(`DELETE FROM service_asset_findings WHERE id IN (?, ?)`).run(ids[21], ids[22]);
    other.close();
    expect(kept()).toEqual(groupNow());
    expect((db.prepare(`SELECT COUNT(*) AS n FROM incident_day_counts WHERE n <= 0`).get() as { n: number }).n).toBe(0);
  });

  it('give the same stats for a creation-time range, statuses and owners as grouping the matches, edge days included', () => {
    seedIncidents(400);
    const days = (db.prepare(`SELECT DISTINCT substr(created_at, 1, 10) AS d FROM service_asset_findings ORDER BY 1`).all() as { d: string }[]).map((r) => r.d);
    const stamps = (db.prepare(`SELECT created_at AS c FROM service_asset_findings ORDER BY 1`).all() as { c: string }[]).map((r) => r.c);
    const bounds = [stamps[0]!, stamps[7]!, `${days[3]}T12:00:00Z`, `${days[10]}T00:00:00Z`, stamps[200]!, `${days[days.length - 1]}T23:00:00Z`, '2030-01-01T00:00:00Z'];
    const queries = [''];
    for (const a of bounds) {
      queries.push(`created_at=gt,${a}`, `created_at=lt,${a}`);
      for (const b of bounds) queries.push(`created_at=gt,${a}&created_at=lt,${b}`);
    }
    queries.push('status=eq,new', 'status=in,new,assigned_customer', `status=eq,new&created_at=gt,${bounds[2]}`, 'user_id=isnull&status=eq,new');
    for (const qs of queries) {
      const q = parseStandardQuery(Object.fromEntries(new URLSearchParams(qs).entries()) as Record<string, string>);
      const multi = new URLSearchParams(qs).getAll('created_at');
      if (multi.length > 1) q.filters = multi.map((v) => ({ field: 'created_at', op: v.startsWith('gt') ? 'gt' : 'lt', values: [v.slice(3)] }));
      const plan = compileStandardQuery(PUBLIC_INCIDENTS, q);
      expect(plan.tally, qs).toBeDefined();
      for (const bucket of ['day', 'week', 'month', 'auto'] as const) {
        const viaKept = incidentStats(store, plan, bucket);
        const viaRows = incidentStats(store, { ...plan, tally: undefined }, bucket);
        expect(viaKept, `${qs} ${bucket}`).toEqual(viaRows);
      }
    }
  });

  it('is used only for a slice of the kept counts (statuses, owner or group, creation-time bounds) alone', () => {
    const q = (qs: string) => parseStandardQuery(Object.fromEntries(new URLSearchParams(qs).entries()) as Record<string, string>);
    const tally = (qs: string) => compileStandardQuery(PUBLIC_INCIDENTS, q(qs)).tally;
    expect(tally('')).toEqual({ statuses: null });
    expect(tally('created_at=gt,2026-01-01T00:00:00Z')).toEqual({ statuses: null, lower: { ts: '2026-01-01T00:00:00.000000Z', strict: true } });
    expect(tally('status=eq,new&user_id=isnull')).toEqual({ statuses: ['new'], key: { column: 'user_id', values: [null] } });
    expect(tally('search=abc')).toBeUndefined();
    expect(tally('status=noteq,new')).toBeUndefined();
    expect(tally('created_at=eq,2026-01-01T00:00:00Z')).toBeUndefined();
    expect(tally('updated_at=gt,2026-01-01T00:00:00Z')).toBeUndefined();
    expect(tally('user_id=isnull&group_id=isnull')).toBeUndefined();
  });
});
