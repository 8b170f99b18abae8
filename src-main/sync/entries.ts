// Reading the outbox: counts per state, and entries as the console and the command line show
// them (values parsed, the record's label).
import { getResource, RESOURCES } from '../../src-shared/resources/index';
import type { OutboxEntry, SyncCounts } from '../../src-shared/schemas/sync';
import type { Db } from '../store/connection';
import type { OutboxRow } from '../store/outbox';
import { q } from '../store/sql';

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
