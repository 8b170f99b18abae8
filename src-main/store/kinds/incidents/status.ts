// An incident's status change with its reason, as one operation: the status is set (which makes
// the status-change row, see hooks.ts) and the reason is kept as a message linked to that row,
// in the same transaction, with a savepoint per incident. In a snapshot the outbox entries (the
// incident's status, the message) are written in that transaction too.
import { ApiError, MASS } from '../../../../src-shared/errors';
import type { IncidentStatus } from '../../../../src-shared/resources/fields';
import { getResource } from '../../../../src-shared/resources/index';
import { K } from '../../../../src-shared/resources/kinds';
import { isBusy } from '../../db';
import type { WriteContext } from '../../api';
import type { Store } from '../../store';

export interface StatusNote {
  subject: string;
  body: string;
}

export interface StatusChangeResult {
  id: string;
  /** 0, or the mass operations' code: 11003 no such incident, 11002 the write failed. */
  error_code: number;
  /** The status-change row this change made; null when the status was already the one asked for. */
  status_change_id: string | null;
  /** The message holding the reason; null without a note. */
  message_id: string | null;
}

export interface StatusChangeAnswer {
  results: StatusChangeResult[];
  /** Incidents whose status changed. */
  changed: number;
}

export interface StatusChangeOptions {
  note?: StatusNote;
  /** The message's sender (default: the user making the change). */
  senderId?: string | null;
}

const STATUS_CHANGES = K.statusChange;

/**
 * Sets `status` on each incident and keeps `note` as a message linked to the status-change row
 * the change made. Each incident stands or falls alone (its status and its message together);
 * a status already set makes no row, and the note is still kept, unlinked.
 */
export function changeStatus(store: Store, ids: readonly string[], status: IncidentStatus, o: StatusChangeOptions, ctx: WriteContext): StatusChangeAnswer {
  const incidents = getResource(K.incident);
  const notes = getResource(K.message);
  let changed = 0;
  const results = store.tx(() =>
    ids.map((rawId): StatusChangeResult => {
      const id = rawId.toLowerCase();
      const made: NonNullable<WriteContext['made']> = [];
      try {
        return store.tx(() => {
          store.update(incidents, { id, status }, { ...ctx, made });
          const row = made.find((m) => m.resource === STATUS_CHANGES)?.id ?? null;
          let messageId: string | null = null;
          if (o.note) {
            const msg = store.create(
              notes,
              {
                subject: o.note.subject,
                body: o.note.body,
                service_asset_finding_id: id,
                service_asset_finding_status_change_id: row,
                automated: false,
                sender_id: o.senderId === undefined ? (ctx.userId ?? null) : o.senderId,
              },
              ctx,
            );
            messageId = msg.id as string;
          }
          if (row) changed++;
          return { id, error_code: MASS.ok, status_change_id: row, message_id: messageId };
        });
      } catch (e) {
        if (isBusy(e)) throw e; // the database, not this incident: the whole request is refused (503)
        const code = e instanceof ApiError && e.status === 404 ? MASS.nothingAffected : MASS.storage;
        return { id, error_code: code, status_change_id: null, message_id: null };
      }
    }),
  );
  return { results, changed };
}
