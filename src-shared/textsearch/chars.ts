// Character classes of PostgreSQL's default text search parser and the simple dictionary's
// lower-casing, in a UTF-8 database whose LC_CTYPE is C.UTF-8. ASCII follows the C locale; other
// code points come from unicode-data.ts, read from the server by scripts/textsearch-tables.mjs.
import { ALPHA, LOWER, SPACE, SPECIAL } from './unicode-data';

/** A letter (isalpha / iswalpha). */
export const C_ALPHA = 1;
/** A digit: only 0-9 (iswdigit knows no other). */
export const C_DIGIT = 2;
/** Not a letter but part of a word (zero display width, spacing combining marks). */
export const C_SPECIAL = 4;
/** White space (isspace / iswspace). */
export const C_SPACE = 8;
/** A hexadecimal digit (ASCII only). */
export const C_XDIGIT = 16;
/** An ASCII letter. */
export const C_ASCLET = 32;
/** An ASCII character allowed in a URL path (RFC 3986, printable, no space). */
export const C_URLCHAR = 64;

const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  let k = 0;
  if (/[A-Za-z]/.test(ch)) k |= C_ALPHA | C_ASCLET;
  if (/[0-9]/.test(ch)) k |= C_DIGIT;
  if (/[0-9A-Fa-f]/.test(ch)) k |= C_XDIGIT;
  if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) k |= C_SPACE;
  if (c > 0x20 && c < 0x7f && !'"<>\\^`{|}'.includes(ch)) k |= C_URLCHAR;
  // NUL has zero display width (a PostgreSQL text never holds one).
  if (c === 0) k |= C_SPECIAL;
  ASCII[c] = k;
}

function decodeRanges(encoded: string): number[] {
  const out: number[] = [];
  let prev = 0;
  for (const part of encoded.split(',')) {
    const [gap, len] = part.split('.');
    const lo = prev + parseInt(gap!, 36);
    const hi = lo + parseInt(len!, 36);
    out.push(lo, hi);
    prev = hi;
  }
  return out;
}

// Classes of the Basic Multilingual Plane in one table; the rest by binary search over each
// class's ranges. Built on first use, so that loading the module costs nothing.
let BMP: Uint8Array | null = null;
const ASTRAL: { lo: number[]; hi: number[]; cls: number }[] = [];

function buildClasses(): Uint8Array {
  const bmp = new Uint8Array(0x10000);
  for (const [encoded, cls] of [
    [ALPHA, C_ALPHA],
    [SPECIAL, C_SPECIAL],
    [SPACE, C_SPACE],
  ] as const) {
    const r = decodeRanges(encoded);
    const astral = { lo: [] as number[], hi: [] as number[], cls };
    for (let i = 0; i < r.length; i += 2) {
      const lo = r[i]!;
      const hi = r[i + 1]!;
      for (let c = lo; c <= Math.min(hi, 0xffff); c++) bmp[c]! |= cls;
      if (hi > 0xffff) {
        astral.lo.push(Math.max(lo, 0x10000));
        astral.hi.push(hi);
      }
    }
    ASTRAL.push(astral);
  }
  bmp.set(ASCII, 0);
  return bmp;
}

/** The class bits (C_*) of a code point. */
export function charClass(cp: number): number {
  if (cp < 0x10000) return (BMP ??= buildClasses())[cp]!;
  BMP ??= buildClasses();
  let k = 0;
  for (const { lo, hi, cls } of ASTRAL) {
    let a = 0;
    let b = lo.length - 1;
    while (a <= b) {
      const m = (a + b) >> 1;
      if (cp < lo[m]!) b = m - 1;
      else if (cp > hi[m]!) a = m + 1;
      else {
        k |= cls;
        break;
      }
    }
  }
  return k;
}

let LOWER_MAP: Map<number, number> | null = null;

function buildLower(): Map<number, number> {
  const map = new Map<number, number>();
  let prev = 0;
  for (const part of LOWER.split(',')) {
    const [gap, count, delta, step] = part.split('.');
    const start = prev + parseInt(gap!, 36);
    const n = parseInt(count!, 36);
    const d = delta!.startsWith('-') ? -parseInt(delta!.slice(1), 36) : parseInt(delta!, 36);
    const s = Number(step);
    for (let i = 0; i < n; i++) map.set(start + i * s, start + i * s + d);
    prev = start + (n - 1) * s;
  }
  return map;
}

/** The lower-case of a code point, one code point for one (towlower), as the simple dictionary does. */
export function lowerCodePoint(cp: number): number {
  if (cp < 128) return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  return (LOWER_MAP ??= buildLower()).get(cp) ?? cp;
}

/** The lower-case of a string, code point by code point. */
export function lowerText(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 128) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s.toLowerCase();
  let out = '';
  for (const ch of s) out += String.fromCodePoint(lowerCodePoint(ch.codePointAt(0)!));
  return out;
}

/** Bytes of a string in UTF-8 (a lone surrogate counts as the 3 bytes of its replacement). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Compares two strings in PostgreSQL's lexeme order: their UTF-8 bytes (memcmp), a shorter string
 * first when it is a prefix of the other. UTF-16 code units compare the same way except where a
 * surrogate meets a code unit above it, which is fixed up here.
 */
export function compareLexemes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
