// Import, export and snapshot: the bodies and answers of the console's transfer endpoints
// (/console/v1/import, /export, /snapshot, /jobs), shared by the server and the console.
import { z } from 'zod';
import { uuidSchema } from './common';
import { extensionParamsSchema, filterSchema, orderingSchema, virtualSearchSchema } from './search';

import { CSV_DELIMITERS, CSV_ENCODINGS, CSV_HEADERS, EXPORT_FORMATS } from '../choices';

export { CSV_DELIMITERS, CSV_ENCODINGS, CSV_HEADERS, EXPORT_FORMATS, type CsvEncoding, type CsvHeaders, type ExportFormat } from '../choices';

/**
 * The search request of `<resource>/search` with every key optional. Without `limit` every
 * match is exported (no row cap); with it, exactly that page.
 */
export const exportSearchSchema = z
  .strictObject({
    include_fields: z.array(z.string()).optional(),
    exclude_fields: z.array(z.string()).optional(),
    filters: z.array(filterSchema).optional(),
    ordering: z.array(orderingSchema).optional(),
    virtual_search: virtualSearchSchema.optional(),
    extension_params: extensionParamsSchema.optional(),
    relations: z.array(z.string()).optional(),
    _relations: z.array(z.string()).optional(),
    limit: z.number().int().min(0).optional().describe('absent: every match'),
    offset: z.number().int().min(0).optional(),
  })
  .meta({ id: 'ExportSearch' });
export type ExportSearch = z.infer<typeof exportSearchSchema>;

const exportCommon = {
  resource: z
    .string()
    .min(1, 'resource should not be empty')
    .describe('a resource of the data-management API (service_asset_findings, ...) or a public list (incidents, findings, serviceAssets)'),
  format: z.enum(EXPORT_FORMATS),
  instance: z.string().min(1).optional().describe('id or name of the instance (default: the main one); local instances only'),
  delimiter: z.enum(CSV_DELIMITERS).optional().describe('CSV field separator (default ,)'),
};

const exportFile = {
  columns: z.array(z.string().min(1)).min(1).optional().describe('fields to export, in this order (default: every field)'),
  bom: z.boolean().optional().describe('CSV: start with a UTF-8 byte-order mark (default true, for spreadsheets)'),
  headers: z
    .enum(CSV_HEADERS)
    .optional()
    .describe("CSV: the header row names the columns by the fields' API names (fields, the default) or by the console's column names in English (en) or Russian (ru); an import reads any of them back"),
  with_references: z
    .boolean()
    .optional()
    .describe(
      'JSON and NDJSON: each record carries the records it refers to (an incident its finding type, asset and last occurrence), so the file imports into a fresh database; records that refer to it (its other occurrences, status changes, messages) are not references and are not carried',
    ),
  with_names: z
    .boolean()
    .optional()
    .describe(
      'beside each id the console shows as a name, a column (or field) with that name, right after the id: a reference to a record with a label as `<id less _id>_<label>` (service_asset_id → service_asset_name, finding_id → finding_title), a user uuid as `<field less _id>_short_name` from the people directory (user_id → user_short_name), group_id → group_name; empty when the record is unknown',
    ),
};

/** POST /console/v1/export: its two sources, a v2 search request or public standard filters. */
export const exportRequestSchema = z
  .xor([
    z
      .strictObject({ ...exportCommon, search: exportSearchSchema.optional().describe('v2 search request (absent: every record)'), ...exportFile })
      .describe('records a v2 search request matches: the JSON answer is {items,total}'),
    z
      .strictObject({
        ...exportCommon,
        query: z.string().describe('public API standard filters as a query string (status=in,new,closed&order=-risklevel)'),
        ...exportFile,
      })
      .describe('records public standard filters match: the JSON answer is {objects,total}'),
  ])
  .meta({ id: 'ExportRequest' });
export type ExportRequest = z.infer<typeof exportRequestSchema> & { search?: ExportSearch; query?: string };

/**
 * GET /console/v1/export: the same as query parameters (search as JSON text, columns
 * comma-separated), or a download ticket alone (then no credentials are needed).
 */
export const exportQuerySchema = z.strictObject({
  ticket: z.string().min(1).max(200).optional().describe('a download ticket (POST /console/v1/export/tickets): the export it was issued for, without credentials; alone, once, before it expires'),
  resource: exportCommon.resource.optional().describe(`${exportCommon.resource.description} (required without a ticket)`),
  format: exportCommon.format.optional().describe('json, ndjson or csv (required without a ticket)'),
  instance: exportCommon.instance,
  delimiter: exportCommon.delimiter,
  search: z.string().optional().describe('the search request as JSON text'),
  query: z.string().optional().describe('public API standard filters as a query string'),
  columns: z.string().optional().describe('comma-separated fields'),
  bom: z.enum(['true', 'false', '1', '0']).optional(),
  headers: exportFile.headers,
  with_references: z.enum(['true', 'false', '1', '0']).optional(),
  with_names: z.enum(['true', 'false', '1', '0']).optional().describe('names beside the ids (see the POST body)'),
});

const boolParam = z.enum(['true', 'false', '1', '0']).optional();

export { EXPORT_TICKET_TTL_MS } from '../export-ticket';

/** POST /console/v1/export/tickets: the link that downloads the export once. */
export const exportTicketSchema = z
  .strictObject({
    id: z.string().describe('the download, to follow (GET /console/v1/export/tickets/{id}) or cancel; not the ticket'),
    url: z.string().describe('the link: GET it once, without credentials, before expires_at (a browser saves the attachment to disk)'),
    expires_at: z.string().describe('ISO timestamp after which the link is refused'),
  })
  .meta({ id: 'ExportTicket' });
export type ExportTicket = z.infer<typeof exportTicketSchema>;

export const DOWNLOAD_STATES = ['waiting', 'running', 'done', 'failed', 'cancelled', 'expired'] as const;
export type DownloadState = (typeof DOWNLOAD_STATES)[number];

/** GET /console/v1/export/tickets/{id}: how the download of a ticket goes. */
export const exportDownloadSchema = z
  .strictObject({
    id: z.string(),
    state: z.enum(DOWNLOAD_STATES).describe('waiting (the link not used yet), running, done, failed, cancelled, expired (never used)'),
    resource: z.string(),
    format: z.enum(EXPORT_FORMATS),
    filename: z.string().nullable().describe('the file name the download was given, once it started'),
    total: z.number().int().nullable().describe('records matching'),
    expected: z.number().int().nullable().describe('records this export writes (total, or the page asked for)'),
    rows: z.number().int().describe('records sent so far'),
    bytes: z.number().int().describe('bytes sent so far'),
    expires_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'ExportDownload' });
export type ExportDownload = z.infer<typeof exportDownloadSchema>;

/** POST /console/v1/import query parameters (the body is the file itself). */
export const importQuerySchema = z.strictObject({
  instance: z.string().min(1).optional().describe('id or name of an existing instance to import into (default: the main one)'),
  new_instance: z.string().trim().min(1).max(120).optional().describe('create a new local instance of this name from the upload'),
  db_file: z.string().min(1).optional().describe('database file of the new instance (default: beside the main database)'),
  kind: z.string().min(1).optional().describe('resource of the records, when it cannot be told from their fields'),
  filename: z.string().min(1).max(500).optional().describe('name of the uploaded file (kind hints, error messages); a name ending in .csv or .tsv is read as CSV'),
  ignore_unknown: boolParam.describe('skip fields (and CSV columns) the registry does not know, counted in the summary, instead of refusing the file'),
  delimiter: z.enum(CSV_DELIMITERS).optional().describe('CSV: the field separator (default: the one of , ; and tab the header row holds most of)'),
  encoding: z
    .enum(CSV_ENCODINGS)
    .optional()
    .describe('CSV: the text encoding (default: UTF-8 when the file has a byte-order mark or its first bytes beyond ASCII are UTF-8, else windows-1251)'),
  as_changes: boolParam.describe('into a snapshot of a platform: record the records created or changed as changes to push (its outbox), field by field; default: an import is not a change to push'),
  wait: boolParam.describe('answer when the import has finished (200 with the summary, 400 with the error) instead of 202 with a job'),
});
export type ImportQuery = z.infer<typeof importQuerySchema>;

export const transferErrorSchema = z
  .object({
    message: z.string(),
    file: z.string().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
    record: z.string().optional().describe('where the record is: objects[17], [2].data.items[0], ...'),
    id: z.string().optional(),
    field: z.string().optional(),
  })
  .meta({ id: 'TransferError' });
export type TransferErrorView = z.infer<typeof transferErrorSchema>;

export const resourceCountsSchema = z.object({
  inserted: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  repeated: z.number().int().describe('identical copies of a record met again in the same import (e.g. an asset nested in many incidents)'),
});

export const importSummarySchema = z
  .object({
    target: z.string().describe('database file'),
    files: z.array(
      z.object({
        file: z.string(),
        shape: z.string().describe('public-page, v2-search, envelope, array, ndjson, json-values or csv'),
        kinds: z.array(z.string()),
        records: z.number().int(),
        delimiter: z.string().optional().describe('CSV: the field separator read'),
        encoding: z.string().optional().describe('CSV: the text encoding read (UTF-8, Windows-1251, UTF-16; ASCII when no character went beyond it)'),
      }),
    ),
    resources: z.record(z.string(), resourceCountsSchema),
    records: z.number().int().describe('records read, nested ones included'),
    links: z.number().int().describe('many-to-many link lists set'),
    generated_ids: z.number().int().describe('records without an id that got a new one'),
    ignored_fields: z.record(z.string(), z.number().int()).describe('`resource.field`: records in which an unknown field was skipped'),
    cleared_references: z.record(z.string(), z.number().int()).describe('`resource.field`: references to records outside a snapshot, cleared'),
    notes: z.array(z.string()),
    outbox_entries: z.number().int().optional().describe('as_changes: the entries of the outbox once the import’s changes are in it'),
    ms: z.number(),
  })
  .meta({ id: 'ImportSummary' });
export type ImportSummary = z.infer<typeof importSummarySchema>;

export const snapshotRequestSchema = z
  .strictObject({
    url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'url should be http:// or https://')
      .optional()
      .describe("the remote platform's base URL"),
    api_key: z.string().min(1).optional(),
    remote_instance_id: uuidSchema.optional().describe('instance on that platform (PgrSelectedInstance)'),
    ca_file: z.string().min(1).optional(),
    pinned_sha256: z.string().min(1).optional(),
    instance: z.string().min(1).optional().describe('a remote instance of the catalog (id or name) to snapshot instead of url + api_key'),
    name: z.string().trim().min(1).max(120).optional().describe('add the snapshot as a local instance of this name'),
    db_file: z.string().min(1).optional().describe('target database (default: beside the main database); an interrupted snapshot there is resumed'),
    per_page: z.number().int().min(1).max(1000).optional(),
  })
  .refine((v) => (v.instance ? !v.url && !v.api_key : !!v.url && !!v.api_key), {
    message: 'give url and api_key, or instance',
    path: ['url'],
  })
  .meta({ id: 'SnapshotRequest' });
export type SnapshotRequest = z.infer<typeof snapshotRequestSchema>;

export const snapshotSummarySchema = z
  .object({
    source: z.string(),
    target: z.string(),
    resumed: z.boolean(),
    pages: z.number().int(),
    counts: z.record(z.string(), z.number().int()).describe('records per resource in the snapshot'),
    status_changes: z.string().describe('copied, or why they could not be'),
    related: z.record(z.string(), z.string()).optional().describe('custom_fields, messages, custom_field_values: copied, or why they could not be'),
    cleared_references: z.record(z.string(), z.number().int()),
    ignored_fields: z.record(z.string(), z.number().int()),
    ms: z.number(),
  })
  .meta({ id: 'SnapshotSummary' });
export type SnapshotSummary = z.infer<typeof snapshotSummarySchema>;

export const JOB_STATES = ['running', 'done', 'failed', 'cancelled'] as const;

export const jobProgressSchema = z.object({
  phase: z.string().describe('reading, indexing, committing; findings, incidents, ... for a snapshot'),
  records: z.number().int(),
  bytes: z.number().int(),
  total_bytes: z.number().int().nullable(),
  rate: z.number().describe('records per second'),
  eta_s: z.number().nullable(),
  file: z.string().nullable(),
});

export const jobSchema = z
  .object({
    id: z.string(),
    type: z.enum(['import', 'snapshot']),
    state: z.enum(JOB_STATES),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    progress: jobProgressSchema,
    summary: z.union([importSummarySchema, snapshotSummarySchema]).nullable(),
    error: transferErrorSchema.nullable(),
    instance: z.object({ id: z.string(), name: z.string() }).nullable().describe('the instance written to, when known'),
  })
  .meta({ id: 'TransferJob' });
export type JobView = z.infer<typeof jobSchema>;
