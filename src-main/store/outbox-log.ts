// The outbox as push, pull, resolution and the console read and change it (outbox.ts records
// the entries as changes are made): counts per state, entries as the console and the command
// line show them (values parsed, the record's label), the batches a push sends, and the
// entries' state changes with the push log (Ledger).
import { getResource, RESOURCES } from '../../src-shared/resources/index';
import type { OutboxEntry, SyncCounts } from '../../src-shared/schemas/sync';
import { nowTs } from '../../src-shared/time';
import type { Db } from './connection';
import type { OutboxRow } from './outbox';
import { q } from './sql';

export function counts(db: Db): SyncCounts {
  const out: SyncCounts = { pending: 0, sending: 0, conflict: 0, failed: 0, total: 0, records: 0 };
  for (const row of db.prepare('SELECT state, COUNT(*) AS n FROM sync_outbox GROUP BY state').all() as { state: keyof SyncCounts; n: number }[]) {
    out[row.state] = row.n;
    out.total += row.n;
  }
  out.records = (db.prepare('SELECT COUNT(*) FROM (SELECT DISTINCT resource, record_id FROM sync_outbox)').pluck().get() as number) ?? 0;
  return out;
}

export interface EntryQuery {
  state?: string;
  resource?: string;
  record_id?: string;
  seqs?: readonly number[];
  limit?: number;
  offset?: number;
}

function where(query: EntryQuery): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (query.state) {
    parts.push('state = ?');
    params.push(query.state);
  }
  if (query.resource) {
    parts.push('resource = ?');
    params.push(query.resource);
  }
  if (query.record_id) {
    parts.push('record_id = ?');
    params.push(query.record_id.toLowerCase());
  }
  if (query.seqs) {
    parts.push('seq IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(query.seqs));
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

export function rowsOf(db: Db, query: EntryQuery = {}): OutboxRow[] {
  const w = where(query);
  const page = query.limit !== undefined ? ` LIMIT ${Math.trunc(query.limit)} OFFSET ${Math.trunc(query.offset ?? 0)}` : '';
  return db.prepare(`SELECT * FROM sync_outbox ${w.sql} ORDER BY seq${page}`).all(...w.params) as OutboxRow[];
}

export function countOf(db: Db, query: EntryQuery = {}): number {
  const w = where(query);
  return db.prepare(`SELECT COUNT(*) FROM sync_outbox ${w.sql}`).pluck().get(...w.params) as number;
}

const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** Entries with their values parsed and the label of their record. */
export function views(db: Db, rows: readonly OutboxRow[]): OutboxEntry[] {
  const labels = new Map<string, string | null>();
  const byResource = new Map<string, string[]>();
  for (const e of rows) {
    if (!RESOURCES.some((r) => r.name === e.resource)) continue;
    const list = byResource.get(e.resource) ?? [];
    list.push(e.record_id);
    byResource.set(e.resource, list);
  }
  for (const [name, ids] of byResource) {
    const r = getResource(name);
    if (!r.fields[r.label]) continue;
    const found = db.prepare(`SELECT id, ${q(r.label)} AS label FROM ${q(r.table)} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify([...new Set(ids)])) as {
      id: string;
      label: unknown;
    }[];
    for (const row of found) labels.set(`${name}:${row.id}`, row.label === null ? null : String(row.label));
  }
  return rows.map((e) => {
    const before = parse(e.before);
    let label = labels.get(`${e.resource}:${e.record_id}`) ?? null;
    if (label === null && e.op === 'delete' && before && typeof before === 'object') {
      const r = RESOURCES.find((x) => x.name === e.resource);
      const v = r ? (before as Record<string, unknown>)[r.label] : undefined;
      label = v === undefined || v === null ? null : String(v);
    }
    return {
      seq: e.seq,
      resource: e.resource,
      record_id: e.record_id,
      label,
      op: e.op,
      field: e.field,
      before,
      after: parse(e.after),
      state: e.state,
      theirs: parse(e.theirs),
      theirs_at: e.theirs_at,
      resolution: e.resolution,
      error: e.error,
      attempts: e.attempts,
      changed_at: e.changed_at,
      user_id: e.user_id,
    };
  });
}

/** Ids of the records of one resource that have entries (the console marks them in lists). */
export function pendingIds(db: Db, resource: string): string[] {
  return db.prepare('SELECT DISTINCT record_id FROM sync_outbox WHERE resource = ?').pluck().all(resource) as string[];
}

/** Entries of these records of one resource, in the order they were made. */
export function entriesOfRecords(db: Db, resource: string, ids: readonly string[]): OutboxRow[] {
  return db.prepare('SELECT * FROM sync_outbox WHERE resource = ? AND record_id IN (SELECT value FROM json_each(?)) ORDER BY seq').all(resource, JSON.stringify(ids)) as OutboxRow[];
}

/** Entries of one record. */
export function entriesOfRecord(db: Db, resource: string, id: string): OutboxRow[] {
  return db.prepare('SELECT * FROM sync_outbox WHERE resource = ? AND record_id = ?').all(resource, id) as OutboxRow[];
}

/** `resource:record_id` of every record of these resources that has entries. */
export function recordsWithEntries(db: Db, resources: readonly string[]): string[] {
  return db.prepare(`SELECT DISTINCT resource || ':' || record_id FROM sync_outbox WHERE resource IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(resources)) as string[];
}

/** Whether a field of a record has an entry (in any state). */
export function hasFieldEntry(db: Db, resource: string, id: string, field: string): boolean {
  return db.prepare('SELECT 1 FROM sync_outbox WHERE resource = ? AND record_id = ? AND field = ?').get(resource, id, field) !== undefined;
}

const ACTIVE = `state IN ('pending', 'sending', 'conflict', 'failed')`;

/** Entries still to be pushed (pending, sending, a conflict or failed), as a push plans what names rows made here. */
export class ActiveEntries {
  private readonly st;

  constructor(db: Db) {
    this.st = {
      field: db.prepare(`SELECT seq, state FROM sync_outbox WHERE resource = ? AND record_id = ? AND field = ? AND ${ACTIVE}`),
      of: db.prepare(`SELECT resource, op, field, after FROM sync_outbox WHERE resource IN (SELECT value FROM json_each(?)) AND ${ACTIVE}`),
    };
  }

  /** The entry of a field of a record, or undefined. */
  ofField(resource: string, id: string, field: string): { seq: number; state: string } | undefined {
    return this.st.field.get(resource, id, field) as { seq: number; state: string } | undefined;
  }

  /** The entries of these resources (what they change and to what). */
  ofResources(resources: readonly string[]): { resource: string; op: string; field: string; after: string | null }[] {
    return this.st.of.all(JSON.stringify(resources)) as { resource: string; op: string; field: string; after: string | null }[];
  }
}

/**
 * The entries a push sends, in order (`after` the last seq of the batch before): pending and
 * sending ones and conflicts resolved as mine; listed ones (`entries`) also when they failed.
 */
export class PushQueue {
  private readonly select;
  readonly total: number;

  constructor(
    db: Db,
    private readonly entries?: readonly number[],
  ) {
    const listed = entries ? ` AND seq IN (SELECT value FROM json_each(?))` : '';
    const states = entries ? `state IN ('pending', 'sending', 'failed') OR (state = 'conflict' AND resolution = 'mine')` : `state IN ('pending', 'sending') OR (state = 'conflict' AND resolution = 'mine')`;
    this.select = db.prepare(`SELECT * FROM sync_outbox WHERE (${states}) AND seq > ?${listed} ORDER BY seq LIMIT ?`);
    this.total = db.prepare(`SELECT COUNT(*) FROM sync_outbox WHERE (${states}) AND seq > ?${listed}`).pluck().get(...(entries ? [0, JSON.stringify(entries)] : [0])) as number;
  }

  batch(after: number, size: number): OutboxRow[] {
    return this.select.all(...(this.entries ? [after, JSON.stringify(this.entries), size] : [after, size])) as OutboxRow[];
  }
}

/** Where a confirmed entry came from, kept in the push log. */
export type ConfirmNote = 'pushed' | 'pushed unlinked' | 'already on the origin' | 'already deleted on the origin';

/**
 * Changes of outbox entries' state, shared by push, pull and resolution. Callers run them in
 * transactions of their own (a batch of a push, a page of a pull).
 */
export class Ledger {
  private readonly st;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      get: p('SELECT * FROM sync_outbox WHERE seq = ?'),
      sending: p(`UPDATE sync_outbox SET state = 'sending', sent = ?, attempts = attempts + 1, sent_at = ?, error = NULL WHERE seq = ?`),
      log: p(
        `INSERT OR REPLACE INTO sync_log (seq, resource, record_id, op, field, before, after, user_id, changed_at, pushed_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      drop: p('DELETE FROM sync_outbox WHERE seq = ?'),
      repend: p(`UPDATE sync_outbox SET before = ?, state = 'pending', sent = NULL, theirs = NULL, theirs_at = NULL, resolution = NULL, error = NULL WHERE seq = ?`),
      conflict: p(`UPDATE sync_outbox SET state = 'conflict', theirs = ?, theirs_at = ?, resolution = NULL, sent = NULL, error = NULL WHERE seq = ?`),
      fail: p(`UPDATE sync_outbox SET state = 'failed', error = ?, sent = NULL WHERE seq = ?`),
      pending: p(`UPDATE sync_outbox SET state = 'pending', sent = NULL WHERE seq = ? AND state = 'sending'`),
      uncertain: p(`UPDATE sync_outbox SET error = ? WHERE seq = ?`),
      keepMine: p(`UPDATE sync_outbox SET state = 'pending', resolution = 'mine', error = NULL WHERE seq = ?`),
      editMine: p(`UPDATE sync_outbox SET after = ?, state = 'pending', resolution = 'mine', error = NULL WHERE seq = ?`),
      stale: p(`INSERT INTO sync_remote (resource, id, updated_at) VALUES (?, ?, '') ON CONFLICT (resource, id) DO UPDATE SET updated_at = ''`),
    };
  }

  get(seq: number): OutboxRow | undefined {
    return this.st.get.get(seq) as OutboxRow | undefined;
  }

  /** Durably records an attempt before it is sent: a resend after a crash is checked first. */
  markSending(e: OutboxRow, sent: string | null): void {
    this.st.sending.run(sent, nowTs(), e.seq);
  }

  /**
   * The origin has the value sent (or had it already): into the log, out of the outbox. An
   * entry changed again meanwhile stays, with the value sent as its new `before`.
   */
  confirm(seq: number, sent: string | null, note: ConfirmNote): void {
    const e = this.get(seq);
    if (!e) return;
    const at = nowTs();
    this.st.log.run(e.seq, e.resource, e.record_id, e.op, e.field, e.before, sent ?? e.after, e.user_id, e.changed_at, at, note);
    if (e.op !== 'update' || e.after === sent || sent === null) this.st.drop.run(e.seq);
    else this.st.repend.run(sent, e.seq);
  }

  conflict(seq: number, theirs: string, theirsAt: string | null): void {
    this.st.conflict.run(theirs, theirsAt, seq);
  }

  fail(seq: number, error: string): void {
    this.st.fail.run(error, seq);
  }

  /** Not sent after all (the run stopped before it, or the origin refused it unseen). */
  unsent(seq: number): void {
    this.st.pending.run(seq);
  }

  /** Sent without an answer: left `sending`, checked on the origin before any resend. */
  uncertain(seq: number, why: string): void {
    this.st.uncertain.run(why, seq);
  }

  /** Not sent in this push, and why (it waits for another change to be pushed first). */
  waits(seq: number, why: string): void {
    this.st.uncertain.run(why, seq);
  }

  /** A conflict resolved with the value made here: pushed again as it is. */
  keepMine(seq: number): void {
    this.st.keepMine.run(seq);
  }

  /** A conflict resolved with an edited value (`after`, as stored in the outbox): pushed as that. */
  editMine(seq: number, after: string): void {
    this.st.editMine.run(after, seq);
  }

  /** Drops an entry without pushing it (discarded, or the origin's value taken). */
  drop(seq: number): void {
    this.st.drop.run(seq);
  }

  /** The record is refreshed from the origin at the next pull (or at once when reachable). */
  stale(resource: string, id: string): void {
    this.st.stale.run(resource, id);
  }
}
