// Types of the store's write path: who is writing, and what a write may ask of it.

export type Rec = Record<string, unknown>;

/**
 * Who is writing, read by the one write path:
 * - `client`: a request of the API or the console (kind effects run; the outbox records it);
 * - `seed`: the demo data (kind effects run; nothing is recorded);
 * - `import`: records read from files (the file carries its derived rows: no kind effects;
 *   recorded in a snapshot's outbox only when the import asks for it, `record`);
 * - `origin`: records as the origin of a snapshot has them (snapshot, pull, take theirs,
 *   discard): no kind effects, never recorded as a change to push.
 */
export type WriteSource = 'client' | 'import' | 'origin' | 'seed';

export interface WriteContext {
  /** The user making the change (Pgr-User-Id or the token's subject). */
  userId?: string;
  /** Who is writing (default `client`). */
  source?: WriteSource;
  /** An import into a snapshot recording its changes to push (`import --as-changes`). */
  record?: boolean;
  /** Rows the path derived from the write (a status-change row), appended as they are made. */
  made?: { resource: string; id: string }[];
}

/** Options of one write. */
export interface WriteOptions extends WriteContext {
  /** created_at / updated_at to store instead of now. */
  at?: string;
  /** updated_at to store on create when it differs from created_at (imports, /data/v1/create). */
  updatedAt?: string;
  /**
   * Read-only fields the server itself sets with the write (an action's author, an agent's
   * configuration version): stored as given, not part of the change a client asked for.
   */
  serverSet?: Rec;
  /** false: updated_at is kept as it is (a flag the server clears after a read). */
  touch?: boolean;
}

/** Whether a write of this source runs the kinds' effects (rows derived from the write). */
export const runsEffects = (ctx: WriteContext): boolean => ctx.source !== 'origin' && ctx.source !== 'import';

/** Whether a write of this source is a change to record in a snapshot's outbox. */
export const recordsChanges = (ctx: WriteContext): boolean =>
  ctx.source === undefined || ctx.source === 'client' || (ctx.source === 'import' && !!ctx.record);
