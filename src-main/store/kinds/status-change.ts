// Incidents' status-change rows: made by the platform when an incident's status changes there
// (the public API's status update), never created through its API. A copy makes its own row for
// a change made offline (the incident module's effect); what names that row (a message giving the
// reason, an occurrence) is pushed naming the platform's row for the same change instead, and a
// pull replaces the rows made here by the origin's.
import { getResource } from '../../../src-shared/resources/index';
import { K } from '../../../src-shared/resources/kinds';
import { serviceAssetFindingStatusChanges } from '../../../src-shared/resources/service_asset_finding_status_changes';
import type { Db } from '../db';
import { q } from '../sql';
import type { KindModule } from './types';

const R = serviceAssetFindingStatusChanges;
const FK = 'service_asset_finding_id';

const dropped = new WeakMap<Db, { run(...params: unknown[]): unknown }>();

export const statusChanges: KindModule = {
  resource: R,
  sync: {
    list: { key: 'status_changes', order: 4, relatedBy: FK },
    platformMade: {
      parent: getResource(K.incident),
      parentField: 'status',
      parentFk: FK,
      valueField: 'status',
      previousField: 'previous_status',
      dropLocal(db, parentId) {
        let st = dropped.get(db);
        if (!st) {
          // Row by row against the copied versions' key (a NOT IN list of every copied row would be
          // built again for each incident: quadratic in a pull of many status changes).
          const t = q(R.table);
          st = db.prepare(
            `DELETE FROM ${t} WHERE ${q(FK)} = ? AND NOT EXISTS (SELECT 1 FROM sync_remote r WHERE r.resource = ? AND r.id = ${t}.id)`,
          );
          dropped.set(db, st);
        }
        st.run(parentId, R.name);
      },
    },
  },
};
