// Whether a condition on the stored band (`risk`) may be read from the kept counts (which are by
// risklevel's band): only while no incident's stored band differs from its risklevel's band,
// known by one probe of a partial index that SQLite keeps in step with every write, whichever
// connection makes it.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { openDatabase, type Db } from '../../src-main/store/db';
import { APART_PROBE, keptSliceHolds, RISK_APART_INDEX } from '../../src-main/store/query/days';
import { Store } from '../../src-main/store/store';

let dir: string;
let file: string;
let db: Db;
const I = getResource('service_asset_findings');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-risk-apart-'));
  file = path.join(dir, 'db.sqlite');
  db = openDatabase(file).db;
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the stored band apart from risklevel', () => {
  it('is probed through its partial index', () => {
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${APART_PROBE}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toContain(RISK_APART_INDEX);
  });

  it('lets a stored-band slice be read from the kept counts only while every band follows risklevel', () => {
    const store = new Store(db);
    const slice = { statuses: null, risks: ['critical'], storedRisk: true };
    const holds = () => keptSliceHolds(store, slice);
    expect(holds(), 'no incident').toBe(true);
    const a = store.create(I, { title: 'follows', risklevel: 9.5 });
    const b = store.create(I, { title: 'given apart', risklevel: 9.5, risk: 'low' });
    expect(holds(), 'a band given apart').toBe(false);
    expect(keptSliceHolds(store, { statuses: null, risks: ['critical'] }), 'a risklevel bound holds whatever the stored band').toBe(true);
    store.update(I, { id: b.id as string, risklevel: 2 });
    expect(holds(), 'risklevel changed: the band follows it again').toBe(true);
    // Another connection (another process, an import) giving a band apart, then removing the row.
    const other = new Database(file);
    try {
      other.prepare(`UPDATE service_asset_findings SET risk = 'none' WHERE id = ?`).run(a.id);
      expect(holds(), 'apart, written by another connection').toBe(false);
      other.prepare(`DELETE FROM service_asset_findings WHERE id = ?`).run(a.id);
    } finally {
      other.close();
    }
    expect(holds(), 'the row apart deleted').toBe(true);
    store.create(I, { title: 'no band', risklevel: 0, risk: null });
    expect(holds(), 'no stored band at all is apart from "none"').toBe(false);
  });
});
