// `export`: any list or search result, in the API's own filters, streamed from a read
// transaction of its own (one consistent snapshot, constant memory, never blocking the
// server's connection) to JSON in the API's shape, NDJSON or CSV.
//
//   v2 search request (search)        -> {"items":[...],"total":N}   records as <resource>/search answers them
//   public standard filters (query)   -> {"objects":[...],"total":N} records as the public list answers them
//
// Without a limit (search) or page/per_page (query) every match is exported; `total` is the
// number of matches, counted first. JSON is written one record per line, so a text editor and
// the importer both report useful line numbers.
//
// CSV: a header row of the columns (the fields' API names, or the console's column names in
// English or Russian); null is an empty cell and the empty string "" (so an import tells them
// apart); booleans are true / false; numbers as JSON writes them; objects and arrays (json
// fields, loaded relations, _relations) as compact JSON text in one cell; a text cell starting
// with = + - @ or a tab (after any apostrophes) is prefixed with ' so that spreadsheets do not
// run it as a formula; UTF-8 with a byte-order mark unless bom is false. The import (csv.ts)
// reads all of it back to equal records.
import { stringify as csvStringify } from 'csv-stringify/sync';
import type { CsvHeaders } from '../../src-shared/choices';
import { badRequest } from '../../src-shared/errors';
import { PUBLIC_ENTITIES, publicResource, type PublicEntity } from '../../src-shared/public/entities';
import { parseStandardQuery, StandardQueryError } from '../../src-shared/public/standard-filters';
import { fieldOf, getResource, type FieldInfo, type ResourceDef } from '../../src-shared/resources/index';
import { nameColumns, WITH_NAMES, withNameFields, type NameColumn } from '../../src-shared/resources/names';
import { emptySearch, type SearchRequest } from '../../src-shared/schemas/search';
import type { ExportFormat, ExportSearch } from '../../src-shared/schemas/transfer';
import { compileStandardQuery } from '../store/query/standard';
import { decodeRow } from '../store/codec';
import { compileSearchPlan, type Plan as QueryPlan } from '../store/query/plan';
import { Runner } from '../store/query/runner';
import type { ReferenceReport, Stream } from '../store/query/stream';
import { CancelledError } from './errors';
import { headerOf } from './headers';
import { kindByName } from './kinds';

export interface ExportSpec {
  /** A resource (service_asset_findings), or a public list (incidents, findings, serviceAssets). */
  resource: string;
  format: ExportFormat;
  /** v2 search request: answers {items,total}. */
  search?: ExportSearch;
  /** Public standard filters as a query string: answers {objects,total}. */
  query?: string;
  columns?: readonly string[];
  delimiter?: string;
  bom?: boolean;
  /** CSV: the header row's names (default: the fields' API names). */
  headers?: CsvHeaders;
  /** Base URL for the public records' front_link (omitted without one). */
  frontLinkBase?: string;
  /**
   * Each record carries the records it refers to (an incident its finding type, asset and last
   * occurrence) as loaded relations, so that the file imports into a database without them.
   */
  withReferences?: boolean;
  /**
   * Beside each id the console shows as a name (asset, finding type, group, owner...), a column
   * with that name, read in SQL with the record: `<id field less _id>_<label>`.
   */
  withNames?: boolean;
}

/** `columns` with each name column right after the id it names (once). */
function placeNames(columns: readonly string[], names: readonly NameColumn[]): string[] {
  const nameSet = new Set(names.map((n) => n.name));
  const out: string[] = [];
  for (const c of columns) {
    if (nameSet.has(c)) continue;
    out.push(c);
    for (const n of names) if (n.fk === c) out.push(n.name);
  }
  // Names asked for without their id column stay where they were asked.
  for (const c of columns) if (nameSet.has(c) && !out.includes(c)) out.push(c);
  return out;
}

/** The relations that carry the records a record of `r` refers to: every belongs-to link. */
export function referenceRelations(r: ResourceDef): string[] {
  return Object.entries(r.relations ?? {})
    .filter(([, rel]) => rel.kind === 'belongsTo')
    .map(([name]) => name);
}

const withRefs = (r: ResourceDef, load: readonly string[], spec: ExportSpec): string[] =>
  spec.withReferences ? [...new Set([...load, ...referenceRelations(r)])] : [...load];

export type { ReferenceReport };

export interface PreparedExport {
  total: number;
  /** Rows this export writes (total, or the page asked for). */
  rows: number;
  shape: 'v2' | 'public';
  /** The resource's own name (service_asset_findings). */
  resource: string;
  /** The name it was asked for (incidents, serviceAssets, or the resource's own). */
  name: string;
  /** With references: what they carry and what they leave out; null otherwise. */
  references: ReferenceReport | null;
  filename: string;
  contentType: string;
  /** The text, in pieces of about 256 KiB; ends the read transaction when done or abandoned. */
  chunks(signal?: AbortSignal, onRows?: (n: number) => void): AsyncGenerator<Buffer>;
  close(): void;
}

const CHUNK = 1024 * 1024;

const RELATION_BATCH = 500;

const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/**
 * A text cell a spreadsheet would run as a formula gets a leading apostrophe; so does one that
 * already starts with apostrophes before such a character, so that the import, which takes one
 * off, reads every text back as it was.
 */
const FORMULA = /^'*[=+\-@\t\r]/;

/** One CSV cell (see the rules at the top of this file): null for an empty cell, '' for an empty text (written ""). */
export function csvCell(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
      return FORMULA.test(v) ? `'${v}` : v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? String(v) : null;
    case 'bigint':
      return v.toString();
    default:
      return JSON.stringify(v);
  }
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** What an export streams: a query plan (every match unless a page is asked for) and its shape. */
interface Plan {
  r: ResourceDef;
  shape: 'v2' | 'public';
  entity?: PublicEntity;
  query: QueryPlan;
  fields: FieldInfo[];
  /** Belongs-to keys selected only to load relations. */
  hidden: FieldInfo[];
  limit: number | null;
  offset: number;
  load: string[];
  idRels: string[];
}

function exportPlan(r: ResourceDef, shape: Plan['shape'], entity: PublicEntity | undefined, query: QueryPlan, limit: number | null): Plan {
  return {
    r,
    shape,
    entity,
    query,
    fields: query.fields.map((n) => fieldOf(r, n)!),
    hidden: query.hidden.map((n) => fieldOf(r, n)!),
    limit,
    offset: query.offset,
    load: query.load,
    idRels: query.idRels,
  };
}

function queryRecord(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(query.startsWith('?') ? query.slice(1) : query)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function planExport(spec: ExportSpec): Plan {
  if (spec.query !== undefined && spec.search) throw badRequest('give either a search request or a standard query, not both');
  if (spec.query !== undefined) {
    const entity = PUBLIC_ENTITIES.find((e) => e.path === spec.resource) ?? PUBLIC_ENTITIES.find((e) => e.resource === kindByName(spec.resource)?.name);
    const base = kindByName(spec.resource);
    if (!entity && !base) throw badRequest(`unknown resource: ${spec.resource}`);
    const plain = entity ? publicResource(entity) : base!;
    const r = spec.withNames ? withNameFields(plain) : plain;
    const raw = queryRecord(spec.query);
    let parsed;
    try {
      parsed = parseStandardQuery(raw);
    } catch (e) {
      if (e instanceof StandardQueryError) throw badRequest(e.message);
      throw e;
    }
    const paged = 'page' in raw || 'per_page' in raw;
    const c = compileStandardQuery(r, parsed, withRefs(r, entity ? entity.load : [], spec));
    return exportPlan(r, 'public', entity, paged ? c : { ...c, limit: -1, offset: 0 }, paged ? c.limit : null);
  }
  const plain = kindByName(spec.resource);
  if (!plain) throw badRequest(`unknown resource: ${spec.resource}`);
  const r = spec.withNames ? withNameFields(plain) : plain;
  const s = spec.search ?? {};
  const base = emptySearch(0, 0);
  const req: SearchRequest = {
    include_fields: s.include_fields ?? base.include_fields,
    exclude_fields: s.exclude_fields ?? base.exclude_fields,
    filters: s.filters ?? base.filters,
    ordering: s.ordering ?? base.ordering,
    virtual_search: s.virtual_search ?? base.virtual_search,
    extension_params: s.extension_params ?? base.extension_params,
    relations: withRefs(r, s.relations ?? [], spec),
    _relations: s._relations,
    limit: s.limit ?? -1,
    offset: s.offset ?? 0,
  };
  return exportPlan(r, 'v2', undefined, compileSearchPlan(r, req), s.limit ?? null);
}

/**
 * Opens the export: checks the request (400 on a bad one), opens a read connection on `dbFile`,
 * counts the matches. Nothing is read until chunks() is iterated.
 */
function checkedPlan(spec: ExportSpec) {
  const plan = planExport(spec);
  const relationNames = [...plan.load, ...(plan.idRels.length ? ['_relations'] : [])];
  const linkable = plan.shape === 'public' && spec.frontLinkBase && plan.entity;
  const allColumns = [...plan.fields.map((f) => f.name), ...relationNames, ...(linkable ? ['front_link'] : [])];
  let columns = allColumns;
  if (spec.columns?.length) {
    for (const c of spec.columns) if (!allColumns.includes(c)) throw badRequest(`unknown column: ${c}`);
    columns = [...new Set(spec.columns)];
  }
  if (spec.withNames) columns = placeNames(columns, nameColumns(plan.r).filter((n) => allColumns.includes(n.name)));
  if (spec.delimiter !== undefined && spec.delimiter.length !== 1) throw badRequest('delimiter should be one character');
  if (spec.withReferences && spec.format === 'csv') throw badRequest('records with their references are exported as json or ndjson, not csv');
  if (spec.headers !== undefined && spec.headers !== 'fields' && spec.format !== 'csv') throw badRequest('headers applies to csv exports only');
  return { plan, linkable, allColumns, columns };
}

/** Checks an export request as prepareExport would (400 on a bad one), without reading anything. */
export function checkExport(spec: ExportSpec): void {
  checkedPlan(spec);
}

export function prepareExport(dbFile: string, spec: ExportSpec): PreparedExport {
  const { plan, linkable, allColumns, columns } = checkedPlan(spec);
  const ext = spec.format;
  // The resource's own name (a plan with names reads it under another).
  const own = plan.r.name.endsWith(WITH_NAMES) ? plan.r.name.slice(0, -WITH_NAMES.length) : plan.r.name;
  // Named as asked (incidents, not service_asset_findings), in messages and the file name.
  const name = plan.entity?.path ?? (kindByName(spec.resource)?.name === own ? spec.resource.trim() : own);
  const needObjects = plan.load.length > 0 || plan.idRels.length > 0 || spec.format === 'csv' || !!linkable;
  const selected = [...plan.fields, ...plan.hidden];
  // JSON and NDJSON without relations: each record's UTF-8 text straight from SQLite, in the page's order.
  const stream: Stream = Runner.stream(dbFile, plan.query, { json: needObjects ? null : columns });
  const { total, close } = stream;
  const rows = plan.limit === null ? Math.max(0, total - plan.offset) : Math.max(0, Math.min(plan.limit, total - plan.offset));
  const references: ReferenceReport | null = spec.withReferences ? stream.references() : null;
  const linkBase = linkable ? `${spec.frontLinkBase}/#/${plan.entity!.link}/` : '';

  async function* chunks(signal?: AbortSignal, onRows?: (n: number) => void): AsyncGenerator<Buffer> {
    try {
      const iter = stream.rows();
      const key = plan.shape === 'v2' ? 'items' : 'objects';
      // The chunk being filled: text pieces and SQLite's UTF-8 records, joined once per chunk.
      let parts: Buffer[] = [];
      let size = 0;
      const push = (b: Buffer) => {
        parts.push(b);
        size += b.length;
      };
      const pushText = (t: string) => {
        if (t) push(Buffer.from(t, 'utf8'));
      };
      const take = (): Buffer => {
        const out = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
        parts = [];
        size = 0;
        return out;
      };
      pushText(spec.format === 'json' ? `{"${key}":[` : '');
      let first = true;
      let n = 0;
      let pending: Record<string, unknown>[] = [];
      let pendingRaw: Record<string, unknown>[] = [];
      const delimiter = spec.delimiter ?? ',';
      if (spec.format === 'csv') {
        const base = getResource(own.startsWith('public:') ? plan.entity!.resource : own);
        pushText(csvStringify([columns.map((c) => headerOf(base, c, spec.headers ?? 'fields'))], { delimiter, bom: spec.bom !== false }));
      }
      const writeRecord = (rec: Record<string, unknown>): string => {
        if (columns === allColumns && !spec.columns) return JSON.stringify(rec);
        const o: Record<string, unknown> = {};
        for (const c of columns) o[c] = rec[c];
        return JSON.stringify(o);
      };
      const NL = Buffer.from('\n');
      const COMMA_NL = Buffer.from(',\n');
      const emit = (record: string | Buffer) => {
        const b = typeof record === 'string' ? Buffer.from(record, 'utf8') : record;
        if (spec.format === 'json') {
          push(first ? NL : COMMA_NL);
          push(b);
        } else {
          push(b);
          push(NL);
        }
        first = false;
      };
      const drain = () => {
        if (!pending.length) return;
        stream.attach(pendingRaw, pending);
        if (spec.format === 'csv') {
          pushText(
            csvStringify(
              pending.map((rec) => columns.map((c) => csvCell(rec[c]))),
              // Only the empty text is quoted empty: null stays an empty cell.
              { delimiter, quoted_match: /^$/ },
            ),
          );
        } else {
          for (const rec of pending) emit(writeRecord(rec));
        }
        pending = [];
        pendingRaw = [];
      };
      for (const row of iter) {
        n++;
        if (needObjects) {
          const values = row as unknown[];
          const raw: Record<string, unknown> = {};
          selected.forEach((f, i) => (raw[f.name] = values[i]));
          const rec = decodeRow(raw, plan.fields);
          if (linkable) rec.front_link = linkBase + String(rec.id);
          pending.push(rec);
          pendingRaw.push(raw);
          if (pending.length >= RELATION_BATCH) drain();
        } else {
          emit(row as Buffer);
        }
        if (size >= CHUNK) {
          if (signal?.aborted) throw new CancelledError();
          onRows?.(n);
          yield take();
        }
      }
      drain();
      if (spec.format === 'json') pushText(`${first ? '' : '\n'}],"total":${total}}\n`);
      onRows?.(n);
      if (size) yield take();
    } finally {
      close();
    }
  }

  return {
    total,
    rows,
    shape: plan.shape,
    resource: own.startsWith('public:') ? (plan.entity?.resource ?? own) : own,
    name,
    references,
    filename: `${name}-${stamp()}.${ext}`,
    contentType: CONTENT_TYPES[spec.format],
    chunks,
    close,
  };
}
