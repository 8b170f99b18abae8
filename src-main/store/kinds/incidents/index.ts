// Incidents: the rows a status change derives (the status-change row, acknowledged / reopened /
// the customer's last change), the public API's operations on them, and how their status and
// risk level are pushed (through the public API's own updates, so the origin makes its own
// status-change rows).
import crypto from 'node:crypto';
import { fromDbFields } from '../../../../src-shared/public/db-fields';
import { FINAL_STATUSES, OPEN_STATUSES, type IncidentStatus } from '../../../../src-shared/resources/fields';
import { serviceAssetFindings } from '../../../../src-shared/resources/service_asset_findings';
import { K } from '../../../../src-shared/resources/kinds';
import { PUBLIC_API } from '../../../../src-shared/sync/lists';
import { nowTs } from '../../../../src-shared/time';
import type { Rec, WriteContext } from '../../api';
import { q } from '../../sql';
import type { Statements } from '../../statements';
import { statusChanges } from '../status-change';
import { keptInsertCounts } from './kept';
import type { KindModule } from '../types';

const R = serviceAssetFindings;

function addStatusChange(store: Statements, incidentId: string, status: string, previous: string | null, ctx: WriteContext, at: string): string {
  const id = crypto.randomUUID();
  const made = statusChanges.resource;
  store.run(
    `INSERT INTO ${q(made.table)} (id, service_asset_finding_id, status, previous_status, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [id, incidentId, status, previous, ctx.userId ?? null, at, at],
  );
  ctx.made?.push({ resource: made.name, id });
  return id;
}

/**
 * An incident's status change (contract.md §3): a status change row; leaving `new` sets
 * acknowledged_at; going from closed / invalid / risk_accepted back to an open status sets
 * reopened_at and counts the reopening.
 */
function onIncidentStatus(store: Statements, before: Rec, status: IncidentStatus, ctx: WriteContext, at: string = nowTs()): void {
  const prev = before.status as IncidentStatus;
  if (prev === status) return;
  addStatusChange(store, before.id as string, status, prev, ctx, at);
  const sets: string[] = [];
  const params: unknown[] = [];
  if (prev === 'new' && !before.acknowledged_at) {
    sets.push('acknowledged_at = ?', 'acknowledged_by = ?');
    params.push(at, ctx.userId ?? null);
  }
  if (FINAL_STATUSES.includes(prev) && OPEN_STATUSES.includes(status)) {
    sets.push('reopened_at = ?', 'c_reopened_count = COALESCE(c_reopened_count, 0) + 1');
    params.push(at);
  }
  if (status.endsWith('_customer')) {
    sets.push('c_last_customer_status_change = ?');
    params.push(at);
  }
  if (ctx.userId) {
    sets.push('updated_by = ?');
    params.push(ctx.userId);
  }
  if (sets.length) store.run(`UPDATE ${q(R.table)} SET ${sets.join(', ')} WHERE id = ?`, [...params, before.id]);
}

export const incidentsKind: KindModule = {
  resource: R,
  kept: { insertCounts: keptInsertCounts },
  effects: {
    afterCreate(store, id, values, ctx, at) {
      addStatusChange(store, id, (values.status as string) ?? 'new', null, ctx, at);
    },
    afterUpdate(store, before, values, ctx, at) {
      if (typeof values.status === 'string') onIncidentStatus(store, before, values.status as IncidentStatus, ctx, at);
    },
  },
  operations: {
    'public.incidents.update_status': {
      handle({ store, body, userId }) {
        store.update(R, { id: body.id, status: body.status }, { userId });
        return {};
      },
    },
    'public.incidents.update_critical': {
      handle({ store, body, userId }) {
        store.update(R, { id: body.id, risklevel: body.risklevel, risk: undefined }, { userId });
        return {};
      },
    },
    'public.incidents.create': {
      handle({ store, body, userId }) {
        const { id, created_at, updated_at, ...fields } = fromDbFields(body);
        const created = store.create(
          R,
          { ...fields, ...(id ? { id: id as string } : {}) },
          { userId, at: created_at as string | undefined, updatedAt: updated_at as string | undefined },
        );
        return { id: created.id as string };
      },
    },
  },
  sync: {
    list: { key: 'incidents', order: 3, publicPath: 'incidents', load: [K.occurrence] },
    fieldOperations: {
      status: { method: 'PUT', path: `${PUBLIC_API}/incidents/update/status`, body: (id, status) => ({ id, status }) },
      risklevel: { method: 'PUT', path: `${PUBLIC_API}/incidents/update/critical`, body: (id, risklevel) => ({ id, risklevel }) },
    },
  },
};
