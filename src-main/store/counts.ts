// How many records a kind holds, all of them (no filter): the command line's instance check and
// a snapshot's checkpoint.
import type { ResourceDef } from '../../src-shared/resources/index';
import type { Db } from './connection';
import { q } from './sql';

export function countAll(db: Db, r: ResourceDef): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${q(r.table)}`).get() as { n: number }).n;
}
