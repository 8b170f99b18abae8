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
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileStandardQuery } from '../../src-main/store/query/standard';
import { createdRange, incidentStats } from '../../src-main/store/query/stats';
import { DENSE_HITS } from '../../src-main/store/statements';
import { Store } from '../../src-main/store/store';
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

/** The aggregates through the store, on a connection with nothing kept. */
function viaStore(qs: Record<string, string>) {
  const query = parseStandardQuery(qs);
  const plan = compileStandardQuery(R, query);
  return { stats: incidentStats(new Store(db), plan, 'day', createdRange(query)), plan };
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
        const bound = params.length && extra.includes('created_at') ? [createdRange(parseStandardQuery({ created_at: qs.created_at! }))!.after] : params;
        const expected = plainly(`${FTS}${extra}`, [match, ...bound]);
        const label = JSON.stringify(qs);
        expect(stats.total, label).toBe(expected.reduce((n, x) => n + x.count, 0));
        expect(stats.total, label).toBeGreaterThan(0);
        expect(stats.over_time, label).toEqual(expected);
      }
    }
  });
});
