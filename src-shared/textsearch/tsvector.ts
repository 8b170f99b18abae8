// PostgreSQL's tsvector: `to_tsvector('simple', text)`, the tsvector input syntax
// ('adobe':1 'photoshop':2A) and its text output, byte for byte as PostgreSQL 15 prints it.
import { C_DIGIT, C_SPACE, charClass, compareLexemes, lowerCodePoint, utf8Length } from './chars';
import { codePoints, SIMPLE_TOKEN_TYPES, tokenize } from './parser';

/** Longest lexeme, in bytes, plus one (MAXSTRLEN): longer words are not indexed. */
export const MAX_LEXEME_BYTES = 2048;
/** Largest size of a tsvector's lexemes and positions, in bytes (MAXSTRPOS). */
export const MAX_TSVECTOR_BYTES = 1 << 20;
/** Positions run from 1 to 16383 (MAXENTRYPOS - 1); later words share position 16383. */
export const MAX_POSITION = (1 << 14) - 1;

/** An error PostgreSQL would raise, with its message; `position` is a UTF-16 index into the input. */
export class TextSearchError extends Error {
  constructor(
    message: string,
    readonly position = 0,
    readonly reason = message,
  ) {
    super(message);
    this.name = 'TextSearchError';
  }
}

/** Weight letters by their code in a position (WordEntryPos: weight in the top two bits). */
export const WEIGHT_LETTERS = ['D', 'C', 'B', 'A'] as const;

/**
 * A tsvector: lexemes in PostgreSQL's order (by their UTF-8 bytes), each with its positions as
 * PostgreSQL stores them (position in the low 14 bits, weight 0-3 = D-A in the top two), sorted
 * and unique, or null for a lexeme without positions (a stripped vector, or one written so).
 */
export interface TsVector {
  readonly lexemes: readonly string[];
  readonly positions: readonly (readonly number[] | null)[];
}

export const EMPTY_TSVECTOR: TsVector = { lexemes: [], positions: [] };

/** A word of parsed text with its position (1-based, capped at 16383). */
export interface ParsedWord {
  lexeme: string;
  position: number;
}

const shortAlign = (n: number) => (n + 1) & ~1;

/**
 * The words `to_tsvector('simple', text)` indexes, in text order: every token but blanks, tags,
 * protocols and entities, lower-cased; each token takes the next position. Tokens of 2048 bytes
 * or more are skipped (PostgreSQL says "word is too long to be indexed") and take no position.
 */
export function parseWords(text: string): ParsedWord[] {
  const cps = codePoints(text);
  const sameIndex = cps.length === text.length;
  const words: ParsedWord[] = [];
  let pos = 0;
  tokenize(cps, (type, start, end) => {
    if (!SIMPLE_TOKEN_TYPES.has(type)) return;
    if ((end - start) * 4 >= MAX_LEXEME_BYTES) {
      let bytes = 0;
      for (let i = start; i < end; i++) {
        const c = cps[i]!;
        bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      }
      if (bytes >= MAX_LEXEME_BYTES) return;
    }
    let lexeme = '';
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (cps[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii && sameIndex) lexeme = text.slice(start, end).toLowerCase();
    else for (let i = start; i < end; i++) lexeme += String.fromCodePoint(lowerCodePoint(cps[i]!));
    pos++;
    words.push({ lexeme, position: pos >= MAX_POSITION ? MAX_POSITION : pos });
  });
  return words;
}

/** Builds a tsvector from parsed words as PostgreSQL's make_tsvector does (at most 255 positions each). */
export function tsvectorFromWords(words: readonly ParsedWord[]): TsVector {
  const n = words.length;
  if (!n) return { lexemes: [], positions: [] };
  const cmp = (a: ParsedWord, b: ParsedWord) => compareLexemes(a.lexeme, b.lexeme) || a.position - b.position;
  let sorted: ParsedWord[];
  if (n <= 16) {
    sorted = words.slice();
    for (let i = 1; i < n; i++) {
      const w = sorted[i]!;
      let j = i - 1;
      while (j >= 0 && cmp(sorted[j]!, w) > 0) {
        sorted[j + 1] = sorted[j]!;
        j--;
      }
      sorted[j + 1] = w;
    }
  } else sorted = words.slice().sort(cmp);
  const lexemes: string[] = [];
  const positions: number[][] = [];
  let cur: number[] = [];
  let last = '';
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const w = sorted[i]!;
    if (i && w.lexeme === last) {
      const p = cur[cur.length - 1]!;
      if (cur.length < 255 && p !== MAX_POSITION && p !== w.position) cur.push(w.position);
      continue;
    }
    if (i) bytes = shortAlign(bytes + utf8Length(last)) + 2 + 2 * cur.length;
    last = w.lexeme;
    cur = [w.position];
    lexemes.push(last);
    positions.push(cur);
  }
  bytes = shortAlign(bytes + utf8Length(last)) + 2 + 2 * cur.length;
  if (bytes > MAX_TSVECTOR_BYTES) {
    throw new TextSearchError(`string is too long for tsvector (${bytes} bytes, max ${MAX_TSVECTOR_BYTES} bytes)`);
  }
  return { lexemes, positions };
}

/** PostgreSQL's `to_tsvector('simple', text)`. */
export function toTsVector(text: string): TsVector {
  return tsvectorFromWords(parseWords(text));
}

function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/['\\]/g, (c) => c + c)}'`;
}

/** The tsvector's text, as PostgreSQL prints it: `'adobe':1 'photoshop':2`. */
export function tsvectorToString(v: TsVector): string {
  let out = '';
  for (let i = 0; i < v.lexemes.length; i++) {
    if (i) out += ' ';
    out += quoteLexeme(v.lexemes[i]!);
    const pos = v.positions[i];
    if (pos?.length) {
      out += ':';
      for (let j = 0; j < pos.length; j++) {
        if (j) out += ',';
        const p = pos[j]!;
        out += String(p & 0x3fff);
        const w = p >> 14;
        if (w) out += WEIGHT_LETTERS[w];
      }
    }
  }
  return out;
}

// ---- the tsvector input syntax, shared with tsquery operands (PostgreSQL's gettoken_tsvector)

const OPERATOR_CHARS = new Set([33, 38, 124, 40, 41, 60]); // ! & | ( ) <

/** Reads code points of `s` from UTF-16 index `i`: the code point there and its width. */
function cpAt(s: string, i: number): number {
  return s.codePointAt(i) ?? 0;
}
const cpWidth = (cp: number) => (cp > 0xffff ? 2 : 1);
export const isSpaceAt = (s: string, i: number): boolean => i < s.length && (charClass(cpAt(s, i)) & C_SPACE) !== 0;
const isDigitAt = (s: string, i: number): boolean => i < s.length && (charClass(cpAt(s, i)) & C_DIGIT) !== 0;

export interface ValueToken {
  /** The word, unescaped. */
  word: string;
  /** Positions with weights (WordEntryPos), when the tsvector syntax gave some. */
  positions: number[];
  /** UTF-16 index where the token started (its first non-space character). */
  start: number;
  /** UTF-16 index where reading stopped. */
  end: number;
}

const WAITWORD = 1;
const WAITENDWORD = 2;
const WAITNEXTCHAR = 3;
const WAITENDCMPLX = 4;
const WAITPOSINFO = 5;
const INPOSINFO = 6;
const WAITPOSDELIM = 7;
const WAITCHARCMPLX = 8;

/** atoi() of the digits at `i`, then PostgreSQL's LIMITPOS and 14-bit position field. */
function positionAt(s: string, i: number): number {
  let j = i;
  while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  let v = BigInt(s.slice(i, j));
  const LONG_MAX = (1n << 63n) - 1n;
  if (v > LONG_MAX) v = LONG_MAX;
  const asInt = Number(BigInt.asIntN(32, v));
  const limited = asInt >= MAX_POSITION + 1 ? MAX_POSITION : asInt;
  return limited & 0x3fff;
}

/**
 * Reads one word of the tsvector syntax from UTF-16 index `from` (after skipping spaces): a bare
 * word (backslash escapes a character) or a quoted one ('' or \' for a quote), then, for a
 * tsvector, `:positions` with weights. In a tsquery (`inQuery`), ! & | ( ) < end a bare word and
 * a colon ends it without positions. Returns null at the end of the input; throws PostgreSQL's
 * errors ("syntax error in tsvector/tsquery", "there is no escaped character", "wrong position
 * info in tsvector").
 */
export function readValueToken(s: string, from: number, inQuery: boolean): ValueToken | null {
  const kind = inQuery ? 'tsquery' : 'tsvector';
  const syntax = (at: number, reason: string) => new TextSearchError(`syntax error in ${kind}: "${s}"`, at, reason);
  let state = WAITWORD;
  let oldState = 0;
  let word = '';
  let start = from;
  const positions: number[] = [];
  let i = from;
  for (;;) {
    const atEnd = i >= s.length;
    const cp = atEnd ? 0 : cpAt(s, i);
    const ch = cp < 128 ? cp : -1;
    switch (state) {
      case WAITWORD:
        if (atEnd) return null;
        start = i;
        if (ch === 39) state = WAITENDCMPLX;
        else if (ch === 92) {
          state = WAITNEXTCHAR;
          oldState = WAITENDWORD;
        } else if (inQuery && OPERATOR_CHARS.has(ch)) {
          throw syntax(i, `expected an operand, found "${String.fromCodePoint(cp)}"`);
        } else if (!(charClass(cp) & C_SPACE)) {
          word += String.fromCodePoint(cp);
          state = WAITENDWORD;
        }
        break;
      case WAITNEXTCHAR:
        if (atEnd) {
          throw new TextSearchError(`there is no escaped character: "${s}"`, i, 'nothing after "\\"');
        }
        word += String.fromCodePoint(cp);
        state = oldState;
        break;
      case WAITENDWORD:
        if (ch === 92) {
          state = WAITNEXTCHAR;
          oldState = WAITENDWORD;
        } else if (atEnd || charClass(cp) & C_SPACE || (inQuery && OPERATOR_CHARS.has(ch))) {
          if (!word) throw syntax(i, 'empty lexeme');
          return { word, positions, start, end: i };
        } else if (ch === 58) {
          if (!word) throw syntax(i, 'empty lexeme');
          if (inQuery) return { word, positions, start, end: i };
          state = INPOSINFO;
        } else word += String.fromCodePoint(cp);
        break;
      case WAITENDCMPLX:
        if (ch === 39) state = WAITCHARCMPLX;
        else if (ch === 92) {
          state = WAITNEXTCHAR;
          oldState = WAITENDCMPLX;
        } else if (atEnd) throw syntax(i, 'unterminated quoted lexeme');
        else word += String.fromCodePoint(cp);
        break;
      case WAITCHARCMPLX:
        if (ch === 39) {
          word += "'";
          state = WAITENDCMPLX;
          break;
        }
        if (!word) throw syntax(start, 'empty lexeme');
        if (inQuery) return { word, positions, start, end: i };
        state = WAITPOSINFO;
        continue; // the same character again
      case WAITPOSINFO:
        if (ch === 58) state = INPOSINFO;
        else return { word, positions, start, end: i };
        break;
      case INPOSINFO:
        if (isDigitAt(s, i)) {
          const p = positionAt(s, i);
          if (p === 0) throw new TextSearchError(`wrong position info in tsvector: "${s}"`, i, 'position 0 (positions start at 1)');
          positions.push(p);
          state = WAITPOSDELIM;
        } else throw syntax(i, 'expected a position');
        break;
      case WAITPOSDELIM: {
        const last = positions.length - 1;
        const weight = positions[last]! >> 14;
        if (ch === 44) state = INPOSINFO;
        else if (ch === 97 || ch === 65 || ch === 42 || ch === 98 || ch === 66 || ch === 99 || ch === 67) {
          if (weight) throw syntax(i, 'two weights for one position');
          const w = ch === 98 || ch === 66 ? 2 : ch === 99 || ch === 67 ? 1 : 3;
          positions[last] = (positions[last]! & 0x3fff) | (w << 14);
        } else if (ch === 100 || ch === 68) {
          if (weight) throw syntax(i, 'two weights for one position');
        } else if (atEnd || charClass(cp) & C_SPACE) return { word, positions, start, end: i };
        else if (!isDigitAt(s, i)) throw syntax(i, `unexpected "${String.fromCodePoint(cp)}" in positions`);
        break;
      }
    }
    i += atEnd ? 1 : cpWidth(cp);
    if (i > s.length + 1) throw syntax(s.length, 'unexpected end');
  }
}

/** Sorts and de-duplicates positions; a position written twice keeps its higher weight (uniquePos). */
function uniquePositions(list: number[]): number[] {
  const a = [...list].sort((x, y) => (x & 0x3fff) - (y & 0x3fff));
  const out: number[] = [];
  for (const p of a) {
    const last = out.length - 1;
    if (last >= 0 && (out[last]! & 0x3fff) === (p & 0x3fff)) {
      if (p >> 14 > out[last]! >> 14) out[last] = (out[last]! & 0x3fff) | (p & 0xc000);
      continue;
    }
    out.push(p);
    // After a new position (not the first), stop at 256 positions or at the last position.
    if (out.length > 1 && (out.length - 1 >= 255 || (p & 0x3fff) === MAX_POSITION)) break;
  }
  return out;
}

/** PostgreSQL's tsvector input (`'...'::tsvector`): sorts lexemes, merges duplicates and their positions. */
export function parseTsVector(text: string): TsVector {
  const entries: { word: string; positions: number[] | null }[] = [];
  let raw = 0;
  let i = 0;
  for (;;) {
    const t = readValueToken(text, i, false);
    if (!t) break;
    const len = utf8Length(t.word);
    if (len >= MAX_LEXEME_BYTES) {
      throw new TextSearchError(`word is too long (${len} bytes, max ${MAX_LEXEME_BYTES - 1} bytes)`, t.start);
    }
    if (raw > MAX_TSVECTOR_BYTES) {
      throw new TextSearchError(`string is too long for tsvector (${raw} bytes, max ${MAX_TSVECTOR_BYTES} bytes)`, t.start);
    }
    raw += len;
    entries.push({ word: t.word, positions: t.positions.length ? t.positions : null });
    i = t.end;
  }
  entries.sort((a, b) => compareLexemes(a.word, b.word));
  const lexemes: string[] = [];
  const positions: (number[] | null)[] = [];
  let merged: number[] | null = null;
  const flush = () => {
    if (lexemes.length) positions.push(merged ? uniquePositions(merged) : null);
  };
  for (const e of entries) {
    if (lexemes.length && lexemes[lexemes.length - 1] === e.word) {
      if (e.positions) merged = merged ? merged.concat(e.positions) : e.positions;
      continue;
    }
    flush();
    lexemes.push(e.word);
    merged = e.positions;
  }
  flush();
  let bytes = 0;
  for (let k = 0; k < lexemes.length; k++) {
    bytes += utf8Length(lexemes[k]!);
    const p = positions[k];
    if (p) bytes = shortAlign(bytes) + 2 + 2 * p.length;
  }
  if (bytes > MAX_TSVECTOR_BYTES) {
    throw new TextSearchError(`string is too long for tsvector (${bytes} bytes, max ${MAX_TSVECTOR_BYTES} bytes)`);
  }
  return { lexemes, positions };
}

/** Whether two tsvectors are equal (same lexemes, positions and weights). */
export function tsvectorEquals(a: TsVector, b: TsVector): boolean {
  if (a.lexemes.length !== b.lexemes.length) return false;
  for (let i = 0; i < a.lexemes.length; i++) {
    if (a.lexemes[i] !== b.lexemes[i]) return false;
    const p = a.positions[i];
    const q = b.positions[i];
    if (!p || !q) {
      if (p !== q && (p?.length || q?.length)) return false;
      continue;
    }
    if (p.length !== q.length) return false;
    for (let j = 0; j < p.length; j++) if (p[j] !== q[j]) return false;
  }
  return true;
}
