// Resolving conflicts per field (keep mine, take theirs, edit) and discarding entries. Nothing
// is lost without the user choosing: "theirs" and "discard" put the origin's or the copied
// value back here and mark the record to be read again from the origin (at once when it is
// reachable, else at the next pull), so the copy ends equal to the origin.
import { ApiError, badRequest } from '../../src-shared/errors';
import { getResource, type ResourceDef } from '../../src-shared/resources/index';
import type { DiscardRequest, ResolveRequest, SyncCounts } from '../../src-shared/schemas/sync';
import { relationIds, REL_PREFIX, storedRecord, type OutboxRow } from '../store/outbox';
import type { Rec } from '../store/store';
import { counts, Ledger, rowsOf } from '../store/outbox-log';
import { madeByChangeOf } from '../store/kinds/index';
import { refreshNow } from './pull';
import type { SyncTarget } from './target';
import { valueKey } from './values';

const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** Writes a field's value here without an outbox entry (a value from the origin or the copy). */
function putBack(t: SyncTarget, r: ResourceDef, id: string, field: string, value: unknown, dropStatusRows = true): void {
  if (field.startsWith(REL_PREFIX)) {
    t.store.update(r, { id, _relations: { [field.slice(REL_PREFIX.length)]: (value as string[]) ?? [] } }, { source: 'origin' });
    return;
  }
  t.store.update(r, { id, ...t.store.parseFieldValues(r, { [field]: value }) }, { source: 'origin' });
  // Rows made here for the changes given up (status-change rows); the origin's come with the record.
  if (dropStatusRows) for (const made of madeByChangeOf(r.name, field)) made.dropLocal(t.db, id);
}

/** Creates a record here again as the origin or the copy had it. */
function recreate(t: SyncTarget, r: ResourceDef, rec: Rec): void {
  const body: Rec = { id: rec.id };
  for (const [name, def] of Object.entries(r.fields)) if (!def.readOnly && rec[name] !== undefined) body[name] = rec[name];
  t.store.create(r, body as { id: string }, { source: 'origin', at: rec.created_at as string | undefined, updatedAt: rec.updated_at as string | undefined });
}

function selected(t: SyncTarget, seqs: readonly number[] | undefined): OutboxRow[] {
  const rows = rowsOf(t.db, seqs ? { seqs } : {});
  if (seqs) {
    const missing = seqs.filter((s) => !rows.some((e) => e.seq === s));
    if (missing.length) throw badRequest(`no outbox entry ${missing.join(', ')}`);
  }
  return rows;
}

export function discard(t: SyncTarget, req: DiscardRequest = {}): { discarded: number; reverted: number; left: SyncCounts } {
  const revert = req.revert !== false;
  let reverted = 0;
  const rows = selected(t, req.entries);
  t.store.tx(() => {
    const ledger = new Ledger(t.db);
    for (const e of rows) {
      ledger.drop(e.seq);
      if (!revert) continue;
      const r = getResource(e.resource);
      try {
        if (e.op === 'update') putBack(t, r, e.record_id, e.field, parse(e.before));
        else if (e.op === 'create') t.store.delete(r, e.record_id, { source: 'origin' });
        else recreate(t, r, parse(e.before) as Rec);
        reverted++;
      } catch (err) {
        // The record is gone here, or what it pointed at: dropped without putting it back.
        if (!(err instanceof ApiError)) throw err;
      }
      if (e.op !== 'create') ledger.stale(e.resource, e.record_id);
    }
  });
  return { discarded: rows.length, reverted, left: counts(t.db) };
}

export interface ResolveAnswer {
  resolved: number;
  left: SyncCounts;
  /** When the origin could not be read at once: the records are read again at the next pull. */
  note?: string;
}

export async function resolve(t: SyncTarget, req: ResolveRequest, opts: { timeoutMs?: number } = {}): Promise<ResolveAnswer> {
  const rows = selected(t, req.entries);
  for (const e of rows) if (e.state !== 'conflict') throw badRequest(`entry ${e.seq} is not a conflict (it is ${e.state})`);
  let refresh = false;
  t.store.tx(() => {
    const ledger = new Ledger(t.db);
    for (const e of rows) {
      const r = getResource(e.resource);
      if (req.take === 'mine') {
        ledger.keepMine(e.seq);
        continue;
      }
      if (req.take === 'edit') {
        if (e.op !== 'update') throw badRequest(`entry ${e.seq}: only a changed field can be edited (this is a ${e.op})`);
        if (valueKey(r, e.field, req.value) === valueKey(r, e.field, parse(e.theirs))) {
          // The edit is the origin's value: taken as theirs.
          putBack(t, r, e.record_id, e.field, req.value);
          ledger.drop(e.seq);
          ledger.stale(e.resource, e.record_id);
          refresh = true;
          continue;
        }
        // Written here, and kept over theirs (even when it is the copy's value).
        putBack(t, r, e.record_id, e.field, req.value, false);
        const now = e.field.startsWith(REL_PREFIX)
          ? relationIds(t.store, r, e.record_id, e.field.slice(REL_PREFIX.length))
          : storedRecord(t.store, r, e.record_id, [e.field])?.[e.field];
        ledger.editMine(e.seq, JSON.stringify(now ?? null));
        continue;
      }
      // theirs
      if (e.op === 'update') putBack(t, r, e.record_id, e.field, parse(e.theirs));
      else if (e.op === 'delete') recreate(t, r, parse(e.theirs) as Rec);
      ledger.drop(e.seq);
      ledger.stale(e.resource, e.record_id);
      refresh = true;
    }
  });
  let note: string | undefined;
  if (refresh) {
    try {
      await refreshNow(t, opts.timeoutMs);
    } catch (e) {
      note = `the origin's records are read again at the next pull: ${(e as Error).message}`;
    }
  }
  return { resolved: rows.length, left: counts(t.db), ...(note ? { note } : {}) };
}
