// What SQLite's constraint errors mean for a record, read in one place: the API answers them
// as 409/400 errors in the spec's shape, the bulk writes (import, snapshot, pull) as refusals
// naming the record and field.
import { ApiError, badRequest, conflict, ERR } from '../../../src-shared/errors';
import type { ResourceDef } from '../../../src-shared/resources/index';

export interface Violation {
  kind: 'unique' | 'notNull' | 'foreignKey' | 'other';
  /** The columns named by SQLite (the first is the one reported). */
  fields: string[];
  /** SQLite's own text. */
  message: string;
}

const columnsOf = (list: string): string[] =>
  list
    .split(',')
    .map((s) => s.trim().split('.').pop()!)
    .filter(Boolean);

/** A constraint error of SQLite as a violation, or null for any other error. */
export function parseConstraint(e: unknown): Violation | null {
  const err = e as { code?: string; message?: string };
  const code = err.code ?? '';
  const message = err.message ?? '';
  if (!code.startsWith('SQLITE_CONSTRAINT')) return null;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const fields = columnsOf(/UNIQUE constraint failed: (.+)$/.exec(message)?.[1] ?? '');
    return { kind: 'unique', fields: fields.length ? fields : ['id'], message };
  }
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') {
    return { kind: 'notNull', fields: columnsOf(/NOT NULL constraint failed: ([^\s]+)/.exec(message)?.[1] ?? ''), message };
  }
  // SQLite reports a blocked ON DELETE RESTRICT as a trigger constraint.
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || (code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY constraint failed/.test(message))) {
    return { kind: 'foreignKey', fields: [], message };
  }
  return { kind: 'other', fields: [], message };
}

/** The API's answer to a violation by a write of `r`, or null when it has none (answered as it is). */
export function apiErrorOf(r: ResourceDef, v: Violation): ApiError | null {
  switch (v.kind) {
    case 'unique':
      return conflict(`${v.fields[0]}_already_used`, v.fields);
    case 'foreignKey':
      return new ApiError(409, ERR.relatedData, { fields: [r.name] });
    case 'notNull':
      return v.fields[0] ? badRequest(`${v.fields[0]} is required`) : null;
    default:
      return null;
  }
}

/** The API error for a failed write of `r` (a violation answered in the spec's shape), else e itself. */
export function asApiError(r: ResourceDef, e: unknown): unknown {
  const v = parseConstraint(e);
  return (v && apiErrorOf(r, v)) ?? e;
}

export const isForeignKeyError = (e: unknown): boolean => parseConstraint(e)?.kind === 'foreignKey';
