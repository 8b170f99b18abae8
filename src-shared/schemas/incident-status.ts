// A status change with its reason (POST /console/v1/incidents/status): the request and the answer.
import { z } from 'zod';
import { INCIDENT_STATUSES } from '../resources/fields';
import { uuidSchema } from './common';

/** Incidents per request. */
export const STATUS_CHANGE_MAX_IDS = 1000;

export const statusNoteSchema = z
  .strictObject({
    subject: z.string().trim().min(1, 'note.subject should not be empty').max(1000, 'note.subject: at most 1000 characters').describe('the reason, as the message’s subject'),
    body: z.string().max(100_000, 'note.body: at most 100000 characters').default('').describe('a comment, as the message’s body'),
  })
  .meta({ id: 'IncidentStatusNote', description: 'why the status was set: kept as a message linked to each incident’s new status-change row' });

export const statusChangeRequestSchema = z
  .strictObject({
    ids: z
      .array(uuidSchema)
      .min(1, 'ids should not be empty')
      .max(STATUS_CHANGE_MAX_IDS, `ids: at most ${STATUS_CHANGE_MAX_IDS} per request`)
      .describe('the incidents'),
    status: z.enum(INCIDENT_STATUSES).describe('the status to set'),
    note: statusNoteSchema.optional(),
    sender_id: z.string().max(100).nullable().optional().describe('the message’s sender (default: the user making the request)'),
  })
  .meta({ id: 'IncidentStatusChange', description: 'a status set on incidents, with its reason' });

export const statusChangeResultSchema = z
  .strictObject({
    id: z.string().describe('the incident'),
    error_code: z.number().int().describe('0; 11003 no such incident; 11002 the change could not be written (nothing of it was)'),
    status_change_id: z.string().nullable().describe('the status-change row this change made; null when the incident already had the status (or failed)'),
    message_id: z.string().nullable().describe('the message holding the reason; null without a note (or when failed)'),
  })
  .meta({ id: 'IncidentStatusChangeResult' });

export const statusChangeAnswerSchema = z
  .strictObject({
    results: z.array(statusChangeResultSchema).describe('one per id, in the order asked'),
    changed: z.number().int().describe('incidents whose status changed'),
  })
  .meta({ id: 'IncidentStatusChangeAnswer' });

export type StatusChangeRequest = z.input<typeof statusChangeRequestSchema>;
export type StatusChangeAnswer = z.output<typeof statusChangeAnswerSchema>;
