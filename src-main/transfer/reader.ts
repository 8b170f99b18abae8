// Reading one data file as a stream of records, in constant memory, whatever its shape:
//
//   {"objects":[...],"total":N}           a public API page (public-page)
//   {"items":[...],"total":N}             a v2 search answer (v2-search)
//   [{"id","name","data":{...},...}, ...] the routing port's answer: each element's `data` is
//                                         itself one of these shapes (envelope)
//   [{...}, {...}]                        a JSON array of records (array)
//   {...}\n{...}\n                        NDJSON, one record per line (ndjson)
//   {...} {...}                           concatenated JSON records, pretty-printed (json-values)
//
// The shape is told from the first bytes: NDJSON when the first line is a whole record, else
// the stream-json tokenizer (fed line by line, so records know their line) walks the structure
// and assembles one record at a time. NDJSON lines go through JSON.parse, which is several
// times faster. A syntax error is reported as file:line:column: the file is read a second
// time up to the failing line, then character by character, to find the exact column.
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import Assembler from 'stream-json/core/assembler.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { JsonDepthError, MAX_JSON_DEPTH, parseJson } from '../../src-shared/json';
import type { ResourceDef } from '../../src-shared/resources/index';
import { CancelledError, TransferError, type Where } from './errors';
import type { Entry } from './sources';

export type Shape = 'public-page' | 'v2-search' | 'envelope' | 'array' | 'ndjson' | 'json-values' | 'csv';

/** Where the record being delivered sits; valid during the sink call only (it is reused). */
export class Loc {
  line = 0;
  column: number | undefined = undefined;
  /** Path of the array holding the record (`objects`, `[2].data.items`, `` for a top-level array). */
  container = '';
  index = -1;
  /** Records of one stream (one array, one NDJSON file) share a kind. */
  stream = 0;
  shape: Shape = 'array';
  /** The resource of this stream's records when the reader knows it (a CSV file's, from its columns). */
  resource: ResourceDef | undefined = undefined;
  constructor(readonly file: string) {}

  path(): string | undefined {
    if (this.shape === 'ndjson') return undefined;
    if (this.shape === 'json-values' || this.shape === 'csv') return `#${this.index + 1}`;
    return `${this.container}[${this.index}]`;
  }

  where(extra: Partial<Where> = {}): Where {
    const w: Where = { file: this.file, line: this.line };
    if (this.column !== undefined) w.column = this.column;
    const p = this.path();
    if (p !== undefined) w.record = p;
    return { ...w, ...extra };
  }
}

export interface RecordSink {
  /** A record (or whatever stands where a record belongs). */
  record(value: unknown, loc: Loc): void;
  /** Something skipped, for the summary (an envelope holding an instance's error). */
  note(message: string): void;
}

export interface ReadOptions {
  /** Read as NDJSON whatever the first line looks like (.ndjson / .jsonl files). */
  ndjson?: boolean;
  signal?: AbortSignal;
  /** Called with the number of bytes read since the last call. */
  onBytes?: (n: number) => void;
}

export interface ReadResult {
  shape: Shape;
  records: number;
}

const NONE = Symbol.for('object-stream.none') as unknown as string;
/** Longest NDJSON line (one record), in characters. */
const MAX_LINE = 64 * 1024 * 1024;
const SEGMENT = 64 * 1024;
const SNIFF_LIMIT = 8 * 1024 * 1024;
const PAGE_KEYS = new Set(['objects', 'items', 'total']);

type TokenBatch = { values: Token[] } | symbol;

const describeValue = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v === 'string' ? 'a string' : `a ${typeof v}`;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An error answer ({error, error_code}) instead of data. */
const isErrorBody = (v: unknown): boolean =>
  isPlainObject(v) && 'error' in v && 'error_code' in v && Object.keys(v).every((k) => k === 'error' || k === 'error_code' || k === 'extra');

/** Decoded text of a byte stream, a leading byte-order mark dropped. */
async function* textOf(stream: Readable, opts: ReadOptions): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let first = true;
  try {
    for await (const chunk of stream) {
      if (opts.signal?.aborted) throw new CancelledError();
      const buf = chunk as Buffer;
      opts.onBytes?.(buf.length);
      let s = decoder.write(buf);
      if (first && s.length) {
        if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
        first = false;
      }
      if (s) yield s;
    }
    const tail = decoder.end();
    if (tail) yield first && tail.charCodeAt(0) === 0xfeff ? tail.slice(1) : tail;
  } finally {
    stream.destroy();
  }
}

const isWs = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** Line and column (1-based) of `offset` in `text`, counting from (line, col) at its start. */
function advance(text: string, upTo: number, line: number, col: number): { line: number; col: number } {
  for (let i = 0; i < upTo; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      col = 1;
    } else col++;
  }
  return { line, col };
}

/** JSON.parse's message without the echo of the input or the position. */
function jsonParseError(e: unknown): { message: string } {
  const msg = (e as Error).message ?? 'invalid JSON';
  const clean = msg.replace(/,? "(?:[^"\\]|\\.)*" is not valid JSON/, '').replace(/ in JSON at position \d+.*$/, '').trim();
  return { message: clean || 'invalid JSON' };
}

/** Where a line stops being JSON: the 0-based offset of the offending character, or its end. */
function locateInLine(line: string): { offset: number; eof: boolean } {
  const parser = jsonParser({ packValues: true, streamValues: false }) as unknown as (s: string) => TokenBatch;
  for (let i = 0; i < line.length; i++) {
    try {
      parser(line[i]!);
    } catch {
      return { offset: i, eof: false };
    }
  }
  try {
    parser(NONE);
  } catch {
    return { offset: line.length, eof: true };
  }
  return { offset: line.length, eof: false };
}

/** Where the text handed to a reader starts in the file (what came before was whitespace). */
interface Origin {
  /** Characters before it. */
  offset: number;
  line: number;
  col: number;
}

export async function readEntry(entry: Entry, sink: RecordSink, opts: ReadOptions = {}): Promise<ReadResult> {
  const texts = textOf(await entry.open(), opts);
  try {
    // Leading whitespace is skipped chunk by chunk, counting lines (never kept: a file of
    // whitespace is read in linear time and constant memory).
    const origin: Origin = { offset: 0, line: 1, col: 1 };
    let text = '';
    let at = 0;
    for (;;) {
      const n = await texts.next();
      if (n.done) throw new TransferError('the file is empty (no JSON value in it)', { file: entry.name });
      text = n.value;
      at = 0;
      while (at < text.length && isWs(text.charCodeAt(at))) at++;
      const pos = advance(text, at, origin.line, origin.col);
      origin.offset += at;
      origin.line = pos.line;
      origin.col = pos.col;
      if (at < text.length) break;
    }
    text = text.slice(at);
    // The first character decides between an array, an object and not JSON.
    const c = text[0]!;
    const pieces = [text];
    let ndjson = !!opts.ndjson;
    let ended = false;
    if (!ndjson && c === '{') {
      // A first line that is a whole object (not a page) makes the file NDJSON. Only each new
      // piece is searched for the line's end.
      let size = text.length;
      let nl = text.indexOf('\n');
      while (nl < 0 && size < SNIFF_LIMIT) {
        const n = await texts.next();
        if (n.done) {
          ended = true;
          break;
        }
        pieces.push(n.value);
        nl = n.value.indexOf('\n');
        if (nl >= 0) nl += size;
        size += n.value.length;
      }
      const head = pieces.length === 1 ? text : pieces.join('');
      pieces.length = 0;
      pieces.push(head);
      const first = head.slice(0, nl < 0 ? undefined : nl).trim();
      try {
        const v: unknown = parseJson(first);
        ndjson = isPlainObject(v) && !('objects' in v) && !('items' in v);
      } catch {
        ndjson = false;
      }
    } else if (!ndjson && c !== '[') {
      throw new TransferError(`not JSON: the file starts with ${JSON.stringify(text.slice(0, 20))} (a CSV file is read as CSV when its name ends in .csv)`, {
        file: entry.name,
        line: origin.line,
        column: origin.col,
      });
    }
    const rest = async function* (): AsyncGenerator<string> {
      yield* pieces;
      if (ended) return;
      for (;;) {
        const n = await texts.next();
        if (n.done) return;
        yield n.value;
      }
    };
    return ndjson ? await readNdjson(entry, rest(), sink, opts, origin) : await readTokens(entry, rest(), sink, opts, origin);
  } finally {
    await texts.return(undefined);
  }
}

// ---------------------------------------------------------------------------------------- NDJSON

async function readNdjson(entry: Entry, texts: AsyncGenerator<string>, sink: RecordSink, opts: ReadOptions, origin: Origin): Promise<ReadResult> {
  const loc = new Loc(entry.name);
  loc.shape = 'ndjson';
  let lineNo = origin.line - 1;
  let records = 0;
  // Columns before the text of the current line that were not kept (the file's leading
  // whitespace on its first line, a line's leading whitespace spread over several chunks).
  let lead = origin.col - 1;
  const handle = (s: string, start: number, end: number) => {
    let a = start;
    let b = end;
    if (b > a && s.charCodeAt(b - 1) === 13) b--;
    while (a < b && isWs(s.charCodeAt(a))) a++;
    while (b > a && isWs(s.charCodeAt(b - 1))) b--;
    if (a === b) return;
    const line = s.slice(a, b);
    let v: unknown;
    try {
      v = parseJson(line);
    } catch (e) {
      if (e instanceof JsonDepthError) throw new TransferError(`invalid JSON: ${e.message}`, { file: entry.name, line: lineNo });
      const { message } = jsonParseError(e);
      const at = locateInLine(line);
      throw new TransferError(at.eof ? `invalid JSON: the line ends in the middle of a value (truncated file?)` : `invalid JSON: ${message}`, {
        file: entry.name,
        line: lineNo,
        column: lead + a - start + 1 + at.offset,
      });
    }
    if (!isPlainObject(v)) {
      throw new TransferError(`expected one record (a JSON object) per line, got ${describeValue(v)}`, { file: entry.name, line: lineNo, column: lead + a - start + 1 });
    }
    if (isErrorBody(v)) throw new TransferError(`the file holds an error answer, not data: ${line.slice(0, 300)}`, { file: entry.name, line: lineNo });
    loc.line = lineNo;
    loc.index++;
    records++;
    sink.record(v, loc);
  };
  // The current line's text so far, in pieces: only new text is searched for the line's end.
  let parts: string[] = [];
  let partsLength = 0;
  const takeLine = (last: string): string => {
    parts.push(last);
    const line = parts.join('');
    parts = [];
    partsLength = 0;
    return line;
  };
  for await (const text of texts) {
    if (opts.signal?.aborted) throw new CancelledError();
    let start = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', start)) !== -1) {
      lineNo++;
      if (parts.length) {
        const line = takeLine(text.slice(start, nl));
        handle(line, 0, line.length);
      } else {
        handle(text, start, nl);
      }
      lead = 0;
      start = nl + 1;
    }
    if (start < text.length) {
      if (!parts.length) {
        // Whitespace opening a line is counted, not kept.
        let a = start;
        while (a < text.length && isWs(text.charCodeAt(a))) a++;
        lead += a - start;
        start = a;
      }
      if (start < text.length) {
        parts.push(start === 0 ? text : text.slice(start));
        partsLength += text.length - start;
        if (partsLength > MAX_LINE) throw new TransferError(`a line is longer than ${MAX_LINE} characters`, { file: entry.name, line: lineNo + 1 });
      }
    }
  }
  if (parts.length) {
    lineNo++;
    const line = takeLine('');
    handle(line, 0, line.length);
  }
  return { shape: 'ndjson', records };
}

// ---------------------------------------------------------------------------------------- tokens

const enum F {
  Top,
  Array,
  Element,
  Undecided,
  Page,
}

interface Frame {
  t: F;
  /** Path of this container, for record paths. */
  path: string;
  /** Array: index of the current element. */
  index: number;
  /** Array: its elements may be routing envelopes (top-level arrays only). */
  allowEnv: boolean;
  stream: number;
  shape: Shape;
  key: string | null;
  /** Element: the properties assembled so far. */
  obj: Record<string, unknown> | null;
  env: boolean;
  line: number;
  /** Undecided: inside an envelope's data. */
  inData: boolean;
}

class SyntaxAt extends Error {
  constructor(
    readonly offset: number,
    readonly line: number,
    readonly col: number,
    readonly parserMessage: string,
    readonly eof: boolean,
  ) {
    super(parserMessage);
  }
}

class Walker {
  private readonly frames: Frame[] = [];
  private readonly asm = new Assembler();
  private assembling: ((v: unknown) => void) | null = null;
  private streams = 0;
  private topValues = -1;
  line = 1;
  records = 0;
  shape: Shape | null = null;
  readonly loc: Loc;

  constructor(
    private readonly entry: Entry,
    private readonly sink: RecordSink,
  ) {
    this.loc = new Loc(entry.name);
  }

  private frame(t: F, path: string, extra: Partial<Frame> = {}): Frame {
    return { t, path, index: -1, allowEnv: false, stream: 0, shape: 'array', key: null, obj: null, env: false, line: this.line, inData: false, ...extra };
  }

  private setShape(s: Shape): void {
    if (this.shape === null || (this.shape === 'array' && s === 'envelope')) this.shape = s;
  }

  private fail(reason: string, path?: string): never {
    throw new TransferError(reason, { file: this.entry.name, line: this.line, ...(path ? { record: path } : {}) });
  }

  private emit(value: unknown, stream: number, shape: Shape, container: string, index: number, line: number): void {
    const loc = this.loc;
    loc.stream = stream;
    loc.shape = shape;
    loc.container = container;
    loc.index = index;
    loc.line = line;
    this.records++;
    this.sink.record(value, loc);
  }

  private assemble(tk: Token, done: (v: unknown) => void): void {
    this.asm.consume(tk);
    if (this.asm.done) done(this.asm.current);
    else this.assembling = done;
  }

  private tokenName(tk: Token): string {
    switch (tk.name) {
      case 'startArray':
        return 'an array';
      case 'startObject':
        return 'an object';
      case 'stringValue':
        return 'a string';
      case 'numberValue':
        return 'a number';
      case 'nullValue':
        return 'null';
      default:
        return 'a boolean';
    }
  }

  token(tk: Token): void {
    if (this.assembling) {
      this.asm.consume(tk);
      if (this.asm.done) {
        const cb = this.assembling;
        this.assembling = null;
        cb(this.asm.current);
      }
      return;
    }
    const f = this.frames[this.frames.length - 1];
    if (!f) return this.top(tk);
    switch (f.t) {
      case F.Array:
        return this.inArray(f, tk);
      case F.Element:
        return this.inElement(f, tk);
      case F.Undecided:
        return this.inUndecided(f, tk);
      case F.Page:
        return this.inPage(f, tk);
      default:
        return;
    }
  }

  private top(tk: Token): void {
    if (tk.name === 'startArray') {
      this.setShape('array');
      this.frames.push(this.frame(F.Array, '', { allowEnv: true, stream: ++this.streams, shape: 'array' }));
    } else if (tk.name === 'startObject') {
      this.frames.push(this.frame(F.Undecided, ''));
    } else {
      this.fail(`expected a JSON array or object at the top level, got ${this.tokenName(tk)}`);
    }
  }

  private inArray(f: Frame, tk: Token): void {
    if (tk.name === 'endArray') {
      this.frames.pop();
      return;
    }
    f.index++;
    if (tk.name !== 'startObject') this.fail(`expected an object (a record), got ${this.tokenName(tk)}`, `${f.path}[${f.index}]`);
    if (f.allowEnv) {
      this.frames.push(this.frame(F.Element, `${f.path}[${f.index}]`, { obj: {}, stream: f.stream, index: f.index }));
      return;
    }
    const line = this.line;
    const index = f.index;
    this.assemble(tk, (v) => this.emit(v, f.stream, f.shape, f.path, index, line));
  }

  private inElement(f: Frame, tk: Token): void {
    switch (tk.name) {
      case 'keyValue':
        f.key = tk.value;
        return;
      case 'endObject': {
        this.frames.pop();
        const parent = this.frames[this.frames.length - 1]!;
        const obj = f.obj!;
        if (f.env || 'data' in obj) {
          // A routing envelope: its data was streamed above, or is an error / nothing.
          const err = obj.error;
          if (err !== undefined && err !== null && err !== 0 && err !== '') {
            this.sink.note(`${this.entry.name}: ${f.path}: instance ${String(obj.name ?? obj.id ?? '?')} answered with an error (${String(err)}); skipped`);
          } else if (!f.env) {
            this.sink.note(`${this.entry.name}: ${f.path}: an envelope without data; skipped`);
          }
          this.setShape('envelope');
          return;
        }
        this.emit(obj, parent.stream, 'array', parent.path, f.index, f.line);
        return;
      }
      default: {
        const key = f.key ?? '';
        f.key = null;
        if (key === 'data' && (tk.name === 'startObject' || tk.name === 'startArray')) {
          f.env = true;
          this.setShape('envelope');
          const path = `${f.path}.data`;
          if (tk.name === 'startObject') this.frames.push(this.frame(F.Undecided, path, { inData: true }));
          else this.frames.push(this.frame(F.Array, path, { stream: ++this.streams, shape: 'envelope' }));
          return;
        }
        const obj = f.obj!;
        this.assemble(tk, (v) => {
          obj[key] = v;
        });
      }
    }
  }

  private inUndecided(f: Frame, tk: Token): void {
    if (tk.name === 'keyValue' && PAGE_KEYS.has(tk.value)) {
      f.t = F.Page;
      f.key = tk.value;
      return;
    }
    this.frames.pop();
    const line = f.line;
    const atTop = this.frames.length === 0;
    const onValue = (v: unknown) => {
      if (isErrorBody(v)) {
        if (f.inData) {
          this.sink.note(`${this.entry.name}: ${f.path}: an error answer (${JSON.stringify(v)}); skipped`);
          return;
        }
        this.fail(`the file holds an error answer, not data: ${JSON.stringify(v).slice(0, 300)}`);
      }
      if (atTop) {
        this.setShape('json-values');
        if (this.topValues < 0) this.topValues = ++this.streams;
        this.emit(v, this.topValues, 'json-values', '', this.records, line);
      } else {
        this.emit(v, ++this.streams, 'array', f.path, 0, line);
      }
    };
    if (tk.name === 'endObject') return onValue({});
    this.asm.consume({ name: 'startObject' });
    this.assemble(tk, onValue);
  }

  private inPage(f: Frame, tk: Token): void {
    switch (tk.name) {
      case 'keyValue':
        f.key = tk.value;
        return;
      case 'endObject':
        this.frames.pop();
        return;
      case 'startArray':
        if (f.key === 'objects' || f.key === 'items') {
          const shape: Shape = f.key === 'objects' ? 'public-page' : 'v2-search';
          this.setShape(f.inData ? 'envelope' : shape);
          this.frames.push(this.frame(F.Array, f.path ? `${f.path}.${f.key}` : f.key, { stream: ++this.streams, shape }));
          f.key = null;
          return;
        }
        break;
      default:
        break;
    }
    if (f.key === 'objects' || f.key === 'items') this.fail(`${f.key} should be an array of records, got ${this.tokenName(tk)}`);
    f.key = null;
    this.assemble(tk, () => {});
  }

  finish(): void {
    if (this.shape === null) this.shape = 'array';
  }
}

/**
 * Nesting allowed in a file read token by token: a record's own bound (MAX_JSON_DEPTH, as for
 * every JSON input) plus the file's structure around it (an envelope array, its element, data,
 * items).
 */
const MAX_FILE_DEPTH = MAX_JSON_DEPTH + 4;

async function readTokens(entry: Entry, texts: AsyncGenerator<string>, sink: RecordSink, opts: ReadOptions, origin: Origin): Promise<ReadResult> {
  const parser = jsonParser({ packValues: true, streamValues: false, jsonStreaming: true }) as unknown as (s: string) => TokenBatch;
  const walker = new Walker(entry, sink);
  let offset = origin.offset;
  let line = origin.line;
  let col = origin.col;
  let depth = 0;
  const run = (batch: TokenBatch) => {
    if (typeof batch === 'symbol') return;
    for (const tk of batch.values) {
      if (tk.name === 'startObject' || tk.name === 'startArray') {
        if (++depth > MAX_FILE_DEPTH) throw new TransferError(`invalid JSON: nested deeper than ${MAX_JSON_DEPTH} levels in a record`, { file: entry.name, line: walker.line });
      } else if (tk.name === 'endObject' || tk.name === 'endArray') {
        depth--;
      }
      walker.token(tk);
    }
  };
  try {
    for await (const text of texts) {
      if (opts.signal?.aborted) throw new CancelledError();
      let start = 0;
      while (start < text.length) {
        const nl = text.indexOf('\n', start);
        let end = nl < 0 ? text.length : nl + 1;
        if (end - start > SEGMENT) end = start + SEGMENT;
        const seg = text.slice(start, end);
        walker.line = line;
        let batch: TokenBatch;
        try {
          batch = parser(seg);
        } catch (e) {
          throw new SyntaxAt(offset, line, col, (e as Error).message, false);
        }
        run(batch);
        offset += seg.length;
        if (seg.charCodeAt(seg.length - 1) === 10) {
          line++;
          col = 1;
        } else col += seg.length;
        start = end;
      }
    }
    walker.line = line;
    let last: TokenBatch;
    try {
      last = parser(NONE);
    } catch (e) {
      throw new SyntaxAt(offset, line, col, (e as Error).message, true);
    }
    run(last);
  } catch (e) {
    if (!(e instanceof SyntaxAt)) throw e;
    const pos = e.eof ? { line: e.line, col: e.col } : await locate(entry, e, opts);
    const detail = e.parserMessage.replace(/^Parser (cannot parse input|has expected)[:]? ?/, '');
    const reason = e.eof ? `invalid JSON: the file ends in the middle of a value (truncated?): expected ${detail.replace(/^expected /, '')}` : `invalid JSON: ${detail}`;
    throw new TransferError(reason, { file: entry.name, line: pos.line, column: pos.col });
  }
  walker.finish();
  return { shape: walker.shape!, records: walker.records };
}

/** Reads the file again to the failing line, then one character at a time, to find the column. */
async function locate(entry: Entry, at: SyntaxAt, opts: ReadOptions): Promise<{ line: number; col: number }> {
  const parser = jsonParser({ packValues: true, streamValues: false, jsonStreaming: true }) as unknown as (s: string) => TokenBatch;
  let offset = 0;
  let line = at.line;
  let col = at.col;
  for await (const text of textOf(await entry.open(), { signal: opts.signal })) {
    let i = 0;
    if (offset < at.offset) {
      const take = Math.min(text.length, at.offset - offset);
      parser(text.slice(0, take));
      offset += take;
      i = take;
    }
    for (; i < text.length; i++) {
      try {
        parser(text[i]!);
      } catch {
        return { line, col };
      }
      if (text.charCodeAt(i) === 10) {
        line++;
        col = 1;
      } else col++;
      offset++;
    }
  }
  return { line, col };
}
