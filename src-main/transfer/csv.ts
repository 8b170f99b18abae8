// Reading a CSV file as records, streamed (csv-parse, constant memory), into the same pipeline
// as the JSON reader: what this project exports, and the same file after a spreadsheet saved it.
//
// - Encoding: a byte-order mark says UTF-8 (or UTF-16, Excel's "Unicode text"); without one the
//   first bytes beyond ASCII decide: UTF-8 when they are UTF-8, else Windows-1251 (what a
//   Russian spreadsheet saves as "CSV"). Or given (--encoding, ?encoding=).
// - Delimiter: `,`, `;` or tab, the one the header row holds most of (outside quotes); or given.
// - Header: a field's API name, or the console's name of the column in English or Russian
//   (headers.ts). A column that names no field of the resource is refused by name, unless
//   unknown fields are to be skipped (--ignore-unknown): then it is skipped and counted as an
//   unknown JSON field is. Columns the export adds that are not stored (names beside ids,
//   computed fields, front_link) are left aside.
// - The resource: --kind, else the one whose fields the columns name (the file name breaks ties).
// - Cells are typed from the resource's declaration: an unquoted empty cell is null (or absent
//   where the field cannot be null), `""` the empty string; numbers, true/false (also as
//   spreadsheets write them: TRUE, ИСТИНА, 7,5 with `;`), objects and arrays as JSON text; a
//   leading ' the export put before formula-like text is taken off.
// - Errors are located as the JSON reader's: file:line: record #N (id ...): field x: reason.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { CsvEncoding } from '../../src-shared/choices';
import { RESOURCES, relationsOf, type ResourceDef } from '../../src-shared/resources/index';
import { CancelledError, TransferError } from './errors';
import { keyOfHeader } from './headers';
import { computedKeys, pickKind, type KindScore } from './kinds';
import { Loc, type ReadResult, type RecordSink } from './reader';
import type { Entry } from './sources';

export interface CsvReadOptions {
  /** `,`, `;` or tab; detected from the header row when absent (tab for .tsv). */
  delimiter?: string;
  /** Detected when absent. */
  encoding?: CsvEncoding;
  /** The resource of the records (--kind), else told from the columns. */
  kind?: ResourceDef;
  /** The resource the file name suggests, for ties. */
  hint?: ResourceDef;
  /** Skip (and count) columns that name no field instead of refusing the file. */
  ignoreUnknown?: boolean;
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
}

export const isCsvFileName = (name: string): boolean => /\.(csv|tsv)$/i.test(name);

/** Longest record, in characters (a cell may hold a whole JSON object). */
const MAX_RECORD = 64 * 1024 * 1024;
/** How far the header row is looked for before the delimiter is detected. */
const HEADER_LIMIT = 1024 * 1024;

/** An empty cell written in quotes (""): the empty string, where an unquoted one is null. */
const QUOTED_EMPTY = Symbol('quoted empty');
type Cell = string | typeof QUOTED_EMPTY;

// ------------------------------------------------------------------------------------- text

const ENCODING_NAMES: Record<string, string> = { 'utf-8': 'UTF-8', 'windows-1251': 'Windows-1251', 'utf-16le': 'UTF-16', 'utf-16be': 'UTF-16' };

function firstNonAscii(b: Buffer): number {
  for (let i = 0; i < b.length; i++) if (b[i]! > 0x7f) return i;
  return -1;
}

/** Whether the bytes are UTF-8 (`partial`: the last character may go on beyond them). */
function isUtf8(b: Uint8Array, partial = true): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b, { stream: partial });
    return true;
  } catch {
    return false;
  }
}

/** Where the first sequence that is not UTF-8 starts. */
function invalidUtf8At(b: Buffer): number {
  // The longest prefix that is UTF-8 so far (a property that, once lost, stays lost), by halves.
  let lo = 0;
  let hi = b.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (isUtf8(b.subarray(0, mid))) lo = mid;
    else hi = mid;
  }
  // Byte `lo` broke it; the character it broke may have started a few bytes before.
  let j = lo - 1;
  while (j >= 0 && lo - j <= 3 && (b[j]! & 0xc0) === 0x80) j--;
  const lead = b[j] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return j >= 0 && need > lo - j ? j : lo;
}

function countLines(b: Buffer, end = b.length): number {
  let n = 0;
  for (let i = b.indexOf(10); i !== -1 && i < end; i = b.indexOf(10, i + 1)) n++;
  return n;
}

/** The file's text, its encoding given or told from its first bytes; a byte-order mark dropped. */
async function* decodeText(entry: Entry, opts: CsvReadOptions, found: (encoding: string) => void): AsyncGenerator<string> {
  const stream = await entry.open();
  let decoder: TextDecoder | null = null;
  let encoding: string | undefined = opts.encoding;
  let started = false;
  let held: Buffer | null = null;
  let line = 1;
  const use = (enc: string) => {
    encoding = enc;
    decoder = new TextDecoder(enc, { fatal: enc === 'utf-8', ignoreBOM: true });
    found(ENCODING_NAMES[enc] ?? enc);
  };
  if (encoding) use(encoding);
  const decode = (b: Buffer, last: boolean): string => {
    try {
      return decoder!.decode(b, { stream: !last });
    } catch {
      const at = invalidUtf8At(b);
      throw new TransferError(
        `the text is not UTF-8 here (byte 0x${(b[at] ?? 0).toString(16).toUpperCase().padStart(2, '0')})${opts.encoding ? '' : ', though the file began as UTF-8'}; give its encoding (--encoding windows-1251 / ?encoding=windows-1251) or save it as UTF-8`,
        { file: entry.name, line: line + countLines(b, at) },
      );
    }
  };
  try {
    for await (const chunk of stream) {
      if (opts.signal?.aborted) throw new CancelledError();
      opts.onBytes?.((chunk as Buffer).length);
      let b: Buffer = held ? Buffer.concat([held, chunk as Buffer]) : (chunk as Buffer);
      held = null;
      if (!started) {
        if (b.length < 3) {
          held = b;
          continue;
        }
        started = true;
        if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
          b = b.subarray(3);
          if (!decoder) use('utf-8');
        } else if (!decoder && b[0] === 0xff && b[1] === 0xfe) {
          b = b.subarray(2);
          use('utf-16le');
        } else if (!decoder && b[0] === 0xfe && b[1] === 0xff) {
          b = b.subarray(2);
          use('utf-16be');
        }
      }
      if (!decoder) {
        // ASCII reads the same in either encoding: the first byte beyond it decides.
        const i = firstNonAscii(b);
        if (i < 0) {
          line += countLines(b);
          yield b.toString('latin1');
          continue;
        }
        if (b.length - i < 4) {
          if (i > 0) {
            line += countLines(b, i);
            yield b.toString('latin1', 0, i);
          }
          held = b.subarray(i);
          continue;
        }
        use(isUtf8(b.subarray(i)) ? 'utf-8' : 'windows-1251');
      }
      const s = decode(b, false);
      if (encoding === 'utf-8') line += countLines(b);
      if (s) yield s;
    }
    if (held) {
      if (decoder) {
        const s = decode(held, false);
        if (s) yield s;
      } else if (firstNonAscii(held) < 0) {
        yield held.toString('latin1');
      } else {
        use(isUtf8(held) ? 'utf-8' : 'windows-1251');
        const s = decode(held, false);
        if (s) yield s;
      }
    }
    if (decoder) {
      const tail = decode(Buffer.alloc(0), true);
      if (tail) yield tail;
    }
  } finally {
    stream.destroy();
  }
}

/** The delimiter the header row holds most of, outside quotes (`,` when it holds none). */
export function detectDelimiter(header: string): string {
  const counts = new Map<string, number>([
    [',', 0],
    [';', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best = ',';
  for (const [d, n] of counts) if (n > counts.get(best)!) best = d;
  return best;
}

// ------------------------------------------------------------------------------------ cells

const SKIP = Symbol('skip');
type Convert = (cell: Cell, row: RowCtx) => unknown;

interface RowCtx {
  loc: Loc;
  id: string | undefined;
}

const FORMULA_GUARDED = /^'+[=+\-@\t\r]/;
/** The text without the ' the export put before formula-like text. */
const unguard = (s: string): string => (FORMULA_GUARDED.test(s) ? s.slice(1) : s);

const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GROUPED = /^[+-]?\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?$/;
const COMMA_DECIMAL = /^[+-]?\d+,\d+$/;

/** A number as JSON writes it, or as a spreadsheet does (1 234,5 where the delimiter is not a comma). */
function numberOf(s: string, commaDecimal: boolean): number | undefined {
  const t = s.trim();
  if (PLAIN_NUMBER.test(t)) return Number(t);
  if (GROUPED.test(t) && (commaDecimal || !t.includes(','))) return Number(t.replace(/[ \u00a0\u202f]/g, '').replace(',', '.'));
  if (commaDecimal && COMMA_DECIMAL.test(t)) return Number(t.replace(',', '.'));
  return undefined;
}

const TRUE = new Set(['true', '1', 'истина']);
const FALSE = new Set(['false', '0', 'ложь']);

function boolOf(s: string): boolean | undefined {
  const t = s.trim().toLowerCase();
  return TRUE.has(t) ? true : FALSE.has(t) ? false : undefined;
}

const preview = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

function jsonOf(s: string, field: string, row: RowCtx, what: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw new TransferError(`expected ${what} as JSON text (as the export writes it), got ${preview(s)}`, row.loc.where({ field, ...(row.id ? { id: row.id } : {}) }));
  }
}

/** How a column's cells become the record's values, from the resource's declaration. */
function converter(r: ResourceDef, key: string, commaDecimal: boolean): Convert | null {
  const def = r.fields[key];
  if (def) {
    // A field that cannot be null: an unquoted empty cell leaves it out (its default, or the value it has).
    const empty = def.notNull ? SKIP : null;
    switch (def.kind) {
      case 'string':
        return (c) => (c === QUOTED_EMPTY ? '' : c === '' ? (def.notNull ? '' : null) : unguard(c));
      case 'uuid':
      case 'date':
      case 'timestamp':
        return (c) => (c === QUOTED_EMPTY || c === '' ? empty : unguard(c));
      case 'int':
      case 'number':
        return (c) => (c === QUOTED_EMPTY || c === '' ? empty : (numberOf(unguard(c), commaDecimal) ?? c));
      case 'bool':
        return (c) => (c === QUOTED_EMPTY || c === '' ? empty : (boolOf(c) ?? c));
      case 'json':
        return (c, row) => (c === QUOTED_EMPTY || c === '' ? empty : jsonOf(c, key, row, def.jsonShape === 'array' ? 'an array' : 'an object'));
    }
  }
  if (key === 'id' || key === 'created_at' || key === 'updated_at') return (c) => (c === QUOTED_EMPTY || c === '' ? SKIP : c.trim());
  if (key === '_relations') return (c, row) => (c === QUOTED_EMPTY || c === '' ? SKIP : jsonOf(c, key, row, 'lists of ids'));
  const computed = computedKeys(r);
  if (relationsOf(r).some(([n]) => n === key)) {
    // Loaded related records, as JSON; a computed key of the same name (the public incident's
    // last_occurrence, a time) is left aside.
    return (c, row) => {
      if (c === QUOTED_EMPTY || c === '') return SKIP;
      const t = c.trimStart();
      if (t.startsWith('{') || t.startsWith('[')) return jsonOf(c, key, row, 'related records');
      return computed.has(key) ? SKIP : jsonOf(c, key, row, 'related records');
    };
  }
  // Computed fields, the public API's extras, names beside ids: not stored, left aside.
  return null;
}

// ------------------------------------------------------------------------------------ header

interface Column {
  header: string;
  /** The record's key; null for a column left aside. */
  key: string | null;
  convert: Convert | null;
  /** A column without a header: its cells must be empty. */
  blank: boolean;
}

const quoteList = (names: readonly string[]): string => names.map((n) => JSON.stringify(n)).join(', ');

function scoreOf(r: ResourceDef, headers: readonly string[]): KindScore {
  let fields = 0;
  const unknown: string[] = [];
  for (const h of headers) {
    if (!h.trim()) continue;
    const k = keyOfHeader(r, h);
    if (k === undefined) unknown.push(h);
    else if (k in r.fields) fields++;
  }
  return { r, fields, unknown };
}

/** The resource of the file and what each column becomes. */
function planColumns(entry: Entry, headers: readonly string[], opts: CsvReadOptions, delimiter: string): { r: ResourceDef; columns: Column[] } {
  const at = { file: entry.name, line: 1 };
  const named = headers.filter((h) => h.trim());
  if (!named.length) throw new TransferError('the header row is empty: the first line should name the columns', at);
  let r = opts.kind;
  if (!r) {
    const scored = RESOURCES.map((res) => scoreOf(res, headers));
    const d = pickKind(scored, opts.hint, !!opts.ignoreUnknown, {
      question: 'which resource the rows of this file are',
      missing: 'which has no field for the columns',
      empty: 'cannot tell which resource this file holds',
    });
    if ('r' in d) r = d.r;
    else {
      // No resource knows every column: the closest one, so that the columns it lacks are named.
      const closest = [...scored].sort((a, b) => a.unknown.length - b.unknown.length || b.fields - a.fields)[0]!;
      if (scored.some((s) => (opts.ignoreUnknown ? s.fields > 0 : s.unknown.length === 0)) || closest.fields === 0) {
        throw new TransferError(closest.fields === 0 ? `no column names a field of any resource (${quoteList(named.slice(0, 8))}${named.length > 8 ? ', ...' : ''}); name the columns by the fields' API names or the console's column names` : d.error, at);
      }
      r = closest.r;
    }
  }
  const commaDecimal = delimiter !== ',';
  const columns: Column[] = [];
  const unknown: string[] = [];
  const taken = new Map<string, string>();
  for (const header of headers) {
    const h = header.trim();
    if (!h) {
      columns.push({ header, key: null, convert: null, blank: true });
      continue;
    }
    const key = keyOfHeader(r, h);
    if (key === undefined) {
      unknown.push(h);
      // Skipped and counted by the importer, as an unknown field of a JSON record.
      columns.push({ header, key: h, convert: (c) => (c === QUOTED_EMPTY || c === '' ? SKIP : c), blank: false });
      continue;
    }
    const other = taken.get(key);
    if (other !== undefined) throw new TransferError(`the columns ${quoteList([other, h])} both name the field ${key}`, at);
    taken.set(key, h);
    columns.push({ header, key, convert: converter(r, key, commaDecimal), blank: false });
  }
  if (unknown.length && !opts.ignoreUnknown) {
    throw new TransferError(
      `${unknown.length === 1 ? 'a column names' : `${unknown.length} columns name`} no field of ${r.name}: ${quoteList(unknown)}; name columns by the fields' API names or the console's column names, or skip unknown columns with --ignore-unknown (ignore_unknown=1)`,
      at,
    );
  }
  return { r, columns };
}

// ------------------------------------------------------------------------------------ reader

/** csv-parse's message without its own position (the error is located by line). */
function csvErrorReason(e: CsvError): string {
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'invalid CSV: a quoted cell that starts in the record on this line is not closed (truncated file?)';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'invalid CSV: a quoted cell in the record on this line goes on after its closing quote (a quote inside quotes is written "")';
    case 'CSV_MAX_RECORD_SIZE':
      return `invalid CSV: a record is longer than ${MAX_RECORD} characters`;
    default:
      return `invalid CSV: ${e.message.replace(/ at line \d+/, '').replace(/^[A-Za-z ]+: /, '')}`;
  }
}

/** Line breaks in a cell's text (CR LF, LF or CR each one). */
const lineBreaks = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13) {
      n++;
      if (s.charCodeAt(i + 1) === 10) i++;
    }
  }
  return n;
};

const quotesIn = (s: string): number => {
  let n = 0;
  for (let i = s.indexOf('"'); i !== -1; i = s.indexOf('"', i + 1)) n++;
  return n;
};

/**
 * The empty cells of a record that were written "" (the empty text), told from the record's raw
 * text: a quoted cell takes its text, its doubled quotes and two quotes there, any other cell its
 * text; cells are one delimiter apart.
 */
function markQuotedEmpty(cells: Cell[], raw: string, delimiter: string): void {
  let p = 0;
  for (let j = 0; j < cells.length; j++) {
    const c = cells[j] as string;
    if (raw.charCodeAt(p) === 34) {
      if (c === '') cells[j] = QUOTED_EMPTY;
      p += c.length + quotesIn(c) + 2;
    } else p += c.length;
    p += delimiter.length;
  }
}

export async function readCsv(entry: Entry, sink: RecordSink, opts: CsvReadOptions = {}): Promise<ReadResult & { delimiter: string; encoding: string }> {
  // Text that never goes beyond ASCII reads the same in every encoding named here.
  let encoding = 'ASCII';
  const texts = decodeText(entry, opts, (e) => (encoding = e));
  // The header row (up to its line's end) decides the delimiter.
  const head: string[] = [];
  let size = 0;
  let ended = false;
  for (;;) {
    const n = await texts.next();
    if (n.done) {
      ended = true;
      break;
    }
    head.push(n.value);
    size += n.value.length;
    if (/[\r\n]/.test(n.value) || size > HEADER_LIMIT) break;
  }
  const start = head.join('');
  if (!start.trim()) {
    await texts.return(undefined);
    throw new TransferError('the file is empty (no header row)', { file: entry.name });
  }
  const delimiter = opts.delimiter ?? (/\.tsv$/i.test(entry.name) ? '\t' : detectDelimiter(start.split(/\r\n|\r|\n/)[0]!));

  const loc = new Loc(entry.name);
  loc.shape = 'csv';
  loc.stream = 1;
  let plan: { r: ResourceDef; columns: Column[] } | null = null;
  let records = 0;
  /** The line the next record starts on: each record takes one line and the line breaks inside its cells. */
  let line = 1;
  const row: RowCtx = { loc, id: undefined };
  const onRecord = ({ record: cells, raw }: { record: Cell[]; raw: string }): null => {
    if (opts.signal?.aborted) throw new CancelledError();
    const first = line;
    line++;
    for (const c of cells) if (typeof c === 'string' && (c.includes('\n') || c.includes('\r'))) line += lineBreaks(c);
    if (cells.includes('')) markQuotedEmpty(cells, raw, delimiter);
    if (!plan) {
      const headers = cells.map((c) => (c === QUOTED_EMPTY ? '' : c));
      plan = planColumns(entry, headers, opts, delimiter);
      loc.resource = plan.r;
      return null;
    }
    // A blank line, or a row of empty cells (what a spreadsheet leaves below the data), is no record.
    if (cells.every((c) => c === '' || c === QUOTED_EMPTY)) return null;
    loc.line = first;
    loc.index++;
    const columns = plan.columns;
    for (let j = columns.length; j < cells.length; j++) {
      if (cells[j] !== '' && cells[j] !== QUOTED_EMPTY) throw new TransferError(`the row has ${cells.length} cells, the header ${columns.length}`, loc.where());
    }
    const idAt = columns.findIndex((c) => c.key === 'id');
    const idCell = idAt >= 0 ? cells[idAt] : undefined;
    row.id = typeof idCell === 'string' && idCell ? idCell.trim() : undefined;
    const rec: Record<string, unknown> = {};
    for (let j = 0; j < columns.length; j++) {
      const col = columns[j]!;
      const cell = cells[j] ?? '';
      if (col.blank) {
        if (cell !== '' && cell !== QUOTED_EMPTY) throw new TransferError(`cell ${j + 1} has a value but its column has no header`, loc.where(row.id ? { id: row.id } : {}));
        continue;
      }
      if (!col.convert) continue;
      const v = col.convert(cell, row);
      if (v !== SKIP) rec[col.key!] = v;
    }
    records++;
    sink.record(rec, loc);
    return null;
  };
  const parser = parse({
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    relax_quotes: true,
    // Blank lines come as records of one empty cell: counted as lines, then left aside.
    skip_empty_lines: false,
    max_record_size: MAX_RECORD,
    // Each record's text as written, to tell "" from an empty cell (a cast function would be
    // called for every cell, with an info object built for each: ten times slower).
    raw: true,
    on_record: onRecord as never,
  });
  const all = async function* (): AsyncGenerator<string> {
    yield start;
    if (ended) return;
    yield* texts;
  };
  try {
    await pipeline(Readable.from(all(), { objectMode: false }), parser);
  } catch (e) {
    if (e instanceof TransferError || e instanceof CancelledError) throw e;
    if (e instanceof CsvError) {
      // Located at the line the record it is in starts on (an unclosed quote runs to the end of the file).
      throw new TransferError(csvErrorReason(e), { file: entry.name, line });
    }
    throw e;
  } finally {
    await texts.return(undefined);
  }
  if (!plan) throw new TransferError('the file is empty (no header row)', { file: entry.name });
  return { shape: 'csv', records, delimiter, encoding };
}
