// DDL derived from the resource registry: one table per resource, link tables for
// many-to-many relations, indexes, and an FTS5 trigram index per resource kept in step by
// triggers (substring search that folds Cyrillic case as well as Latin).
import { getResource, linkTables, RESOURCES, type FieldDef, type ResourceDef } from '../../src-shared/resources/index';
import { q } from './sql';

export const sqlType = (def: FieldDef): string =>
  def.kind === 'int' || def.kind === 'bool' ? 'INTEGER' : def.kind === 'number' ? 'REAL' : 'TEXT';

/** String fields that virtual_search and substr read through the FTS index. */
export function searchableFields(r: ResourceDef): string[] {
  return Object.entries(r.fields)
    .filter(([, d]) => d.kind === 'string' && d.searchable !== false && !d.secret)
    .map(([n]) => n);
}

export const ftsTable = (r: ResourceDef): string => `${r.table}_fts`;

function columnDdl(name: string, def: FieldDef): string {
  let s = `${q(name)} ${sqlType(def)}`;
  if (def.notNull) s += ' NOT NULL';
  if (def.unique) s += ' UNIQUE';
  if (def.ref) s += ` REFERENCES ${q(getResource(def.ref).table)}(id) ON DELETE ${(def.onDelete ?? 'set null').toUpperCase()}`;
  if (def.kind === 'bool') s += ` CHECK (${q(name)} IN (0, 1))`;
  return s;
}

/** An index column, or a sort key's expression (an index names the table's columns unqualified). */
function indexTerm(r: ResourceDef, name: string): string {
  const key = Object.hasOwn(r.sortKeys ?? {}, name) ? r.sortKeys![name]! : undefined;
  return key ? `(${key.sql.replace(/\bt\./g, '')})` : q(name);
}

export function tableDdl(r: ResourceDef): string[] {
  const t = q(r.table);
  const cols = [
    '_rid INTEGER PRIMARY KEY',
    'id TEXT NOT NULL UNIQUE',
    ...Object.entries(r.fields).map(([n, d]) => columnDdl(n, d)),
    'created_at TEXT NOT NULL',
    'updated_at TEXT NOT NULL',
  ];
  const out = [`CREATE TABLE ${t} (\n  ${cols.join(',\n  ')}\n)`];
  const indexed = new Set<string>();
  const index = (columns: readonly string[]) => {
    const key = columns.join(',');
    if (indexed.has(key)) return;
    indexed.add(key);
    out.push(`CREATE INDEX IF NOT EXISTS ${q(`ix_${r.table}_${columns.join('_')}`)} ON ${t} (${columns.map((c) => indexTerm(r, c)).join(', ')})`);
  };
  for (const [n, d] of Object.entries(r.fields)) if ((d.index || d.ref) && !d.unique && !ledByDeclared(r, n)) index([n]);
  for (const cols of r.indexes ?? []) index(cols);
  const searchable = searchableFields(r);
  if (searchable.length) {
    const fts = q(ftsTable(r));
    const colList = searchable.map(q).join(', ');
    const newVals = searchable.map((c) => `new.${q(c)}`).join(', ');
    const oldVals = searchable.map((c) => `old.${q(c)}`).join(', ');
    out.push(
      `CREATE VIRTUAL TABLE ${fts} USING fts5(${colList}, content=${q(r.table)}, content_rowid='_rid', tokenize='trigram')`,
      `CREATE TRIGGER ${q(`${r.table}_fts_ai`)} AFTER INSERT ON ${t} BEGIN INSERT INTO ${fts}(rowid, ${colList}) VALUES (new._rid, ${newVals}); END`,
      `CREATE TRIGGER ${q(`${r.table}_fts_ad`)} AFTER DELETE ON ${t} BEGIN INSERT INTO ${fts}(${fts}, rowid, ${colList}) VALUES ('delete', old._rid, ${oldVals}); END`,
      `CREATE TRIGGER ${q(`${r.table}_fts_au`)} AFTER UPDATE OF ${colList} ON ${t} BEGIN ` +
        `INSERT INTO ${fts}(${fts}, rowid, ${colList}) VALUES ('delete', old._rid, ${oldVals}); ` +
        `INSERT INTO ${fts}(rowid, ${colList}) VALUES (new._rid, ${newVals}); END`,
    );
  }
  return out;
}

export function linkDdl(): string[] {
  return linkTables().flatMap((l) => [
    `CREATE TABLE ${q(l.table)} (\n  ${q(l.a.col)} TEXT NOT NULL REFERENCES ${q(getResource(l.a.target).table)}(id) ON DELETE CASCADE,\n` +
      `  ${q(l.b.col)} TEXT NOT NULL REFERENCES ${q(getResource(l.b.target).table)}(id) ON DELETE CASCADE,\n` +
      `  PRIMARY KEY (${q(l.a.col)}, ${q(l.b.col)})\n) WITHOUT ROWID`,
    `CREATE INDEX ${q(`ix_${l.table}_${l.b.col}`)} ON ${q(l.table)} (${q(l.b.col)}, ${q(l.a.col)})`,
  ]);
}

/**
 * Whether one of the resource's declared indexes starts with the column: it serves every
 * lookup by that column alone (a reference's delete check, an equality filter), so the
 * column's own index would only cost writes.
 */
function ledByDeclared(r: ResourceDef, column: string): boolean {
  return (r.indexes ?? []).some((cols) => cols.length > 1 && cols[0] === column);
}

/** Single-column indexes of references that a declared index now leads with (to drop). */
export function supersededIndexes(): string[] {
  return RESOURCES.flatMap((r) =>
    Object.entries(r.fields)
      .filter(([n, d]) => (d.index || d.ref) && !d.unique && ledByDeclared(r, n))
      .map(([n]) => `ix_${r.table}_${n}`),
  );
}

/** Every index the registry declares (idempotent), for migrations that add indexes. */
export function registryIndexDdl(): string[] {
  return RESOURCES.flatMap(tableDdl).filter((sql) => sql.startsWith('CREATE INDEX IF NOT EXISTS'));
}

/** The whole schema as the registry declares it today. */
export function registryDdl(): string[] {
  return [...RESOURCES.flatMap(tableDdl), ...linkDdl()];
}
