// Download tickets: a link a browser can follow to save an export to disk. A plain link carries
// no credentials, so the console first asks for a ticket (with its key) for one export; the
// ticket then stands in for the credentials on GET /console/v1/export, for that export only,
// once, within EXPORT_TICKET_TTL_MS. Tickets are random (256 bits), kept in this process's
// memory only, looked up by their hash (a lookup takes no time that depends on a secret's
// bytes), and never logged (base.ts masks them in logged URLs). The download each ticket
// starts is followed under a separate id (rows, bytes, done), which needs the credentials.
import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { EXPORT_TICKET_TTL_MS } from '../../src-shared/export-ticket';
import type { DownloadState, ExportDownload, ExportRequest } from '../../src-shared/schemas/transfer';

interface Entry {
  id: string;
  hash: string;
  request: ExportRequest;
  issued: number;
  expires: number;
  state: DownloadState;
  filename: string | null;
  total: number | null;
  expected: number | null;
  rows: number;
  bytes: number;
  started: number | null;
  finished: number | null;
  error: string | null;
  /** Ends the running download (cancel). */
  stop: (() => void) | null;
}

/** Why a ticket was refused (the answer is 401 in each case). */
export type TicketRefusal = 'unknown' | 'used' | 'expired';

/** Finished downloads stay visible this long; then they are forgotten. */
const KEEP_MS = 10 * 60_000;
/** Downloads remembered at most (the oldest finished ones go first). */
const MAX_ENTRIES = 1000;

const hashOf = (ticket: string): string => crypto.createHash('sha256').update(ticket, 'utf8').digest('base64url');
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export class ExportTickets {
  private byHash = new Map<string, Entry>();
  private byId = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = EXPORT_TICKET_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new ticket for `request`: the secret (for the link) and the download's id. */
  issue(request: ExportRequest): { id: string; ticket: string; expiresAt: string } {
    this.prune();
    const ticket = crypto.randomBytes(32).toString('base64url');
    const id = crypto.randomBytes(12).toString('base64url');
    const t = this.now();
    const e: Entry = {
      id,
      hash: hashOf(ticket),
      request,
      issued: t,
      expires: t + this.ttlMs,
      state: 'waiting',
      filename: null,
      total: null,
      expected: null,
      rows: 0,
      bytes: 0,
      started: null,
      finished: null,
      error: null,
      stop: null,
    };
    this.byHash.set(e.hash, e);
    this.byId.set(id, e);
    return { id, ticket, expiresAt: new Date(e.expires).toISOString() };
  }

  /**
   * Takes the ticket: its export, once. A used, expired or unknown ticket is refused; a refused
   * request does not use it up.
   */
  redeem(ticket: string): { ok: true; id: string; request: ExportRequest } | { ok: false; why: TicketRefusal } {
    const e = this.byHash.get(hashOf(ticket));
    if (!e) return { ok: false, why: 'unknown' };
    if (e.state !== 'waiting') return { ok: false, why: e.state === 'expired' ? 'expired' : 'used' };
    if (this.now() > e.expires) {
      e.state = 'expired';
      e.finished = e.expires;
      return { ok: false, why: 'expired' };
    }
    e.state = 'running';
    e.started = this.now();
    return { ok: true, id: e.id, request: e.request };
  }

  /** The download started streaming: its file name, counts and how to stop it. */
  started(id: string, o: { filename: string; total: number; expected: number; stop: () => void }): void {
    const e = this.byId.get(id);
    if (!e) return;
    e.filename = o.filename;
    e.total = o.total;
    e.expected = o.expected;
    e.stop = o.stop;
  }

  progress(id: string, rows: number, bytes: number): void {
    const e = this.byId.get(id);
    if (!e || e.state !== 'running') return;
    e.rows = rows;
    e.bytes = bytes;
  }

  /** The download ended: done, failed (with why) or cancelled. */
  finish(id: string, state: 'done' | 'failed' | 'cancelled', error?: string): void {
    const e = this.byId.get(id);
    if (!e || e.state !== 'running') return;
    e.state = state;
    e.error = error ?? null;
    e.finished = this.now();
    e.stop = null;
  }

  /** Cancels a download: a waiting ticket can no longer be used, a running download is ended. */
  cancel(id: string): ExportDownload | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    if (e.state === 'waiting') {
      e.state = 'cancelled';
      e.finished = this.now();
    } else if (e.state === 'running') {
      const stop = e.stop;
      this.finish(id, 'cancelled');
      stop?.();
    }
    return this.view(id);
  }

  view(id: string): ExportDownload | undefined {
    const e = this.byId.get(id);
    if (!e) return undefined;
    if (e.state === 'waiting' && this.now() > e.expires) {
      e.state = 'expired';
      e.finished = e.expires;
    }
    return {
      id: e.id,
      state: e.state,
      resource: e.request.resource,
      format: e.request.format,
      filename: e.filename,
      total: e.total,
      expected: e.expected,
      rows: e.rows,
      bytes: e.bytes,
      expires_at: new Date(e.expires).toISOString(),
      started_at: iso(e.started),
      finished_at: iso(e.finished),
      error: e.error,
    };
  }

  /** Ends every running download (the server closes). */
  close(): void {
    for (const e of this.byId.values()) if (e.state === 'running') this.cancel(e.id);
  }

  /** Forgets finished and expired downloads after KEEP_MS, and the oldest beyond MAX_ENTRIES. */
  private prune(): void {
    const t = this.now();
    for (const e of this.byId.values()) {
      const end = e.state === 'waiting' ? e.expires : e.finished;
      if (end !== null && e.state !== 'running' && t - end > KEEP_MS) this.forget(e);
    }
    if (this.byId.size < MAX_ENTRIES) return;
    for (const e of [...this.byId.values()].filter((x) => x.state !== 'running' && x.state !== 'waiting').sort((a, b) => a.issued - b.issued)) {
      if (this.byId.size < MAX_ENTRIES) break;
      this.forget(e);
    }
    for (const e of [...this.byId.values()].filter((x) => x.state === 'waiting').sort((a, b) => a.issued - b.issued)) {
      if (this.byId.size < MAX_ENTRIES) break;
      this.forget(e);
    }
  }

  private forget(e: Entry): void {
    this.byId.delete(e.id);
    this.byHash.delete(e.hash);
  }
}

/** `url` with the value of its `ticket` parameter masked (for logs). */
export function maskTicket(url: string): string {
  return url.replace(/([?&]ticket=)[^&#]*/gi, '$1***');
}

/**
 * A GET of the export that carries a ticket: let through without credentials (the handler takes
 * the ticket, or refuses it with 401). Told from the route the request matched.
 */
export function isTicketedExport(req: FastifyRequest): boolean {
  return req.method === 'GET' && req.routeOptions.config?.operationId === 'console.export_link' && typeof (req.query as { ticket?: unknown } | undefined)?.ticket === 'string';
}
