// Changes of outbox entries' state, shared by push, pull and resolution. Callers run them in
// transactions of their own (a batch of a push, a page of a pull).
import { nowTs } from '../../src-shared/time';
import type { Db } from '../store/connection';
import type { OutboxRow } from '../store/outbox';

/** Where a confirmed entry came from, kept in the push log. */
export type ConfirmNote = 'pushed' | 'pushed unlinked' | 'already on the origin' | 'already deleted on the origin';

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
      stale: p(`INSERT INTO sync_remote (resource, id, updated_at) VALUES (?, ?, '') ON CONFLICT (resource, id) DO UPDATE SET updated_at = ''`),
      localStatusRows: p(
        // Row by row against the copied versions' key (a NOT IN list of every copied row would be
        // built again for each incident: quadratic in a pull of many status changes).
        `DELETE FROM service_asset_finding_status_changes WHERE service_asset_finding_id = ?
           AND NOT EXISTS (SELECT 1 FROM sync_remote r WHERE r.resource = 'service_asset_finding_status_changes' AND r.id = service_asset_finding_status_changes.id)`,
      ),
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

  /** Drops an entry without pushing it (discarded, or the origin's value taken). */
  drop(seq: number): void {
    this.st.drop.run(seq);
  }

  /** The record is refreshed from the origin at the next pull (or at once when reachable). */
  stale(resource: string, id: string): void {
    this.st.stale.run(resource, id);
  }

  /** Status-change rows made here for an incident, which the origin's own rows (pulled) replace. */
  dropLocalStatusRows(incidentId: string): void {
    this.st.localStatusRows.run(incidentId);
  }
}
