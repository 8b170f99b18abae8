// The console's own API on the main port: instances, the routing port on the main origin,
// incident aggregates, and import, export and snapshot.
import { z } from 'zod';
import { publicEntity } from '../public/entities';
import { analystPatchSchema, peopleAnswerSchema, personInputSchema, personSchema } from '../schemas/people';
import { statusChangeAnswerSchema, statusChangeRequestSchema } from '../schemas/incident-status';
import { bulkJobSchema, bulkRequestSchema } from '../schemas/incident-bulk';
import { instanceInputSchema, instancePatchSchema, instanceTestSchema, instanceViewSchema } from '../schemas/instances';
import { routedElementSchema } from '../schemas/routing';
import { STAT_BUCKETS, statsAnswerSchema } from '../schemas/stats';
import { EXPORT_TICKET_TTL_MS, exportDownloadSchema, exportQuerySchema, exportRequestSchema, exportTicketSchema, importQuerySchema, jobSchema, snapshotRequestSchema } from '../schemas/transfer';
import { errorAnswers } from './common';
import { API_BASES, defineOperation, once, lazily } from './operation';
import { standardQueryOf } from './public';

const C = API_BASES.console;
const tag = 'console';
const instanceId = z.object({ id: z.string().min(1).describe('the instance id (or, where noted, its name)') });

/** The methods the routing endpoint serves, each one operation. */
export const ROUTED_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

const routed = (method: (typeof ROUTED_METHODS)[number]) =>
  defineOperation(
    lazily(
      {
        operationId: `console.route.${method.toLowerCase()}`,
        method,
        path: `${C}/route/{path}`,
        tag: 'routing',
        summary: `Route a ${method} call to one instance or to all`,
        description:
          'The routing port on the main origin: `{path}` is any path of the main port (slashes included, e.g. `data/public/api/v1/incidents`) with its query, sent as is. ' +
          'With `PgrSelectedInstance` the answer is a one-element array holding that instance’s answer under `data` (the HTTP status is the instance’s; an unknown id is 404); ' +
          'without it every instance is asked in parallel and the array holds one element per instance in `sort_order`, each with its own status. One slow or dead instance never fails the whole answer.',
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: z.unknown().optional().describe("the body of the instance's operation"), bodyRequired: false }),
      },
      {
        params: () => z.object({ path: z.string().min(1).describe('a path of the main port without its leading slash; its slashes as they are or encoded (%2F, as one path parameter is sent)') }),
        headers: () => z.looseObject({ pgrselectedinstance: z.string().optional().meta({ format: 'uuid', description: 'the instance to call (from the instance list); absent: all of them' }) }),
        responses: () => ({
          200: z.array(routedElementSchema).describe('one element per instance asked'),
          // Any status an instance answers comes back in the envelope (a wrong method is its 405).
          ...Object.fromEntries([400, 401, 403, 404, 405, 409, 413, 415, 500, 502, 503, 504, 508].map((c) => [c, z.xor([errorAnswers(c)[c]!, z.array(routedElementSchema)]).describe(`${c}: the routing's own error, or the selected instance's answer in the envelope`)])),
        }),
      },
    ),
  );

export const consoleOperations = once(() => {
  const stats = defineOperation(
    lazily(
      {
        operationId: 'console.stats.incidents',
        method: 'GET',
        path: `${C}/stats/incidents`,
        tag,
        summary: 'Incident counts by status, risk band and time',
        description:
          "Counts of the incidents a standard query of the public API matches: by status, by risk band (CVSS bands of risklevel) and over time by bucket (`day`, `week` from Monday, `month`; `auto` picks by the span of the matches). Paging and order parameters are ignored.",
      },
      {
        query: () => z.looseObject({
          ...(standardQueryOf(publicEntity('incidents')!) as z.ZodObject).shape,
          bucket: z.enum(STAT_BUCKETS).optional().describe('time bucket of over_time (default day; auto chooses by the span of the matches)'),
        }),
        responses: () => ({ 200: statsAnswerSchema, ...errorAnswers(400, 401, 500) }),
      },
    ),
  );
  const setStatus = defineOperation(
    lazily(
      {
        operationId: 'console.incidents.set_status',
        method: 'POST',
        path: `${C}/incidents/status`,
        tag: 'incidents',
        servers: ['main', 'routing'],
        summary: 'Set incidents’ status, with its reason',
        description:
          'One request, one transaction: each incident gets the status (and its status-change row, as an update of `status` makes), and the optional `note` becomes a message linked to that row. ' +
          'Each incident stands or falls alone (a savepoint per incident: its status and its message together); `results` says which. An incident that already has the status gets no new row, and the note is still kept, unlinked (`status_change_id: null`). ' +
          'In a snapshot the outbox records the status and the message in the same transaction. A remote platform has no such operation: the typed client’s `incidents.setStatus` links the message by the rows the platform made there.',
      },
      {
        body: () => statusChangeRequestSchema,
        responses: () => ({ 200: statusChangeAnswerSchema, ...errorAnswers(400, 401, 500, 503) }),
      },
    ),
  );
  const bulkJobId = () => z.object({ id: z.string().min(1).describe('the job') });
  const bulkStart = defineOperation(
    lazily(
      {
        operationId: 'console.incidents.bulk.start',
        method: 'POST',
        path: `${C}/incidents/bulk`,
        tag: 'incidents',
        servers: ['main', 'routing'],
        summary: 'Change every incident a query matches, as one job',
        description:
          'A status (with its reason, as `POST /console/v1/incidents/status` keeps it), a risk level, an owner or a group set on every incident the query matches (the filters and text search of a v2 search of incidents; no paging), as ONE transaction: each incident is written as a single change would be (its status-change row, the reason as a message, a snapshot’s outbox entries), and nothing is visible before the end. ' +
          'Answers 202 with the job (`Location` names it); `GET` it for the progress, `DELETE` it to cancel (the transaction rolls back: nothing of it is written). A failure also rolls everything back. ' +
          'While it runs, other requests that write wait for its end; reads answer the data as last committed. With `expected_total`, a query that matches another number as the job starts is 409 and nothing is changed.',
      },
      {
        body: () => bulkRequestSchema,
        responses: () => ({
          202: { description: 'the job started', content: { 'application/json': bulkJobSchema }, headers: { Location: { description: 'the job', schema: z.string() } } },
          ...errorAnswers(400, 401, 409, 500, 503),
        }),
      },
    ),
  );
  const bulkGet = defineOperation(
    lazily(
      {
        operationId: 'console.incidents.bulk.get',
        method: 'GET',
        path: `${C}/incidents/bulk/{id}`,
        tag: 'incidents',
        servers: ['main', 'routing'],
        summary: 'A change over a query: its progress',
        description: 'Incidents written of the total, and how it ended: `done` (committed), `failed` or `cancelled` (nothing of it was written).',
      },
      {
        params: bulkJobId,
        responses: () => ({ 200: bulkJobSchema, ...errorAnswers(401, 404, 500) }),
      },
    ),
  );
  const bulkCancel = defineOperation(
    lazily(
      {
        operationId: 'console.incidents.bulk.cancel',
        method: 'DELETE',
        path: `${C}/incidents/bulk/{id}`,
        tag: 'incidents',
        servers: ['main', 'routing'],
        summary: 'Cancel a change over a query',
        description: 'The job’s transaction rolls back: none of its incidents is changed. Answers the job once it has stopped (a job already finished is answered as it is).',
      },
      {
        params: bulkJobId,
        responses: () => ({ 200: bulkJobSchema, ...errorAnswers(401, 404, 500) }),
      },
    ),
  );
  return {
    openapi: defineOperation(
      lazily(
        {
          operationId: 'openapi.document',
          method: 'GET',
          path: '/openapi.json',
          tag: 'reference',
          summary: 'This document',
          description: 'The OpenAPI 3.1 document of every operation, made from the same declarations the server registers its routes from. The interactive reference at `/reference/` renders it.',
        },
        {
          responses: () => ({ 200: z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }).describe('the OpenAPI document'), ...errorAnswers(401, 500) }),
        },
      ),
    ),
    instances_list: defineOperation(
      lazily(
        {
          operationId: 'console.instances.list',
          method: 'GET',
          path: `${C}/instances`,
          tag,
          summary: 'Instances',
          description: 'Every instance the server routes to: the main database, other local databases and remote platforms. Keys are never answered (`has_api_key` says whether one is set).',
        },
        {
          responses: () => ({ 200: z.array(instanceViewSchema), ...errorAnswers(401, 500) }),
        },
      ),
    ),
    instances_add: defineOperation(
      lazily(
        {
          operationId: 'console.instances.add',
          method: 'POST',
          path: `${C}/instances`,
          tag,
          summary: 'Add an instance',
          description: 'A local SQLite database (`kind: local`, created and migrated when missing) or a remote platform (`kind: remote`, its URL and API key; TLS is always verified, a CA file and a certificate pin may be added). A taken name is 409.',
        },
        {
          body: () => instanceInputSchema,
          responses: () => ({ 201: instanceViewSchema, ...errorAnswers(400, 401, 409, 500) }),
        },
      ),
    ),
    instances_update: defineOperation(
      lazily(
        {
          operationId: 'console.instances.update',
          method: 'PUT',
          path: `${C}/instances/{id}`,
          tag,
          summary: 'Change an instance',
          description: 'Changes the fields sent (name, order, time-out, file or URL, key, pin, CA). The main instance keeps its database.',
        },
        {
          params: () => instanceId,
          body: () => instancePatchSchema,
          responses: () => ({ 200: instanceViewSchema, ...errorAnswers(400, 401, 404, 409, 500) }),
        },
      ),
    ),
    instances_remove: defineOperation(
      lazily(
        {
          operationId: 'console.instances.remove',
          method: 'DELETE',
          path: `${C}/instances/{id}`,
          tag,
          summary: 'Remove an instance',
          description: "Removes the instance from the list (a local instance's database file is kept; the main instance cannot be removed).",
        },
        {
          params: () => instanceId,
          responses: () => ({ 200: z.strictObject({ id: z.string() }).describe('the id of the removed instance'), ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    instances_test: defineOperation(
      lazily(
        {
          operationId: 'console.instances.test',
          method: 'POST',
          path: `${C}/instances/{id}/test`,
          tag,
          summary: 'Test the connection to an instance',
          description: 'Calls the instance once and answers whether it answered, its status and the time it took.',
        },
        {
          params: () => instanceId,
          responses: () => ({ 200: instanceTestSchema, ...errorAnswers(401, 404, 500) }),
        },
      ),
    ),
    instances_health: defineOperation(
      lazily(
        {
          operationId: 'console.instances.health',
          method: 'GET',
          path: `${C}/instances/health`,
          tag,
          summary: 'Health of every instance',
          description: 'Tests every instance in parallel.',
        },
        {
          responses: () => ({ 200: z.array(instanceTestSchema.extend({ id: z.string() }).meta({ id: 'InstanceHealth' })), ...errorAnswers(401, 500) }),
        },
      ),
    ),
    route_get: routed('GET'),
    route_post: routed('POST'),
    route_put: routed('PUT'),
    route_delete: routed('DELETE'),
    route_patch: routed('PATCH'),
    stats,
    incidents_set_status: setStatus,
    incidents_bulk_start: bulkStart,
    incidents_bulk_get: bulkGet,
    incidents_bulk_cancel: bulkCancel,
    import: defineOperation(
      lazily(
        {
          operationId: 'console.import',
          method: 'POST',
          path: `${C}/import`,
          tag: 'transfer',
          summary: 'Import a file into an instance',
          description:
            'The body is the file itself: JSON in any shape the API answers (a public list page, a search answer, the routing envelope, an array), NDJSON, or a .zip of them. ' +
            'It is imported into an instance (default: the main one) or into a new local instance (`new_instance`), all or nothing. Answers 202 with the job (`Location` names it); with `wait=1`, 200 with the finished job or 400 with the error.',
          bodyContent: {
            'application/json': z.unknown().describe('a JSON export'),
            'application/x-ndjson': z.string().describe('one record per line'),
            'application/zip': z.string().meta({ contentEncoding: 'binary' }).describe('a .zip of JSON and NDJSON files'),
            'application/octet-stream': z.string().meta({ contentEncoding: 'binary' }).describe('any of these, told from its first bytes'),
          },
        },
        {
          query: () => importQuerySchema,
          responses: () => ({
            200: jobSchema.describe('wait=1: the finished job'),
            202: { description: 'the job started', content: { 'application/json': jobSchema }, headers: { Location: { description: 'the job', schema: z.string() } } },
            ...errorAnswers(400, 401, 404, 409, 500),
          }),
        },
      ),
    ),
    jobs_list: defineOperation(
      lazily(
        {
          operationId: 'console.jobs.list',
          method: 'GET',
          path: `${C}/jobs`,
          tag: 'transfer',
          summary: 'Import and snapshot jobs',
          description: 'Every job of this server run, the newest first.',
        },
        {
          responses: () => ({ 200: z.array(jobSchema), ...errorAnswers(401, 500) }),
        },
      ),
    ),
    jobs_get: defineOperation(
      lazily(
        {
          operationId: 'console.jobs.get',
          method: 'GET',
          path: `${C}/jobs/{id}`,
          tag: 'transfer',
          summary: 'A job',
          description: 'Its progress (records, bytes, rate, ETA) and, when finished, its summary or error.',
        },
        {
          params: () => z.object({ id: z.string().min(1).describe('the job') }),
          responses: () => ({ 200: jobSchema, ...errorAnswers(401, 404, 500) }),
        },
      ),
    ),
    jobs_cancel: defineOperation(
      lazily(
        {
          operationId: 'console.jobs.cancel',
          method: 'DELETE',
          path: `${C}/jobs/{id}`,
          tag: 'transfer',
          summary: 'Cancel a job',
          description: 'An import rolls back; a snapshot keeps its finished pages and can be resumed. Answers the job once it has stopped.',
        },
        {
          params: () => z.object({ id: z.string().min(1).describe('the job') }),
          responses: () => ({ 200: jobSchema, ...errorAnswers(401, 404, 500) }),
        },
      ),
    ),
    export: defineOperation(
      lazily(
        {
          operationId: 'console.export',
          method: 'POST',
          path: `${C}/export`,
          tag: 'transfer',
          summary: 'Export records',
          description:
            'Exports a resource (or a public list) from a local instance, streamed: every match of a v2 search request (`search`, answered as `{items,total}` in JSON) or of public standard filters (`query`, answered as `{objects,total}`), ' +
            'as JSON, NDJSON or CSV (chosen `columns`, `delimiter`, a byte-order mark for spreadsheets). `X-Total-Count` says how many records match.',
        },
        {
          body: () => exportRequestSchema,
          responses: () => ({ 200: exportAnswer(), ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    export_link: defineOperation(
      lazily(
        {
          operationId: 'console.export_link',
          method: 'GET',
          path: `${C}/export`,
          tag: 'transfer',
          summary: 'Export records (as a link)',
          description:
            'The same export as `POST /console/v1/export`, its parameters in the query: `search` as JSON text, `columns` comma-separated. ' +
            'Or `ticket` alone (from `POST /console/v1/export/tickets`): then no credentials are needed, so a browser can follow the link and save the file to disk; a ticket serves its own export once, before it expires (an unknown, used or expired ticket is 401).',
        },
        {
          query: () => exportQuerySchema,
          responses: () => ({ 200: exportAnswer(), ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    export_ticket: defineOperation(
      lazily(
        {
          operationId: 'console.export_ticket',
          method: 'POST',
          path: `${C}/export/tickets`,
          tag: 'transfer',
          summary: 'A download link for an export',
          description:
            `Checks the export (the body of \`POST /console/v1/export\`) and answers a link that downloads it once without credentials, within ${EXPORT_TICKET_TTL_MS / 1000} s: a browser saves it to disk as it streams (\`Content-Disposition: attachment\`). ` +
            'The ticket in the link is random and kept in the server’s memory only; `id` follows the download.',
        },
        {
          body: () => exportRequestSchema,
          responses: () => ({ 201: exportTicketSchema, ...errorAnswers(400, 401, 404, 500) }),
        },
      ),
    ),
    export_download_get: defineOperation(
      lazily(
        {
          operationId: 'console.export_download.get',
          method: 'GET',
          path: `${C}/export/tickets/{id}`,
          tag: 'transfer',
          summary: 'How a ticket’s download goes',
          description: 'Waiting for its link to be followed, running (records and bytes sent), done, failed, cancelled, or expired unused. Finished downloads are forgotten after ten minutes.',
        },
        {
          params: () => z.object({ id: z.string().min(1).describe('the download (the `id` of the ticket’s answer)') }),
          responses: () => ({ 200: exportDownloadSchema, ...errorAnswers(401, 404, 500) }),
        },
      ),
    ),
    export_download_cancel: defineOperation(
      lazily(
        {
          operationId: 'console.export_download.cancel',
          method: 'DELETE',
          path: `${C}/export/tickets/{id}`,
          tag: 'transfer',
          summary: 'Cancel a ticket’s download',
          description: 'A waiting ticket can no longer be used; a running download is ended (the browser sees it fail). Answers the download.',
        },
        {
          params: () => z.object({ id: z.string().min(1).describe('the download') }),
          responses: () => ({ 200: exportDownloadSchema, ...errorAnswers(401, 404, 500) }),
        },
      ),
    ),
    people_list: defineOperation(
      lazily(
        {
          operationId: 'console.people.list',
          method: 'GET',
          path: `${C}/people`,
          tag,
          summary: 'People of this database',
          description:
            'The directory of people a local database keeps: a name for each user uuid its records carry (incident owners, status-change authors, message senders). Served per instance like the other console reads.',
        },
        {
          responses: () => ({ 200: peopleAnswerSchema, ...errorAnswers(401, 500) }),
        },
      ),
    ),
    people_add: defineOperation(
      lazily(
        {
          operationId: 'console.people.add',
          method: 'POST',
          path: `${C}/people`,
          tag,
          summary: 'Add a person to the directory',
          description: 'A name for a user uuid (generated when absent); the short name ("Smith J.") is made from the name when not given. A taken uuid is 409.',
        },
        {
          body: () => personInputSchema,
          responses: () => ({ 201: personSchema, ...errorAnswers(400, 401, 409, 500) }),
        },
      ),
    ),
    people_remove: defineOperation(
      lazily(
        {
          operationId: 'console.people.remove',
          method: 'DELETE',
          path: `${C}/people/{id}`,
          tag,
          summary: 'Remove a person from the directory',
          description: 'The records keep the uuid; the console shows it without a name.',
        },
        {
          params: () => z.object({ id: z.string().describe('the user uuid') }),
          responses: () => ({ 200: z.strictObject({ id: z.string() }).describe('the uuid removed'), ...errorAnswers(401, 404, 500) }),
        },
      ),
    ),
    me_get: defineOperation(
      lazily(
        {
          operationId: 'console.me.get',
          method: 'GET',
          path: `${C}/me`,
          tag,
          summary: 'The local analyst',
          description: 'Name and uuid of the analyst using this console: the uuid it sends as `Pgr-User-Id` and the subject of the tokens the CLI makes.',
        },
        {
          responses: () => ({ 200: personSchema, ...errorAnswers(401, 500) }),
        },
      ),
    ),
    me_update: defineOperation(
      lazily(
        {
          operationId: 'console.me.update',
          method: 'PUT',
          path: `${C}/me`,
          tag,
          summary: 'Rename the local analyst',
          description: 'Changes the name (and the short name made from it); the uuid stays.',
        },
        {
          body: () => analystPatchSchema,
          responses: () => ({ 200: personSchema, ...errorAnswers(400, 401, 500) }),
        },
      ),
    ),
    snapshot: defineOperation(
      lazily(
        {
          operationId: 'console.snapshot',
          method: 'POST',
          path: `${C}/snapshot`,
          tag: 'transfer',
          summary: 'Snapshot a remote platform',
          description:
            "Copies a remote platform's finding types, assets and incidents (with occurrences and status changes) into a new local database through its public API; an interrupted snapshot is resumed. Answers 202 with the job; with `wait=1`, the finished job.",
        },
        {
          query: () => z.object({ wait: z.enum(['true', 'false', '1', '0']).optional().describe('answer when the snapshot has finished') }),
          body: () => snapshotRequestSchema,
          responses: () => ({
            200: jobSchema.describe('wait=1: the finished job'),
            202: jobSchema.describe('the job started'),
            ...errorAnswers(400, 401, 404, 409, 500),
          }),
        },
      ),
    ),
  };
});

/** The export's answer, by format. */
function exportAnswer() {
  const row = z.record(z.string(), z.unknown()).describe('a record: the fields of the resource (or those of `columns`)');
  return {
    description: 'the file, streamed (Content-Disposition names it); the media type follows `format`',
    content: {
      'application/json': z.xor([
        z.strictObject({ items: z.array(row), total: z.number().int() }).describe('a v2 search answer (`search`, or neither)'),
        z.strictObject({ objects: z.array(row), total: z.number().int() }).describe('a public list (`query`)'),
      ]),
      'application/x-ndjson': z.string().describe('one JSON record per line'),
      'text/csv': z.string().describe('a header row, then one row per record'),
    },
    headers: {
      'X-Total-Count': { description: 'records matching', schema: z.string() },
      'Content-Disposition': { description: 'attachment; filename="..."', schema: z.string() },
    },
  };
}
