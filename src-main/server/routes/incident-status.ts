// POST /console/v1/incidents/status: a status change with its reason as one operation, per
// instance (so the routing port serves it on every local instance).
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { changeStatus } from '../../store/kinds/incidents/status';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

export function registerIncidentStatus(app: FastifyInstance, deps: ApiDeps): void {
  serve(app, consoleOperations().incidents_set_status, async (req) => {
    const { ids, status, note, sender_id } = req.body;
    return changeStatus(deps.store(), ids, status, { note, senderId: sender_id }, { userId: req.userId });
  });
}
