// The console's transfer endpoints: an upload sent as the request body (the File or Blob itself,
// streamed by the browser), the import job watched and cancelled, and an export downloaded by the
// browser through a single-use link, its progress read from the server.
import { jobSchema, type ExportDownload, type ExportRequest, type ExportTicket, type JobView, type TransferErrorView } from '../../../src-shared/schemas/transfer';
import { ApiFailure, MAIN, type Api } from './client';

export const CONSOLE = '/console/v1';

export interface ImportParams {
  /** An existing instance (id); absent: the main one. */
  instance?: string;
  /** Create a new local instance of this name from the upload. */
  newInstance?: string;
  kind?: string;
  filename: string;
  ignoreUnknown?: boolean;
}

export function importQuery(p: ImportParams): string {
  const q = new URLSearchParams();
  if (p.newInstance) q.set('new_instance', p.newInstance);
  else if (p.instance) q.set('instance', p.instance);
  if (p.kind) q.set('kind', p.kind);
  q.set('filename', p.filename);
  if (p.ignoreUnknown) q.set('ignore_unknown', '1');
  return q.toString();
}

async function failure(res: Response): Promise<ApiFailure> {
  let message = `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // not JSON: the status says enough
  }
  return new ApiFailure(res.status, message);
}

const jobIdOf = (location: string | null): string | null => {
  const m = location ? /\/jobs\/([^/?#]+)$/.exec(location) : null;
  return m ? decodeURIComponent(m[1]!) : null;
};

/**
 * Uploads `body` and starts its import job. `onJobId` hears the job's id as soon as the answer's
 * headers arrive (Location), before its body is read, so a cancel in between still finds it.
 */
export async function startImport(api: Api, body: Blob, p: ImportParams, signal: AbortSignal, onJobId?: (id: string) => void): Promise<JobView> {
  const res = await fetch(`${CONSOLE}/import?${importQuery(p)}`, {
    method: 'POST',
    headers: { PgrApiKey: api.apiKey, 'Content-Type': body.type || 'application/octet-stream' },
    body,
    signal,
  });
  const id = jobIdOf(res.headers.get('location'));
  if (id) onJobId?.(id);
  if (!res.ok) throw await failure(res);
  return jobSchema.parse(await res.json());
}

export async function getJob(api: Api, id: string, signal?: AbortSignal): Promise<JobView> {
  return api.op<JobView>(MAIN, 'console.jobs.get', { params: { id }, signal });
}

/** Cancels a job and answers its state once it has stopped (an import has rolled back). */
export async function cancelJob(api: Api, id: string): Promise<JobView> {
  return api.op<JobView>(MAIN, 'console.jobs.cancel', { params: { id } });
}

/**
 * The prefix the server puts before a refusal's reason (`file:line:column: record …: field …: `),
 * so the reason can be shown on its own beside the structured position.
 */
export function wherePrefix(e: TransferErrorView): string {
  let s = '';
  if (e.file) {
    s += e.file;
    if (e.line !== undefined) s += `:${e.line}${e.column !== undefined ? `:${e.column}` : ''}`;
    s += ': ';
  } else if (e.line !== undefined) {
    s += `line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ''}: `;
  }
  if (e.record) s += `record ${e.record}${e.id ? ` (id ${e.id})` : ''}: `;
  else if (e.id) s += `record ${e.id}: `;
  if (e.field) s += `field ${e.field}: `;
  return s;
}

export function reasonOf(e: TransferErrorView): string {
  const prefix = wherePrefix(e);
  return prefix && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

// ------------------------------------------------------------------------------------ export
//
// An export is a real download: the console asks for a single-use link to it (a ticket, with its
// key), then follows the link with a download link, so the browser (or the desktop app) writes the
// file to disk as it streams and the page never holds it. Its progress is read from the server.

/** A single-use link to an export, valid for a minute, and the id that follows its download. */
export async function exportTicket(api: Api, body: ExportRequest, signal?: AbortSignal): Promise<ExportTicket> {
  return api.op<ExportTicket>(MAIN, 'console.export_ticket', { body, signal });
}

export async function exportDownload(api: Api, id: string, signal?: AbortSignal): Promise<ExportDownload> {
  return api.op<ExportDownload>(MAIN, 'console.export_download.get', { params: { id }, signal });
}

/** Ends the download on the server (the browser sees it fail) or voids its unused link. */
export async function cancelDownload(api: Api, id: string): Promise<ExportDownload> {
  return api.op<ExportDownload>(MAIN, 'console.export_download.cancel', { params: { id } });
}

/**
 * Follows a link as a download: the server names the file (Content-Disposition: attachment), the
 * browser saves it to its downloads and the page stays where it is.
 */
export function followDownload(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
}
