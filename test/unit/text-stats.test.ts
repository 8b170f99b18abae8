// The counts and charts of a text search equal a plain COUNT of the matching incidents, for a
// rare word and for words matching more than DENSE_HITS incidents (where a page walks an index
// and probes the matches, and the aggregates look the matches up by row id), alone and with a
// time range, an owner or a status condition.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicEntity, publicResource } from '../../src-shared/public/entities';
import { parseStandardQuery } from '../../src-shared/public/standard-filters';
import { riskBandSql } from '../../src-shared/resources/fields';
import { LOCAL_USER_ID } from '../../src-shared/ids';
import { normalizeTs } from '../../src-shared/time';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileStandardQuery } from '../../src-main/store/query/standard';
import { incidentStats } from '../../src-main/store/query/stats';
import { DENSE_HITS } from '../../src-main/store/statements';
import { matchDaysOf } from '../../src-main/store/query/match-days';
import { Store } from '../../src-main/store/store';
import { Runner } from '../../src-main/store/query/runner';
import { compileSearchPlan } from '../../src-main/store/query/plan';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch, type SearchFilter } from '../../src-shared/schemas/search';
import { buildIncidentDataset } from '../../bench/lib';

let dir: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-text-stats-'));
  db = openDatabase(path.join(dir, 'db.sqlite')).db;
  buildIncidentDataset(db, { incidents: 12_000, assets: 60, findings: 40, seed: 7 }, () => {});
}, 120_000);

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const R = publicResource(publicEntity('incidents')!);
const I = getResource('service_asset_findings');

/** The aggregates through the store, on a connection with nothing kept. */
function viaStore(qs: Record<string, string>) {
  const query = parseStandardQuery(qs);
  const plan = compileStandardQuery(R, query);
  return { stats: incidentStats(new Store(db), plan, 'day'), plan };
}

/** Counts per day, status and band of the incidents whose _rid is in the match, counted plainly. */
function plainly(where: string, params: unknown[]) {
  return db
    .prepare(`SELECT substr(created_at, 1, 10) AS bucket, status, ${riskBandSql('risklevel')} AS risk, COUNT(*) AS count FROM service_asset_findings t WHERE ${where} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
    .all(...params) as { bucket: string; status: string; risk: string; count: number }[];
}

const FTS = `t._rid IN (SELECT rowid FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?)`;

describe('aggregates of a text search', () => {
  it('equal a plain COUNT of the matches, for rare and frequent words, alone and combined', () => {
    const hitsOf = (word: string) => (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?`).get(`"${word}"`) as { n: number }).n;
    const frequent = ['Detected', 'Обнаружено'].filter((w) => hitsOf(w) > DENSE_HITS);
    expect(frequent.length, 'words matching more than DENSE_HITS incidents in the data set').toBeGreaterThan(0);
    const rare = ['nginx', 'пароль'].filter((w) => hitsOf(w) > 0 && hitsOf(w) <= DENSE_HITS);
    expect(rare.length).toBeGreaterThan(0);
    const day = (db.prepare(`SELECT substr(MAX(created_at), 1, 10) AS d FROM service_asset_findings`).get() as { d: string }).d;
    const since = `${new Date(Date.parse(day) - 30 * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`;
    for (const word of [...frequent, ...rare]) {
      const cases: [Record<string, string>, string, unknown[]][] = [
        [{ search: word }, '', []],
        [{ search: word, created_at: `gt,${since}` }, ' AND created_at > ?', [since.replace('Z', '').replace('T', ' ')]],
        [{ search: word, user_id: `eq,${LOCAL_USER_ID}` }, ' AND user_id = ?', [LOCAL_USER_ID]],
        [{ search: word, status: 'eq,new' }, " AND status = 'new'", []],
      ];
      for (const [qs, extra, params] of cases) {
        const { stats, plan } = viaStore(qs);
        const match = plan.fts[0]!.match;
        // created_at is stored normalised; the bound compared as the store compares it.
        const bound = params.length && extra.includes('created_at') ? [normalizeTs(since)] : params;
        const expected = plainly(`${FTS}${extra}`, [match, ...bound]);
        const label = JSON.stringify(qs);
        expect(stats.total, label).toBe(expected.reduce((n, x) => n + x.count, 0));
        expect(stats.total, label).toBeGreaterThan(0);
        expect(stats.over_time, label).toEqual(expected);
      }
    }
  });

  it('of a word matching a large share come from every incident\'s cell, read once per data version, equal to grouping the matches, and follow writes', () => {
    const day = (db.prepare(`SELECT substr(MAX(created_at), 1, 10) AS d FROM service_asset_findings`).get() as { d: string }).d;
    const daysBack = (n: number) => new Date(Date.parse(day) - n * 86_400_000).toISOString().slice(0, 10);
    const cases: (Record<string, string> | SearchFilter[])[] = [
      { search: 'Detected' },
      { search: 'Detected', created_at: `gt,${daysBack(30)}T10:30:00Z` },
      { search: 'Обнаружено', created_at: `lt,${daysBack(90)}T00:00:00Z`, status: 'eq,new' },
      // v2 ranges: both bounds in a month, and both within one day.
      [{ field: 'created_at', filter_type: 'range', value: [`${daysBack(60)}T12:00:00Z`, `${daysBack(30)}T06:00:00Z`] }],
      [{ field: 'created_at', filter_type: 'range', value: [`${daysBack(20)}T06:00:00Z`, `${daysBack(20)}T18:00:00Z`] }, { field: 'status', filter_type: 'intersection', value: ['new', 'closed'] }],
      { search: 'Обнаружено', status: 'in,new,closed' },
      { search: 'Detected', risk: 'eq,critical' },
      { search: 'Обнаружено', risk: 'in,high,critical', status: 'eq,new' },
    ];
    // The grouping in SQL on a connection of its own (its materialised matches are scratch writes of that connection).
    const other = openDatabase(path.join(dir, 'db.sqlite')).db;
    const third = openDatabase(path.join(dir, 'db.sqlite')).db;
    const check = (label: string) => {
      const store = new Store(db);
      for (const qs of cases) {
        const plan = Array.isArray(qs)
          ? compileSearchPlan(I, { ...emptySearch(-1), filters: qs, virtual_search: { value: 'Detected', strict: false } })
          : compileStandardQuery(R, parseStandardQuery(qs));
        expect(plan.textTally, JSON.stringify(qs)).toBeDefined();
        for (const bucket of ['day', 'auto'] as const) {
          const viaCells = incidentStats(store, plan, bucket);
          const grouped = incidentStats(new Store(other), { ...plan, textTally: undefined }, bucket);
          expect(viaCells, `${label} ${JSON.stringify(qs)} ${bucket}`).toEqual(grouped);
          expect(viaCells.total).toBeGreaterThan(0);
        }
        expect(matchDaysOf(store, store.version(), false), 'every incident\'s cell read and kept').toBeTruthy();
        // With the match kept by a page read before on the same connection: its row ids read from there.
        const keeping = new Store(third);
        new Runner(keeping).page(plan);
        expect(keeping.keptMatch(plan.fts[0]!.table, plan.fts[0]!.match, keeping.version()), 'the match kept').toBeDefined();
        expect(incidentStats(keeping, plan, 'day'), `${label} ${JSON.stringify(qs)} kept match`).toEqual(incidentStats(new Store(other), { ...plan, textTally: undefined }, 'day'));
      }
    };
    check('as generated');
    // A match moved to another day, status and band, then moved back: the cells follow.
    const rid = (db.prepare(`SELECT rowid AS r FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH '"Detected"' LIMIT 1`).get() as { r: number }).r;
    const was = db.prepare('SELECT status, risklevel, created_at FROM service_asset_findings WHERE _rid = ?').get(rid) as { status: string; risklevel: number; created_at: string };
    db.prepare(`UPDATE service_asset_findings SET status = 'new', risklevel = 9.5, created_at = '2019-01-01 00:00:00.000000' WHERE _rid = ?`).run(rid);
    try {
      check('after a write');
    } finally {
      db.prepare('UPDATE service_asset_findings SET status = ?, risklevel = ?, created_at = ? WHERE _rid = ?').run(was.status, was.risklevel, was.created_at, rid);
    }
    check('written back');
    other.close();
    third.close();
  });

  it('give search totals and groupings equal to a plain COUNT, for matches read by row id and matches probed from an index', () => {
    const runner = new Runner(new Store(db));
    const hitsOf = (word: string) => (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?`).get(`"${word}"`) as { n: number }).n;
    const words = ['Detected', 'Обнаружено', 'nginx', 'пароль'].filter((w) => hitsOf(w) > 0);
    expect(words.some((w) => hitsOf(w) > DENSE_HITS), 'a word matching more than DENSE_HITS').toBe(true);
    const filters: [SearchFilter[], string][] = [
      [[{ field: 'status', filter_type: 'equal', value: 'new' }], "status = 'new'"],
      [[{ field: 'risk', filter_type: 'equal', value: 'critical' }], "risk = 'critical'"],
      [[{ field: 'risklevel', filter_type: 'range', value: [9, null] }], 'risklevel >= 9'],
      [[{ field: 'user_id', filter_type: 'exists', value: null }, { field: 'status', filter_type: 'intersection', value: ['new', 'closed'] }], "user_id IS NULL AND status IN ('new', 'closed')"],
    ];
    for (const word of words) {
      for (const [f, where] of filters) {
        for (const limit of [1, -1]) {
          const plan = compileSearchPlan(I, { ...emptySearch(limit), filters: f, virtual_search: { value: word, strict: false }, ordering: [{ field: 'created_at', direction: 'desc' }] });
          const want = (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings t WHERE ${FTS} AND ${where}`).get(plan.fts[0]!.match) as { n: number }).n;
          expect(runner.page(plan).total, `${word} ${where} (limit ${limit})`).toBe(want);
        }
        const group = compileSearchPlan(I, { ...emptySearch(-1), filters: f, virtual_search: { value: word, strict: false } });
        const groups = db
          .prepare(`SELECT status AS value, COUNT(*) AS count FROM service_asset_findings t WHERE ${FTS} AND ${where} GROUP BY 1 ORDER BY count DESC, value ASC`)
          .all(group.fts[0]!.match);
        expect(runner.groupPlan(group, 'status').items, `${word} ${where} grouped`).toEqual(groups);
      }
    }
  });
});
