// Store-side behaviour of particular resources: writes that touch other rows.
import { FINAL_STATUSES, OPEN_STATUSES, type IncidentStatus } from '../../src-shared/resources/fields';
import { nowTs } from '../../src-shared/time';
import crypto from 'node:crypto';
import type { WriteContext } from './api';
import type { Rec } from './api';
import type { Statements } from './statements';

export type { WriteContext } from './api';

export interface StoreHooks {
  beforeInsert?: (store: Statements, values: Rec, ctx: WriteContext) => void;
  afterInsert?: (store: Statements, id: string, values: Rec, ctx: WriteContext, at: string) => void;
  afterUpdate?: (store: Statements, before: Rec, values: Rec, ctx: WriteContext, at: string) => void;
}

function addStatusChange(store: Statements, incidentId: string, status: string, previous: string | null, ctx: WriteContext, at: string): string {
  const id = crypto.randomUUID();
  store.run(
    `INSERT INTO service_asset_finding_status_changes (id, service_asset_finding_id, status, previous_status, user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [id, incidentId, status, previous, ctx.userId ?? null, at, at],
  );
  ctx.made?.push({ resource: 'service_asset_finding_status_changes', id });
  return id;
}

/**
 * An incident's status change (contract.md §3): a status change row; leaving `new` sets
 * acknowledged_at; going from closed / invalid / risk_accepted back to an open status sets
 * reopened_at and counts the reopening.
 */
export function onIncidentStatus(store: Statements, before: Rec, status: IncidentStatus, ctx: WriteContext, at: string = nowTs()): void {
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
  if (sets.length) store.run(`UPDATE service_asset_findings SET ${sets.join(', ')} WHERE id = ?`, [...params, before.id]);
}

export const storeHooks: Record<string, StoreHooks> = {
  service_asset_findings: {
    afterInsert(store, id, values, ctx, at) {
      addStatusChange(store, id, (values.status as string) ?? 'new', null, ctx, at);
    },
    afterUpdate(store, before, values, ctx, at) {
      if (typeof values.status === 'string') onIncidentStatus(store, before, values.status as IncidentStatus, ctx, at);
    },
  },
};
