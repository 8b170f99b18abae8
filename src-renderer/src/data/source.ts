// Row sources for the virtualized tables: a server-paged list of one instance (pages fetched as
// the viewport asks for them, the newest request first, at most a few at a time), and the merged
// list of several instances (each instance read in its own order and merged k-way, so the merged
// list keeps the common ordering).
import { ApiFailure, isAbort } from '../api/client';
import { i18n } from '../i18n';
import { serverText } from '../i18n/serverText';
import { statusRank } from '../../../src-shared/resources/fields';
import type { Page, Rec } from '../api/radar';
import { PAGE_SIZE, READ_AHEAD } from './paging';

export interface InstanceTag {
  id: string;
  name: string;
}

/** A row of a list: the record and the instance it came from. */
export type Row = Rec & { _instance: InstanceTag };

export interface SourceState {
  /** Number of matching rows; null until the first answer. */
  total: number | null;
  /** Rows the merged list can show so far (equals total for paged lists). */
  reachable: number | null;
  loading: boolean;
  error: Error | null;
  /** Instances that failed (merged lists). */
  failures: { instance: InstanceTag; error: Error }[];
}

export interface RowSource {
  readonly key: string;
  state(): SourceState;
  row(index: number): Row | undefined;
  /** Asks for rows [start, end) (a paged list also reads a little ahead in the scrolling direction). */
  ensure(start: number, end: number): void;
  /** Fetches the wanted rows again, keeping the old ones on screen until the new ones arrive. */
  refresh(): void;
  subscribe(listener: () => void): () => void;
  /** Bumped on every change, for React's useSyncExternalStore. */
  version(): number;
  /**
   * The first row each instance answered for the list's first page (null: the instance has no
   * row), or null while an instance has not answered it or failed.
   */
  heads(): ReadonlyMap<string, Row | null> | null;
  /** Changes rows in hand (a change shown before the server has it); `key` names a row. */
  patch(key: (row: Row) => string, patch: ReadonlyMap<string, Partial<Row>>): void;
  dispose(): void;
}

abstract class Base {
  private listeners = new Set<() => void>();
  private v = 0;
  protected disposed = false;

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  version(): number {
    return this.v;
  }

  protected emit(): void {
    this.v++;
    for (const l of [...this.listeners]) l();
  }

  protected abstract rowLists(): Row[][];

  patch(key: (row: Row) => string, patch: ReadonlyMap<string, Partial<Row>>): void {
    let changed = false;
    for (const rows of this.rowLists()) {
      for (let i = 0; i < rows.length; i++) {
        const p = patch.get(key(rows[i]!));
        if (p) {
          rows[i] = { ...rows[i]!, ...p };
          changed = true;
        }
      }
    }
    if (changed) this.emit();
  }
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** Pages away from the viewport beyond which a request in flight is cancelled. */
const FAR_PAGES = 6;

/** Pages read in one request at most once the list has answered (pages next to each other that are all wanted). */
const MAX_BATCH = 3;

/** A fast scroll reads ahead what it will reach in this long (a page's answer on a busy machine takes some hundreds of ms). */
const LEAD_MS = 2000;
/** Pages read ahead at most, however fast the scroll. */
const MAX_AHEAD = 12;
/** How much of the newest speed counts in the scroll's speed (the rest is the speed so far). */
const SPEED_WEIGHT = 0.5;
/** A pause longer than this starts the scroll's speed again from zero. */
const IDLE_MS = 400;

export type PageFetcher = (offset: number, limit: number, signal: AbortSignal) => Promise<Page>;

export interface PagedOptions {
  pageSize?: number;
  /** Requests in flight at most. */
  concurrency?: number;
  /** Pages kept in memory (the farthest from the viewport are dropped first). */
  maxPages?: number;
  /** Pages read ahead of the viewport in the scrolling direction. */
  ahead?: number;
}

/** One instance's list, paged on the server. */
export class PagedSource extends Base implements RowSource {
  private readonly pageSize: number;
  private readonly concurrency: number;
  private readonly maxPages: number;
  private readonly ahead: number;
  private pages = new Map<number, Row[]>();
  private stale = new Set<number>();
  private inflight = new Map<number, AbortController>();
  private wanted: number[] = [];
  private total: number | null = null;
  private error: Error | null = null;
  private lastStart = 0;
  private lastAt = 0;
  /** The scroll's speed in rows per millisecond (smoothed over the viewport's last moves). */
  private speed = 0;

  constructor(
    readonly key: string,
    private readonly fetchPage: PageFetcher,
    private readonly instance: InstanceTag,
    opts: PagedOptions = {},
  ) {
    super();
    this.pageSize = opts.pageSize ?? PAGE_SIZE;
    this.concurrency = opts.concurrency ?? 3;
    this.maxPages = opts.maxPages ?? 300;
    this.ahead = opts.ahead ?? READ_AHEAD;
  }

  state(): SourceState {
    return { total: this.total, reachable: this.total, loading: this.inflight.size > 0, error: this.error, failures: [] };
  }

  protected rowLists(): Row[][] {
    return [...this.pages.values()];
  }

  row(index: number): Row | undefined {
    return this.pages.get(Math.floor(index / this.pageSize))?.[index % this.pageSize];
  }

  heads(): ReadonlyMap<string, Row | null> | null {
    // Rows being read again (a refresh) are not the list's first rows yet.
    if (this.error || this.total === null || this.stale.has(0) || this.inflight.has(0)) return null;
    if (this.total === 0) return new Map([[this.instance.id, null]]);
    const top = this.row(0);
    return top ? new Map([[this.instance.id, top]]) : null;
  }

  ensure(start: number, end: number): void {
    if (this.disposed) return;
    const s = Math.max(0, start);
    let e = Math.max(s + 1, end);
    if (this.total !== null) e = Math.min(e, this.total);
    const first = Math.floor(s / this.pageSize);
    const last = Math.max(first, Math.ceil(e / this.pageSize) - 1);
    const forward = s >= this.lastStart;
    const ahead = this.aheadFor(s);
    this.lastStart = s;
    const list: number[] = [];
    for (let p = first; p <= last; p++) list.push(p);
    // Pages beyond the viewport in the scrolling direction, fetched after the visible ones: as
    // many as the scroll will reach before a page asked now has answered.
    for (let k = 1; k <= ahead; k++) {
      const extra = forward ? last + k : first - k;
      if (extra >= 0 && (this.total === null || extra * this.pageSize < this.total)) list.push(extra);
    }
    const visible = list.slice(0, last - first + 1);
    this.wanted = forward ? list : [...visible.reverse(), ...list.slice(last - first + 1)];
    // Requests for pages far from the viewport are dropped; near ones are let finish, and so is
    // a read-ahead of a scroll that has slowed down since (it will reach them).
    const far = Math.max(FAR_PAGES, MAX_AHEAD + 1);
    for (const [p, ctl] of this.inflight) {
      if (p < first - far || p > last + far) {
        ctl.abort();
        this.inflight.delete(p);
      }
    }
    this.pump();
  }

  /** Pages to read ahead of a viewport that now starts at `start`: the usual few, more as the scroll goes faster. */
  private aheadFor(start: number): number {
    const now = performance.now();
    const dt = now - this.lastAt;
    if (dt > IDLE_MS) this.speed = 0;
    else if (dt >= 1) this.speed = this.speed * (1 - SPEED_WEIGHT) + (Math.abs(start - this.lastStart) / dt) * SPEED_WEIGHT;
    // (Asked again within the same millisecond: the speed so far.)
    if (dt >= 1) this.lastAt = now;
    return Math.min(MAX_AHEAD, Math.max(this.ahead, Math.ceil((this.speed * LEAD_MS) / this.pageSize)));
  }

  refresh(): void {
    for (const p of this.pages.keys()) this.stale.add(p);
    for (const ctl of this.inflight.values()) ctl.abort();
    this.inflight.clear();
    this.error = null;
    this.pump();
    this.emit();
  }

  private pump(): void {
    // Until the list first answers, only the pages on screen and the ones read ahead of them are
    // asked, in one request: the read-ahead does not compete with the first rows for the server
    // (a second request would go to another reader and count the list again), and no request
    // follows the first page's answer.
    if (this.total === null) {
      if (this.inflight.size > 0) return;
      const run = this.runFrom(this.wanted, 0, Number.POSITIVE_INFINITY);
      if (run.length) this.load(run);
      return;
    }
    for (let i = 0; i < this.wanted.length; i++) {
      if (this.inflight.size >= this.concurrency) break;
      const run = this.runFrom(this.wanted, i, MAX_BATCH);
      if (!run.length) continue;
      this.load(run);
      i += run.length - 1;
    }
  }

  private needs(p: number): boolean {
    return !this.inflight.has(p) && (!this.pages.has(p) || this.stale.has(p));
  }

  /** The pages from wanted[i] on that follow each other in ascending order and all need reading (one request). */
  private runFrom(wanted: readonly number[], i: number, max: number): number[] {
    const run: number[] = [];
    for (let k = i; k < wanted.length && run.length < max; k++) {
      const p = wanted[k]!;
      if (!this.needs(p)) {
        if (run.length) break;
        if (k === i) return run;
        continue;
      }
      if (run.length && p !== run[run.length - 1]! + 1) break;
      run.push(p);
    }
    return run;
  }

  private load(run: number[]): void {
    const ctl = new AbortController();
    const wasLoading = this.inflight.size > 0;
    for (const p of run) this.inflight.set(p, ctl);
    const first = run[0]!;
    this.fetchPage(first * this.pageSize, run.length * this.pageSize, ctl.signal).then(
      (page) => {
        if (this.disposed) return;
        const mine = run.filter((p) => this.inflight.get(p) === ctl);
        if (!mine.length) return;
        for (const p of mine) {
          this.inflight.delete(p);
          const at = (p - first) * this.pageSize;
          this.pages.set(p, page.items.slice(at, at + this.pageSize).map((r) => ({ ...r, _instance: this.instance })));
          this.stale.delete(p);
        }
        this.total = page.total;
        this.error = null;
        this.evict();
        this.pump();
        this.emit();
      },
      (e: unknown) => {
        let dropped = false;
        for (const p of run) {
          if (this.inflight.get(p) === ctl) {
            this.inflight.delete(p);
            dropped = true;
          }
        }
        if (this.disposed) return;
        if (isAbort(e)) {
          // A far page of the request was dropped: the near ones it carried are asked again.
          if (dropped) this.pump();
          return;
        }
        this.error = asError(e);
        this.emit();
      },
    );
    if (!wasLoading) this.emit();
  }

  private evict(): void {
    if (this.pages.size <= this.maxPages) return;
    const centre = Math.floor(this.lastStart / this.pageSize);
    const far = [...this.pages.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
    for (const p of far.slice(0, this.pages.size - this.maxPages)) this.pages.delete(p);
  }

  dispose(): void {
    this.disposed = true;
    for (const ctl of this.inflight.values()) ctl.abort();
    this.inflight.clear();
  }
}

/** A row's value of an ordering key: a sort-only key is derived from the field it ranks. */
const sortValue = (row: Rec, field: string): unknown => (field === 'status_rank' ? statusRank(row.status) : row[field]);

/** How rows compare under an ordering, the way SQLite orders them (NULL first ascending). */
export function compareRows(ordering: readonly { field: string; direction: 'asc' | 'desc' }[]) {
  const cmp = (a: unknown, b: unknown): number => {
    const an = a === null || a === undefined;
    const bn = b === null || b === undefined;
    if (an || bn) return an && bn ? 0 : an ? -1 : 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
    const as = String(a);
    const bs = String(b);
    return as < bs ? -1 : as > bs ? 1 : 0;
  };
  return (x: Rec, y: Rec): number => {
    for (const o of ordering) {
      const c = cmp(sortValue(x, o.field), sortValue(y, o.field));
      if (c !== 0) return o.direction === 'desc' ? -c : c;
    }
    return 0;
  };
}

interface Cursor {
  instance: InstanceTag;
  fetch: PageFetcher;
  buffer: Row[];
  offset: number;
  total: number | null;
  done: boolean;
  error: Error | null;
  pending: Promise<void> | null;
  /** The first row of the instance's list (null: none), once its first chunk has answered. */
  head: Row | null | undefined;
}

/**
 * Several instances' lists merged (the fan-out): each instance is read in chunks from its own
 * cursor, and rows are emitted in the common order while every unfinished instance still has a
 * buffered row to compare. Rows can only be reached in order, so a jump far down loads what
 * lies before it first.
 */
export class MergedSource extends Base implements RowSource {
  private merged: Row[] = [];
  private cursors: Cursor[];
  private want = 0;
  private running = false;
  private ctl = new AbortController();

  constructor(
    readonly key: string,
    parts: { instance: InstanceTag; fetch: PageFetcher }[],
    private readonly compare: (a: Rec, b: Rec) => number,
    private readonly chunk = 200,
  ) {
    super();
    this.cursors = parts.map((p) => ({ ...p, buffer: [], offset: 0, total: null, done: false, error: null, pending: null, head: undefined }));
  }

  state(): SourceState {
    const known = this.cursors.every((c) => c.total !== null || c.error);
    const total = known ? this.cursors.reduce((s, c) => s + (c.error ? 0 : (c.total ?? 0)), 0) : null;
    return {
      total,
      reachable: total === null ? null : this.merged.length + this.cursors.reduce((s, c) => s + (c.error ? 0 : Math.max(0, (c.total ?? 0) - c.offset) + c.buffer.length), 0),
      loading: this.running,
      error: this.cursors.length > 0 && this.cursors.every((c) => c.error) ? this.cursors[0]!.error : null,
      failures: this.cursors.filter((c) => c.error).map((c) => ({ instance: c.instance, error: c.error! })),
    };
  }

  row(index: number): Row | undefined {
    return this.merged[index];
  }

  protected rowLists(): Row[][] {
    return [this.merged, ...this.cursors.map((c) => c.buffer)];
  }

  heads(): ReadonlyMap<string, Row | null> | null {
    if (this.cursors.some((c) => c.error || c.head === undefined)) return null;
    return new Map(this.cursors.map((c) => [c.instance.id, c.head ?? null]));
  }

  ensure(_start: number, end: number): void {
    if (end > this.want) this.want = end + this.chunk;
    void this.run();
  }

  refresh(): void {
    this.ctl.abort();
    this.ctl = new AbortController();
    const keep = this.merged.length;
    this.merged = [];
    for (const c of this.cursors) Object.assign(c, { buffer: [], offset: 0, total: null, done: false, error: null, pending: null, head: undefined });
    this.want = Math.max(this.want, keep);
    this.running = false;
    void this.run();
  }

  private async fill(c: Cursor): Promise<void> {
    const signal = this.ctl.signal;
    try {
      const page = await c.fetch(c.offset, this.chunk, signal);
      if (signal.aborted) return;
      const rows = page.items.map((r) => ({ ...r, _instance: c.instance }));
      if (c.offset === 0) c.head = rows[0] ?? null;
      c.buffer.push(...rows);
      c.offset += page.items.length;
      c.total = page.total;
      if (page.items.length < this.chunk || c.offset >= page.total) c.done = true;
    } catch (e) {
      if (signal.aborted || isAbort(e)) return;
      c.error = asError(e);
      c.done = true;
      c.buffer = [];
    }
  }

  private async run(): Promise<void> {
    if (this.running || this.disposed) return;
    this.running = true;
    this.emit();
    const signal = this.ctl.signal;
    try {
      while (!signal.aborted && this.merged.length < this.want) {
        const empty = this.cursors.filter((c) => !c.done && c.buffer.length === 0);
        if (empty.length) {
          await Promise.all(empty.map((c) => this.fill(c)));
          if (signal.aborted) return;
          continue;
        }
        const live = this.cursors.filter((c) => c.buffer.length > 0);
        if (!live.length) break;
        // Emit while every unfinished instance has a row to compare.
        while (this.merged.length < this.want) {
          let best: Cursor | null = null;
          for (const c of this.cursors) {
            if (c.buffer.length === 0) {
              if (!c.done) {
                best = null;
                break;
              }
              continue;
            }
            if (!best || this.compare(c.buffer[0]!, best.buffer[0]!) < 0) best = c;
          }
          if (!best) break;
          this.merged.push(best.buffer.shift()!);
        }
        this.emit();
      }
    } finally {
      if (!signal.aborted) {
        this.running = false;
        this.emit();
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.ctl.abort();
  }
}

/** Why a call failed, in the user's words: "server not answering", or the HTTP status and the
 * server's error text. Never the transport's own message. */
export function failureText(e: unknown): string {
  if (e instanceof ApiFailure) {
    if (e.status === 0) return i18n.t('errors.unreachable');
    if (e.status === 502) return i18n.t('errors.instanceUnreachable', { error: serverText(i18n.language, e.message) });
    if (e.status === 504) return i18n.t('errors.instanceTimeout');
    return i18n.t('errors.http', { status: e.status, text: serverText(i18n.language, e.message) });
  }
  return e instanceof Error ? e.message : String(e);
}

/** Rows already in hand (a search builder's answer). */
export class StaticSource extends Base implements RowSource {
  constructor(
    readonly key: string,
    private readonly rows: Row[],
    private readonly total: number,
  ) {
    super();
  }

  state(): SourceState {
    return { total: this.total, reachable: this.rows.length, loading: false, error: null, failures: [] };
  }

  protected rowLists(): Row[][] {
    return [this.rows];
  }

  row(index: number): Row | undefined {
    return this.rows[index];
  }

  heads(): null {
    return null;
  }

  ensure(): void {}

  refresh(): void {}

  dispose(): void {}
}
