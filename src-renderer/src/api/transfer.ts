// The console's transfer endpoints: an upload sent as the request body (the File or Blob itself,
// streamed by the browser), the import job watched and cancelled, and an export read as a
// stream with its progress (bytes, and rows against X-Total-Count / X-Export-Rows).
import { jobSchema, type ExportFormat, type ExportRequest, type JobView, type TransferErrorView } from '../../../src-shared/schemas/transfer';
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

/**
 * Counts the records of an export as its bytes arrive: NDJSON lines; JSON lines (the export
 * writes one record per line between a head and a tail line); CSV lines outside quoted cells,
 * less the header row. Works on bytes: '\n' and '"' never occur inside a UTF-8 sequence.
 */
export class RowCounter {
  private lines = 0;
  private quoted = false;
  private last = -1;

  constructor(private readonly format: ExportFormat) {}

  push(bytes: Uint8Array): void {
    if (this.format === 'csv') {
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i]!;
        if (b === 0x22) this.quoted = !this.quoted;
        else if (b === 0x0a && !this.quoted) this.lines++;
      }
    } else {
      for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) this.lines++;
    }
    if (bytes.length) this.last = bytes[bytes.length - 1]!;
  }

  /** Records seen so far (JSON: a record counts once its line has begun). */
  rows(): number {
    switch (this.format) {
      case 'ndjson':
        return this.lines;
      case 'csv':
        return Math.max(0, this.lines - 1);
      case 'json':
        return Math.max(0, this.lines - (this.last === 0x0a ? 2 : 0));
    }
  }
}

export function filenameOf(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/.exec(disposition);
  const name = (plain?.[1] ?? plain?.[2])?.trim();
  return name ? name.replace(/[\\/]/g, '_') : fallback;
}

export interface ExportProgress {
  bytes: number;
  rows: number;
  /** Matches (X-Total-Count). */
  total: number | null;
  /** Rows this export writes (X-Export-Rows): the total, or the page asked for. */
  expected: number | null;
}

export interface ExportResult extends ExportProgress {
  blob: Blob;
  filename: string;
}

/** Streams POST /console/v1/export into a Blob, reporting progress; the signal cancels it. */
export async function downloadExport(api: Api, body: ExportRequest, signal: AbortSignal, onProgress: (p: ExportProgress) => void): Promise<ExportResult> {
  const res = await fetch(`${CONSOLE}/export`, {
    method: 'POST',
    headers: { PgrApiKey: api.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw await failure(res);
  const num = (h: string) => {
    const v = res.headers.get(h);
    return v === null || v === '' || !Number.isFinite(Number(v)) ? null : Number(v);
  };
  const p: ExportProgress = { bytes: 0, rows: 0, total: num('x-total-count'), expected: num('x-export-rows') };
  const filename = filenameOf(res.headers.get('content-disposition'), `${body.resource}.${body.format}`);
  const type = res.headers.get('content-type') ?? 'application/octet-stream';
  onProgress({ ...p });
  const counter = new RowCounter(body.format);
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      counter.push(value);
      p.bytes += value.length;
      p.rows = Math.min(counter.rows(), p.expected ?? Infinity);
      onProgress({ ...p });
    }
  } finally {
    reader.releaseLock();
  }
  p.rows = counter.rows();
  return { ...p, blob: new Blob(chunks, { type }), filename };
}

/** Saves a Blob under a file name (an <a download> link: the browser's or the desktop app's save). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
