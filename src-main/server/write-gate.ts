// How the server keeps writes apart. Every write a request makes runs synchronously on the
// server's one connection to its database, within one turn of the event loop: two requests'
// writes never interleave, and each is its own transaction. A change over a whole query
// (routes/incident-bulk.ts) is one transaction that lasts many turns, because it yields between
// steps so that its progress and its cancel are answered. It runs on a connection of its own
// holding SQLite's write lock; a request writing meanwhile would meet that lock (a synchronous
// wait on the server's thread, then 503). So the change holds this gate, and while it does every
// request that may write waits here, in arrival order, and runs once the change has committed or
// rolled back: it is neither refused, nor written into the change's transaction (where a cancel
// would take it back). Reads do not wait: they see the data as last committed.
//
// One gate for the process (every local instance): a change over a query on one database holds
// up writes to the others for its length, which keeps the rule simple and the waits short.

import { namedOperations, VENDOR_ALIAS } from '../../src-shared/contract/index';

/**
 * Operations that do not write though their method is not GET (searches, groupings), or that
 * must answer while a change runs.
 */
const NOT_WRITING =
  /^.*\.(search|group|meta)$|^console\.(route\.|jobs\.(get|list|cancel)$|export|instances\.(test|health|list)$|incidents\.bulk\.(get|cancel)$|compliance\.(tsvector|tsquery|match|check)$)/;

let named: ReadonlySet<string> | undefined;

/**
 * The spec's named endpoints (and their vendor aliases): a record kind's own code, which may write
 * whatever the operation is called (the correlation rules' searches clear the rules' reload flag).
 */
function isNamed(operationId: string): boolean {
  named ??= new Set(Object.values(namedOperations()).flatMap((op) => [op.operationId, op.operationId.replace(VENDOR_ALIAS.ours, VENDOR_ALIAS.vendor)]));
  return named.has(operationId);
}

/** Whether a request of this operation may write (and so waits while a change over a query runs). */
export const mayWrite = (method: string, operationId: string): boolean =>
  method !== 'GET' && method !== 'HEAD' && (isNamed(operationId) || !NOT_WRITING.test(operationId));

class WriteGate {
  private holder: { released: Promise<void>; release: () => void } | null = null;

  get held(): boolean {
    return this.holder !== null;
  }

  /** Takes the gate (it must be free: take it right after `free()`, in the same turn); answers its release. */
  hold(): () => void {
    if (this.holder) throw new Error('the write gate is held');
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const holder = { released, release };
    this.holder = holder;
    return () => {
      if (this.holder !== holder) return;
      this.holder = null;
      release();
    };
  }

  /** Resolves when the gate is free (again: a waiter released with others checks it once more). */
  async free(): Promise<void> {
    while (this.holder) await this.holder.released;
  }
}

export const writeGate = new WriteGate();
