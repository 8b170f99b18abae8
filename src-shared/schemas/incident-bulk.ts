// A change over every incident a query matches, as one server-side job
// (POST /console/v1/incidents/bulk): the request and the job's view.
import { z } from 'zod';
import { INCIDENT_STATUSES } from '../resources/fields';
import { statusNoteSchema } from './incident-status';
import { filterSchema, virtualSearchSchema } from './search';

/** The query: the filters and the text search of a v2 search of incidents (as the console's list sends them). */
export const bulkQuerySchema = z
  .strictObject({
    filters: z.array(filterSchema).default([]).describe('the conditions of a v2 search of service_asset_findings (all must hold)'),
    virtual_search: virtualSearchSchema.optional().describe('the text search of a v2 search'),
  })
  .meta({ id: 'IncidentBulkQuery', description: 'which incidents: the filters and text search of a v2 search of incidents (no paging: every match)' });

export const bulkChangeSchema = z
  .union([
    z
      .strictObject({
        status: z.enum(INCIDENT_STATUSES).describe('the status to set'),
        note: statusNoteSchema.optional(),
        sender_id: z.string().max(100).nullable().optional().describe('the message’s sender (default: the user making the request)'),
      })
      .describe('a status, with its reason kept as a message linked to each status-change row (as POST /console/v1/incidents/status)'),
    z.strictObject({ risklevel: z.number().min(0).max(10).describe('the risk level to set (0..10)') }),
    z.strictObject({ user_id: z.string().max(100).nullable().describe('the owner to set (null: nobody)') }),
    z.strictObject({ group_id: z.string().max(100).nullable().describe('the group to set (null: none)') }),
  ])
  .meta({ id: 'IncidentBulkChange', description: 'one change: a status (with its reason), a risk level, an owner or a group' });

export const bulkRequestSchema = z
  .strictObject({
    query: bulkQuerySchema,
    change: bulkChangeSchema,
    expected_total: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('the number of incidents the confirmation named: when the query matches another number as the job starts, the answer is 409 and nothing is changed'),
  })
  .meta({ id: 'IncidentBulkRequest', description: 'a change over every incident a query matches' });

export const BULK_STATES = ['running', 'done', 'failed', 'cancelled'] as const;

export const bulkJobSchema = z
  .strictObject({
    id: z.string().describe('the job'),
    state: z.enum(BULK_STATES).describe('running; done (committed); failed or cancelled (nothing of it was written)'),
    field: z.enum(['status', 'risklevel', 'user_id', 'group_id']).describe('the field the job changes'),
    total: z.number().int().describe('incidents the query matched as the job started'),
    done: z.number().int().describe('incidents written so far (in the job’s transaction until it is done)'),
    changed: z.number().int().describe('incidents whose value changed (the others already had it)'),
    started_at: z.string().describe('ISO 8601'),
    finished_at: z.string().nullable().describe('ISO 8601; null while running'),
    error: z.strictObject({ error: z.string(), error_code: z.number().int() }).nullable().describe('why it failed or stopped'),
  })
  .meta({ id: 'IncidentBulkJob', description: 'a change over a query: its progress and end' });

export type BulkRequest = z.output<typeof bulkRequestSchema>;
export type BulkChange = z.output<typeof bulkChangeSchema>;
export type BulkQuery = z.output<typeof bulkQuerySchema>;
export type BulkJobView = z.output<typeof bulkJobSchema>;
