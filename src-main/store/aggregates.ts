// Kept aggregates: counts the database maintains itself, in the same transaction as every
// write (triggers), so that they hold whichever connection or process writes, imports included.
//
// incident_day_counts: incidents per creation day, status and risk band (the CVSS band of
// risklevel, as the console's charts and chips show it). At most a few thousand rows a year,
// so the counts and charts of a million incidents are read from it instead of counted. Rows
// reaching zero are removed: the table is a function of the incidents alone, whatever the path.
import { riskBandSql } from '../../src-shared/resources/fields';

export const DAY_COUNTS = 'incident_day_counts';

const key = (row: 'new' | 'old') => `substr(${row}.created_at, 1, 10), ${row}.status, ${riskBandSql(`${row}.risklevel`)}`;
const match = (row: 'new' | 'old') =>
  `day = substr(${row}.created_at, 1, 10) AND status = ${row}.status AND risk = ${riskBandSql(`${row}.risklevel`)}`;

const add = `INSERT INTO ${DAY_COUNTS} (day, status, risk, n) VALUES (${key('new')}, 1) ON CONFLICT (day, status, risk) DO UPDATE SET n = n + 1;`;
const remove = `UPDATE ${DAY_COUNTS} SET n = n - 1 WHERE ${match('old')}; DELETE FROM ${DAY_COUNTS} WHERE ${match('old')} AND n <= 0;`;

/** The table, its triggers on service_asset_findings, and its filling from existing rows. */
export function dayCountsDdl(): string[] {
  return [
    `CREATE TABLE ${DAY_COUNTS} (day TEXT NOT NULL, status TEXT NOT NULL, risk TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (day, status, risk)) WITHOUT ROWID`,
    `CREATE TRIGGER service_asset_findings_days_ai AFTER INSERT ON service_asset_findings BEGIN ${add} END`,
    `CREATE TRIGGER service_asset_findings_days_ad AFTER DELETE ON service_asset_findings BEGIN ${remove} END`,
    `CREATE TRIGGER service_asset_findings_days_au AFTER UPDATE OF created_at, status, risklevel ON service_asset_findings
       WHEN substr(old.created_at, 1, 10) IS NOT substr(new.created_at, 1, 10) OR old.status IS NOT new.status
         OR ${riskBandSql('old.risklevel')} IS NOT ${riskBandSql('new.risklevel')}
       BEGIN ${remove} ${add} END`,
    `INSERT INTO ${DAY_COUNTS} (day, status, risk, n)
       SELECT substr(t.created_at, 1, 10), t.status, ${riskBandSql('t.risklevel')}, COUNT(*) FROM service_asset_findings t GROUP BY 1, 2, 3`,
  ];
}
