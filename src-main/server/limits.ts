// What one request may take: body sizes, bodies read at once, nesting, time. Each limit is
// refused with its own status in the error shape (README, "Limits").
import { MAX_JSON_DEPTH } from '../../src-shared/json';
import { EXPORT_TICKET_TTL_MS } from '../../src-shared/export-ticket';

export interface Limits {
  /** Largest request body parsed in memory (JSON bodies, the routing port), in bytes: 413 above. */
  bodyBytes: number;
  /** Largest upload to POST /console/v1/import (streamed to a temporary file), in bytes: 413 above. */
  importBytes: number;
  /**
   * Bytes of request bodies read and handled at once, per port. A body that would go past it
   * waits (its socket is not read) until earlier ones are answered, so memory stays bounded
   * however many large bodies arrive together. At least bodyBytes.
   */
  bodiesInFlightBytes: number;
  /** Time allowed to receive a whole request (headers and body), in ms: 408 after it. */
  requestTimeoutMs: number;
  /** Time allowed to receive the headers, in ms: 408 after it. */
  headersTimeoutMs: number;
  /** How long a download ticket (POST /console/v1/export/tickets) can be used, in ms: 401 after it. */
  exportTicketMs: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 32 * MiB,
  importBytes: 8 * 1024 * MiB,
  bodiesInFlightBytes: 32 * MiB,
  requestTimeoutMs: 10 * 60_000,
  headersTimeoutMs: 60_000,
  exportTicketMs: EXPORT_TICKET_TTL_MS,
};

/** Node's own bound on the request line and headers together (HTTP 431 above it). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Longest path parameter (an id), in characters: 414 above. */
export const MAX_PARAM_LENGTH = 500;
export { MAX_JSON_DEPTH };

export function resolveLimits(over: Partial<Limits> = {}): Limits {
  const l = { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(over).filter(([, v]) => v !== undefined)) } as Limits;
  for (const [k, v] of Object.entries(l)) {
    if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`limit ${k} must be a positive integer, got ${String(v)}`);
  }
  l.bodiesInFlightBytes = Math.max(l.bodiesInFlightBytes, l.bodyBytes);
  return l;
}

/**
 * A byte budget handed out first come, first served: `acquire(n)` resolves once n bytes are
 * free and no earlier caller is still waiting.
 */
export class ByteBudget {
  private free: number;
  private readonly waiting: { n: number; go: () => void }[] = [];

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  acquire(n: number): Promise<void> | undefined {
    const want = Math.min(n, this.capacity);
    if (!this.waiting.length && want <= this.free) {
      this.free -= want;
      return undefined;
    }
    return new Promise((go) => this.waiting.push({ n: want, go }));
  }

  release(n: number): void {
    this.free = Math.min(this.capacity, this.free + Math.min(n, this.capacity));
    while (this.waiting.length && this.waiting[0]!.n <= this.free) {
      const next = this.waiting.shift()!;
      this.free -= next.n;
      next.go();
    }
  }

  /** Bytes handed out now (for tests and diagnostics). */
  get inUse(): number {
    return this.capacity - this.free;
  }
}
