// A refused import, export or snapshot: what went wrong and where (file, line, column, record,
// field), as one readable line and as structured fields for the console.
import type { TransferErrorView } from '../../src-shared/schemas/transfer';

export interface Where {
  file?: string;
  line?: number;
  column?: number;
  /** Where the record sits in its file: objects[17], [2].data.items[0], line 17. */
  record?: string;
  id?: string;
  field?: string;
}

export class TransferError extends Error {
  constructor(
    readonly reason: string,
    readonly where: Where = {},
    /** The HTTP status a refused request answers: 400 for what was sent, 503 for a busy database. */
    readonly status: number = 400,
  ) {
    super(formatWhere(where) + reason);
    this.name = 'TransferError';
  }

  view(): TransferErrorView {
    return { message: this.message, ...this.where };
  }
}

/** `file:line:column: record objects[3] (id …): field x: ` — the parts that are known. */
export function formatWhere(w: Where): string {
  let s = '';
  if (w.file) {
    s += w.file;
    if (w.line !== undefined) s += `:${w.line}${w.column !== undefined ? `:${w.column}` : ''}`;
    s += ': ';
  } else if (w.line !== undefined) {
    s += `line ${w.line}${w.column !== undefined ? `, column ${w.column}` : ''}: `;
  }
  if (w.record) s += `record ${w.record}${w.id ? ` (id ${w.id})` : ''}: `;
  else if (w.id) s += `record ${w.id}: `;
  if (w.field) s += `field ${w.field}: `;
  return s;
}

/** The import or snapshot was cancelled (the database is left as it was). */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CancelledError();
}
