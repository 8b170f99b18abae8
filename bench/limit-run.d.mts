import type Database from 'better-sqlite3';

export interface LimitField {
  name: string;
  kind: string;
  secret?: boolean;
}

export interface LimitSpec {
  ids: { sql: string; params: unknown[] };
  /** The selected columns of a JSON array of row ids. */
  rows: string;
  count: { sql: string; params: unknown[] };
  fields: LimitField[];
  rels: { name: string; kind: 'belongsTo' | 'hasMany' | 'manyToMany'; fk?: string; sql: string; fields: LimitField[] }[];
  shape: 'items' | 'objects';
  link?: { prefix: string; suffix: string };
}

export interface LimitQuery {
  run(link?: { prefix: string; suffix: string }): string;
  page(): Record<string, unknown>[];
  count(): number;
}

export function prepareLimit(db: Database.Database, spec: LimitSpec): LimitQuery;
