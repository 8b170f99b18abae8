// A full-text match is materialised once per data version and shared by the reads of one view
// (its page and total, its aggregates, its groupings): never stale after a write of this
// connection or another, never left behind by a rolled-back read, and right when more words are
// searched than the connection keeps.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { publicEntity, publicResource } from '../../src-shared/public/entities';
import { parseStandardQuery } from '../../src-shared/public/standard-filters';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileSearchPlan } from '../../src-main/store/query/plan';
import { Runner } from '../../src-main/store/query/runner';
import { compileStandardQuery } from '../../src-main/store/query/standard';
import { KEPT_MATCHES } from '../../src-main/store/statements';
import { Store } from '../../src-main/store/store';
import { buildIncidentDataset } from '../../bench/lib';

let dir: string;
let file: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-kept-matches-'));
  file = path.join(dir, 'db.sqlite');
  db = openDatabase(file).db;
  buildIncidentDataset(db, { incidents: 4_000, assets: 40, findings: 30, seed: 11 }, () => {});
}, 120_000);

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const I = getResource('service_asset_findings');
const PUBLIC = publicResource(publicEntity('incidents')!);
const WORDS = ['Detected', 'Обнаружено', 'nginx', 'пароль', 'maintenance', 'персональные'];

const searchPlan = (word: string, filters: unknown[] = [], limit = 1) =>
  compileSearchPlan(I, { ...emptySearch(limit), filters: filters as never, virtual_search: { value: word, strict: false }, ordering: [{ field: 'created_at', direction: 'desc' }] });
const statsPlan = (word: string) => compileStandardQuery(PUBLIC, parseStandardQuery({ search: word }));
const plainCount = (word: string, extra = '1') =>
  (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings t WHERE t._rid IN (SELECT rowid FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?) AND ${extra}`).get(`"${word}"`) as { n: number }).n;

/** How many times a match was materialised (rows inserted into a match table) during fn. */
function materialisations(store: Store, fn: () => void): number {
  const spy = vi.spyOn(store, 'scratch');
  try {
    fn();
    return spy.mock.calls.filter(([sql]) => /^INSERT INTO temp\.rc_(match|hits)_\d+ /.test(sql)).length;
  } finally {
    spy.mockRestore();
  }
}

describe('a full-text match kept per data version', () => {
  it('is materialised once for the page, the total, the aggregates and a grouping of one view', () => {
    const store = new Store(db);
    const runner = new Runner(store);
    const word = 'Detected';
    let total = 0;
    const n = materialisations(store, () => {
      total = runner.page(searchPlan(word)).total;
      expect(runner.page(searchPlan(word, [{ field: 'status', filter_type: 'equal', value: 'new' }])).total).toBe(plainCount(word, `status = 'new'`));
      expect(runner.stats(statsPlan(word), 'auto').total).toBe(total);
      const groups = runner.groupPlan(searchPlan(word, [], -1), 'status').items;
      expect(groups.reduce((a, g) => a + g.count, 0)).toBe(total);
    });
    expect(total).toBe(plainCount(word));
    expect(total).toBeGreaterThan(0);
    expect(n, 'materialised once').toBe(1);
  });

  it('sees every write, of this connection or another, in the next page, total and aggregates', () => {
    const store = new Store(db);
    const runner = new Runner(store);
    const word = 'Обнаружено';
    const before = runner.page(searchPlan(word)).total;
    expect(before).toBe(plainCount(word));
    const other = new Database(file);
    try {
      // Another connection: a new incident with the word, and one losing it.
      const src = other.prepare(`SELECT id FROM service_asset_findings WHERE _rid IN (SELECT rowid FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?) LIMIT 1`).get(`"${word}"`) as { id: string };
      other.prepare(`UPDATE service_asset_findings SET title = 'renamed', description = 'none', synopsis = NULL, analysis_output = NULL, solution = NULL, mitigation = NULL, risk_impact = NULL WHERE id = ?`).run(src.id);
      other
        .prepare(`INSERT INTO service_asset_findings (id, title, status, risklevel, created_at, updated_at) VALUES (?, ?, 'new', 9.5, '2026-10-30T10:00:00.000000Z', '2026-10-30T10:00:00.000000Z')`)
        .run('00000000-0000-4000-8000-00000000abcd', `${word} again`);
    } finally {
      other.close();
    }
    const after = plainCount(word);
    expect(runner.page(searchPlan(word)).total).toBe(after);
    expect(runner.stats(statsPlan(word), 'auto').total).toBe(after);
    // This connection's own write.
    store.create(I, { title: `${word} here`, status: 'closed', risklevel: 1 });
    expect(runner.page(searchPlan(word)).total).toBe(after + 1);
    expect(runner.stats(statsPlan(word), 'day').total).toBe(after + 1);
    expect(runner.page(searchPlan(word, [{ field: 'status', filter_type: 'equal', value: 'closed' }])).total).toBe(plainCount(word, `status = 'closed'`));
  });

  it('is not kept by a read transaction that is rolled back', () => {
    const store = new Store(db);
    const runner = new Runner(store);
    const word = 'nginx';
    const version = store.version();
    store.db.exec('BEGIN');
    expect(runner.page(searchPlan(word), { version }).total).toBe(plainCount(word));
    store.db.exec('ROLLBACK');
    const n = materialisations(store, () => expect(runner.page(searchPlan(word), { version: store.version() }).total).toBe(plainCount(word)));
    expect(n, 'materialised again after the rollback').toBe(1);
  });

  it('answers right when more words are searched than the connection keeps', () => {
    const store = new Store(db);
    const runner = new Runner(store);
    expect(WORDS.length).toBeGreaterThan(KEPT_MATCHES);
    for (let round = 0; round < 2; round++) {
      for (const word of WORDS) {
        expect(runner.page(searchPlan(word)).total, word).toBe(plainCount(word));
        expect(runner.stats(statsPlan(word), 'month').total, word).toBe(plainCount(word));
      }
    }
  });
});
