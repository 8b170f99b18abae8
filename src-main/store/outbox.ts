// The outbox of a snapshot: every change made to a database that has an origin (sync_origin)
// is recorded here by the store's write path, in the transaction of the change itself, so a
// change and its entry are written together or not at all.
//
// One entry per record and field (field '' for a record created or deleted here). A second
// change of the same field collapses into the entry (the first `before`, the last `after`);
// a change back to `before` removes the entry. Changes of a record created here update the
// create entry's record. Deleting a record created here removes its entries; deleting a copied
// record replaces its field entries with one delete entry holding the record as copied.
// Who is writing decides (api.ts `recordsChanges`): writes from the origin (snapshot, pull,
// "take theirs", discard) and the seed record nothing; an import records only when asked to
// (`import --as-changes`: its records created or changed, through OutboxBatch at commit).
import { getResource, type ResourceDef } from '../../src-shared/resources/index';
import { nowTs } from '../../src-shared/time';
import { decodeValue } from './codec';
import { recordsChanges, type WriteContext } from './api';
import { q } from './sql';
import type { Rec } from './api';
import type { Statements } from './statements';

export type ChangeOp = 'create' | 'update' | 'delete';
export type EntryState = 'pending' | 'sending' | 'conflict' | 'failed';

/** A relation's id list is recorded as the field `_relations.<name>`. */
export const REL_PREFIX = '_relations.';

/** The outbox row as stored (values as JSON text). */
export interface OutboxRow {
  seq: number;
  resource: string;
  record_id: string;
  op: ChangeOp;
  field: string;
  before: string | null;
  after: string | null;
  state: EntryState;
  theirs: string | null;
  theirs_at: string | null;
  resolution: 'mine' | null;
  error: string | null;
  attempts: number;
  /** The value of the last attempt to send this entry (JSON), kept until it is confirmed. */
  sent: string | null;
  first_at: string;
  changed_at: string;
  user_id: string | null;
  sent_at: string | null;
}

/** Whether changes to this database are recorded: it is a snapshot with an origin. */
export function isTracked(store: Statements): boolean {
  return !!store.get1('SELECT 1 AS x FROM sync_origin WHERE id = 1');
}

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

/** The stored fields of a record, decoded, secrets included (they are pushed as stored). */
export function storedRecord(store: Statements, r: ResourceDef, id: string, fields: readonly string[] = Object.keys(r.fields)): Rec | undefined {
  const names = fields.filter((n) => r.fields[n]);
  const row = store.get1(`SELECT ${['id', ...names, 'created_at', 'updated_at'].map(q).join(', ')} FROM ${q(r.table)} WHERE id = ?`, [id]);
  if (!row) return undefined;
  const out: Rec = { id: row.id, created_at: row.created_at, updated_at: row.updated_at };
  for (const n of names) out[n] = decodeValue(r.fields[n]!.kind, row[n]);
  return out;
}

/** Ids linked to a record through a has-many or many-to-many relation, sorted. */
export function relationIds(store: Statements, r: ResourceDef, id: string, name: string): string[] {
  const rel = r.relations?.[name];
  if (!rel || rel.kind === 'belongsTo') return [];
  const rows =
    rel.kind === 'hasMany'
      ? store.all<{ i: string }>(`SELECT id AS i FROM ${q(getResource(rel.target).table)} WHERE ${q(rel.fk)} = ?`, [id])
      : store.all<{ i: string }>(`SELECT ${q(rel.other)} AS i FROM ${q(rel.link)} WHERE ${q(rel.self)} = ?`, [id]);
  return rows.map((x) => x.i).sort();
}

function snapshotOf(store: Statements, r: ResourceDef, id: string, fields: readonly string[], relations: readonly string[]): Map<string, unknown> | null {
  const rec = storedRecord(store, r, id, fields);
  if (!rec) return null;
  const m = new Map<string, unknown>();
  for (const f of fields) m.set(f, rec[f] ?? null);
  for (const name of relations) m.set(REL_PREFIX + name, relationIds(store, r, id, name));
  return m;
}

export interface TrackedChange {
  /** Records the change; called after the write, inside its transaction. */
  done(): void;
}

/**
 * Starts recording a change of `id` (before the write, so the values before it are read), or
 * answers null when this database records no changes or the write comes from the origin.
 * `fields` are the fields the write sets (as asked, before derived ones are added), `relations`
 * the link lists it sets.
 */
export function beginChange(
  store: Statements,
  r: ResourceDef,
  op: ChangeOp,
  id: string,
  ctx: WriteContext,
  fields: readonly string[] = [],
  relations: readonly string[] = [],
): TrackedChange | null {
  if (!recordsChanges(ctx) || !isTracked(store)) return null;
  const at = nowTs();
  const user = ctx.userId ?? null;
  if (op === 'create') {
    return {
      done() {
        const rec = storedRecord(store, r, id)!;
        const rels: Record<string, string[]> = {};
        for (const name of relations) rels[name] = relationIds(store, r, id, name);
        if (relations.length) rec._relations = rels;
        // A record created, deleted and created again here: one create entry.
        store.run(`DELETE FROM sync_outbox WHERE resource = ? AND record_id = ? AND state <> 'sending'`, [r.name, id]);
        store.run(
          `INSERT INTO sync_outbox (resource, record_id, op, field, before, after, first_at, changed_at, user_id) VALUES (?, ?, 'create', '', NULL, ?, ?, ?, ?)
           ON CONFLICT (resource, record_id, field) DO UPDATE SET op = 'create', after = excluded.after, changed_at = excluded.changed_at, user_id = excluded.user_id`,
          [r.name, id, json(rec), at, at, user],
        );
      },
    };
  }
  if (op === 'delete') {
    return {
      done() {
        const rec = storedRecord(store, r, id);
        if (!rec) return;
        const entries = store.all<OutboxRow>(`SELECT * FROM sync_outbox WHERE resource = ? AND record_id = ?`, [r.name, id]);
        const create = entries.find((e) => e.op === 'create' && e.state !== 'sending');
        // Back to the record as copied: each changed field's first value.
        for (const e of entries) {
          if (e.op === 'update' && e.state !== 'sending' && !e.field.startsWith(REL_PREFIX)) rec[e.field] = JSON.parse(e.before ?? 'null');
        }
        store.run(`DELETE FROM sync_outbox WHERE resource = ? AND record_id = ? AND state <> 'sending'`, [r.name, id]);
        if (create) return; // created and deleted here: nothing to push
        store.run(
          `INSERT INTO sync_outbox (resource, record_id, op, field, before, after, first_at, changed_at, user_id) VALUES (?, ?, 'delete', '', ?, NULL, ?, ?, ?)
           ON CONFLICT (resource, record_id, field) DO UPDATE SET op = 'delete', before = excluded.before, after = NULL, changed_at = excluded.changed_at, user_id = excluded.user_id`,
          [r.name, id, json(rec), at, at, user],
        );
      },
    };
  }
  const before = snapshotOf(store, r, id, fields, relations);
  if (!before) return null;
  return {
    done() {
      const after = snapshotOf(store, r, id, fields, relations)!;
      const entries = new Map(store.all<OutboxRow>(`SELECT * FROM sync_outbox WHERE resource = ? AND record_id = ?`, [r.name, id]).map((e) => [e.field, e]));
      const create = entries.get('');
      if (create && create.op === 'create' && create.state !== 'sending') {
        // Created here and not sent yet: the create entry carries the record as it is now.
        const rec = JSON.parse(create.after ?? '{}') as Rec;
        for (const [k, v] of after) {
          if (k.startsWith(REL_PREFIX)) ((rec._relations ??= {}) as Record<string, unknown>)[k.slice(REL_PREFIX.length)] = v;
          else rec[k] = v;
        }
        store.run(`UPDATE sync_outbox SET after = ?, changed_at = ?, user_id = ? WHERE seq = ?`, [json(rec), at, user, create.seq]);
        return;
      }
      for (const [field, value] of after) {
        const was = json(before.get(field));
        const now = json(value);
        const e = entries.get(field);
        if (!e) {
          if (was !== now) {
            store.run(
              `INSERT INTO sync_outbox (resource, record_id, op, field, before, after, first_at, changed_at, user_id) VALUES (?, ?, 'update', ?, ?, ?, ?, ?, ?)`,
              [r.name, id, field, was, now, at, at, user],
            );
          }
          continue;
        }
        if (e.after === now) continue;
        if (e.before === now && e.state !== 'sending') {
          // Back to the value before the first change: nothing left to push.
          store.run(`DELETE FROM sync_outbox WHERE seq = ?`, [e.seq]);
          continue;
        }
        // A failed entry changed again is tried again; a conflict stays one until resolved.
        store.run(
          `UPDATE sync_outbox SET after = ?, changed_at = ?, user_id = ?,
             state = CASE state WHEN 'failed' THEN 'pending' ELSE state END,
             error = CASE state WHEN 'failed' THEN NULL ELSE error END
           WHERE seq = ?`,
          [now, at, user, e.seq],
        );
      }
    },
  };
}

/** Records the deletion of every listed record (a delete by filter), before it happens. */
export function trackDeletes(store: Statements, r: ResourceDef, ids: () => readonly string[], ctx: WriteContext): void {
  if (!recordsChanges(ctx) || !isTracked(store)) return;
  for (const id of ids()) beginChange(store, r, 'delete', id, ctx)?.done();
}

/**
 * The outbox entries of a bulk write that records its changes (an import into a snapshot with
 * `record`): the values before are read at a record's first write, the entries written once,
 * just before the commit, from the records as they are then.
 */
export class OutboxBatch {
  /** Records that existed before the batch, their values before it taken. */
  private readonly updates = new Map<string, TrackedChange>();
  /** Records the batch created, with the link lists it set on them. */
  private readonly creates = new Map<string, { r: ResourceDef; id: string; relations: Set<string> }>();

  constructor(
    private readonly store: Statements,
    private readonly ctx: WriteContext,
  ) {}

  /** A record the batch inserted. */
  created(r: ResourceDef, id: string): void {
    this.creates.set(`${r.name}:${id}`, { r, id, relations: new Set() });
  }

  /**
   * Before a record's write by the batch: the values of a record that existed before it are
   * taken at the first (the fields written, or all and every link list when `relation` is set).
   */
  changing(r: ResourceDef, id: string, columns: readonly string[], relation?: string): void {
    const key = `${r.name}:${id}`;
    const created = this.creates.get(key);
    if (created) {
      if (relation) created.relations.add(relation);
      return;
    }
    if (this.updates.has(key)) return;
    const fields = columns.filter((n) => r.fields[n] && n !== 'updated_at' && n !== 'created_at');
    // All the record's link lists: a later link list of the same record is then compared too.
    const relations = Object.entries(r.relations ?? {})
      .filter(([, rel]) => rel.kind === 'manyToMany')
      .map(([n]) => n);
    const change = beginChange(this.store, r, 'update', id, this.ctx, relation ? Object.keys(r.fields) : fields, relations);
    if (change) this.updates.set(key, change);
  }

  /** Writes the entries of every record created or changed, as they are now; answers the outbox's size. */
  done(): number {
    for (const change of this.updates.values()) change.done();
    for (const { r, id, relations } of this.creates.values()) beginChange(this.store, r, 'create', id, this.ctx, [], [...relations])?.done();
    this.updates.clear();
    this.creates.clear();
    return (this.store.get1<{ n: number }>('SELECT COUNT(*) AS n FROM sync_outbox') ?? { n: 0 }).n;
  }
}
