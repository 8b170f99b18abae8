// `tsvector @@ tsquery` as PostgreSQL 15 evaluates it (TS_execute): &, |, ! on lexemes' presence,
// weights (:A-:D) and prefixes (:*), and phrase operators (<->, <N>) on positions, including
// negation inside phrases and the width rules of & and | under a phrase. A query is compiled once;
// vectors are matched as TsVector values or, in bulk, from a TsVectorStore, a columnar store of
// many vectors over one interned lexicon.
import { compareLexemes } from './chars';
import type { TsQuery, TsQueryNode } from './tsquery';
import type { TsVector } from './tsvector';

/** A query operand: a lexeme, whether it is a prefix (:*), and its weight bits (A=8 .. D=1, 0 = any). */
export interface QueryOperand {
  readonly lexeme: string;
  readonly prefix: boolean;
  readonly weight: number;
}

/**
 * What a vector must contain for the query to possibly match it, for an index to pre-filter on:
 * `all` when the query can match without any of its lexemes (`!x`, `x | !y`), a term (operand
 * index) that must be present, or an and/or of such conditions.
 */
export type Prefilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'term'; readonly operand: number }
  | { readonly kind: 'and' | 'or'; readonly parts: readonly Prefilter[] };

const NO = 0;
const YES = 1;
const MAYBE = 2;
type Ternary = 0 | 1 | 2;

const T_VAL = 0;
const T_NOT = 1;
const T_AND = 2;
const T_OR = 3;
const T_PHRASE = 4;

const L_ONLY = 1;
const R_ONLY = 2;
const BOTH = 4;

interface PhraseData {
  pos: number[];
  negate: boolean;
  width: number;
}
const newData = (): PhraseData => ({ pos: [], negate: false, width: 0 });

/**
 * The lexeme entries of the vector being matched, found per operand: `hits[k]` lists the entries
 * that operand k matches (its lexeme, or every lexeme it is a prefix of), and `positions(e)`
 * gives an entry's positions (WordEntryPos values), or null when it has none.
 */
interface Access {
  hits: number[][];
  positions(e: number, out: number[]): boolean;
}

const ALL: Prefilter = { kind: 'all' };

export class CompiledTsQuery {
  /** The distinct operands of the query. */
  readonly operands: readonly QueryOperand[];
  /** What a matching vector must contain (see Prefilter). */
  readonly prefilter: Prefilter;
  /** Whether a vector without lexemes matches (then no index can narrow the search). */
  readonly matchesEmpty: boolean;
  /** Whether the query has a phrase operator (and so needs positions). */
  readonly usesPositions: boolean;

  // The query tree, flattened: node n has type[n], left a[n] / right b[n] (or operand a[n]), distance d[n].
  private readonly type: number[] = [];
  private readonly a: number[] = [];
  private readonly b: number[] = [];
  private readonly d: number[] = [];
  private readonly root: number;
  private readonly weighted: boolean[];

  constructor(readonly query: TsQuery) {
    const operands: QueryOperand[] = [];
    const keyOf = new Map<string, number>();
    const add = (node: TsQueryNode): number => {
      const n = this.type.length;
      this.type.push(0);
      this.a.push(0);
      this.b.push(0);
      this.d.push(0);
      switch (node.type) {
        case 'val': {
          const key = `${node.prefix ? 1 : 0}${node.weight}:${node.lexeme}`;
          let k = keyOf.get(key);
          if (k === undefined) {
            k = operands.length;
            keyOf.set(key, k);
            operands.push({ lexeme: node.lexeme, prefix: node.prefix, weight: node.weight });
          }
          this.type[n] = T_VAL;
          this.a[n] = k;
          break;
        }
        case 'not':
          this.type[n] = T_NOT;
          this.a[n] = add(node.arg);
          break;
        default:
          this.type[n] = node.type === 'and' ? T_AND : node.type === 'or' ? T_OR : T_PHRASE;
          this.d[n] = node.type === 'phrase' ? node.distance : 0;
          this.a[n] = add(node.left);
          this.b[n] = add(node.right);
      }
      return n;
    };
    this.root = query.root ? add(query.root) : -1;
    this.operands = operands;
    this.weighted = operands.map((o) => o.weight !== 0);
    this.usesPositions = this.type.includes(T_PHRASE);
    this.prefilter = this.root < 0 ? ALL : this.prefilterOf(this.root);
    this.matchesEmpty = this.root >= 0 && this.evaluate({ hits: operands.map(() => []), positions: () => false });
  }

  private prefilterOf(n: number): Prefilter {
    switch (this.type[n]) {
      case T_VAL:
        return { kind: 'term', operand: this.a[n]! };
      case T_NOT:
        return ALL;
      case T_OR: {
        const l = this.prefilterOf(this.a[n]!);
        const r = this.prefilterOf(this.b[n]!);
        if (l.kind === 'all' || r.kind === 'all') return ALL;
        return { kind: 'or', parts: [...(l.kind === 'or' ? l.parts : [l]), ...(r.kind === 'or' ? r.parts : [r])] };
      }
      default: {
        const l = this.prefilterOf(this.a[n]!);
        const r = this.prefilterOf(this.b[n]!);
        if (l.kind === 'all') return r;
        if (r.kind === 'all') return l;
        return { kind: 'and', parts: [...(l.kind === 'and' ? l.parts : [l]), ...(r.kind === 'and' ? r.parts : [r])] };
      }
    }
  }

  /** Whether the vector matches (`v @@ query`). The empty query matches nothing. */
  matches(v: TsVector): boolean {
    if (this.root < 0) return false;
    const hits = this.operands.map((op) => findEntries(v.lexemes, op));
    return this.evaluate({
      hits,
      positions: (e, out) => {
        const p = v.positions[e];
        if (!p) return false;
        for (let i = 0; i < p.length; i++) out.push(p[i]!);
        return true;
      },
    });
  }

  /** Evaluates the query over the operands' hits (TS_execute with no flags). */
  evaluate(access: Access): boolean {
    return this.root >= 0 && this.bool(this.root, access);
  }

  private bool(n: number, x: Access): boolean {
    switch (this.type[n]) {
      case T_VAL:
        return this.valPresent(this.a[n]!, x);
      case T_NOT:
        return !this.bool(this.a[n]!, x);
      case T_AND:
        return this.bool(this.a[n]!, x) && this.bool(this.b[n]!, x);
      case T_OR:
        return this.bool(this.a[n]!, x) || this.bool(this.b[n]!, x);
      default:
        // A phrase that can only MAYBE match (lexemes without positions) does not match.
        return this.phrase(n, x, null) === YES;
    }
  }

  /** An operand outside phrases: some matching entry with a wanted weight, or without positions. */
  private valPresent(k: number, x: Access): boolean {
    const hits = x.hits[k]!;
    if (!hits.length) return false;
    if (!this.weighted[k]) return true;
    const w = this.operands[k]!.weight;
    const tmp: number[] = [];
    for (const e of hits) {
      tmp.length = 0;
      if (!x.positions(e, tmp)) return true;
      for (const p of tmp) if (w & (1 << (p >> 14))) return true;
    }
    return false;
  }

  /** An operand under a phrase operator: its positions (weight-filtered), or MAYBE without any. */
  private valPositions(k: number, x: Access, data: PhraseData): Ternary {
    const hits = x.hits[k]!;
    if (!hits.length) return NO;
    const w = this.operands[k]!.weight;
    const all: number[] = [];
    const tmp: number[] = [];
    for (const e of hits) {
      tmp.length = 0;
      if (!x.positions(e, tmp)) return MAYBE;
      for (const p of tmp) if (!w || w & (1 << (p >> 14))) all.push(p & 0x3fff);
    }
    if (!all.length) return NO;
    if (hits.length > 1) {
      all.sort((p, q) => p - q);
      let j = 0;
      for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[j - 1]) all[j++] = all[i]!;
      all.length = j;
    }
    data.pos = all;
    return YES;
  }

  /** PostgreSQL's TS_phrase_execute; `data` is null only for the topmost phrase operator. */
  private phrase(n: number, x: Access, data: PhraseData | null): Ternary {
    const t = this.type[n];
    if (t === T_VAL) return this.valPositions(this.a[n]!, x, data!);
    if (t === T_NOT) {
      const d = data!;
      switch (this.phrase(this.a[n]!, x, d)) {
        case NO:
          d.negate = true;
          return YES;
        case YES:
          if (d.pos.length) {
            d.negate = !d.negate;
            return YES;
          }
          if (d.negate) {
            d.negate = false;
            return NO;
          }
          return NO;
        default:
          return MAYBE;
      }
    }
    const L = newData();
    const R = newData();
    if (t === T_OR) {
      const d = data!;
      const lm = this.phrase(this.a[n]!, x, L);
      const rm = this.phrase(this.b[n]!, x, R);
      if (lm === NO && rm === NO) return NO;
      if (lm === MAYBE || rm === MAYBE) return MAYBE;
      if (lm === NO) L.width = 0;
      if (rm === NO) R.width = 0;
      const maxw = Math.max(L.width, R.width);
      const lo = maxw - L.width;
      const ro = maxw - R.width;
      d.width = maxw;
      if (L.negate && R.negate) {
        output(d, L, R, BOTH, lo, ro);
        d.negate = true;
        return YES;
      }
      if (L.negate) {
        output(d, L, R, L_ONLY, lo, ro);
        d.negate = true;
        return YES;
      }
      if (R.negate) {
        output(d, L, R, R_ONLY, lo, ro);
        d.negate = true;
        return YES;
      }
      return output(d, L, R, BOTH | L_ONLY | R_ONLY, lo, ro);
    }
    // & and <N>
    const lm = this.phrase(this.a[n]!, x, L);
    if (lm === NO) return NO;
    const rm = this.phrase(this.b[n]!, x, R);
    if (rm === NO) return NO;
    if (lm === MAYBE || rm === MAYBE) return MAYBE;
    let lo: number;
    let ro: number;
    if (t === T_PHRASE) {
      lo = this.d[n]! + R.width;
      ro = 0;
      if (data) data.width = this.d[n]! + L.width + R.width;
    } else {
      const maxw = Math.max(L.width, R.width);
      lo = maxw - L.width;
      ro = maxw - R.width;
      if (data) data.width = maxw;
    }
    if (L.negate && R.negate) {
      output(data, L, R, BOTH | L_ONLY | R_ONLY, lo, ro);
      if (data) data.negate = true;
      return YES;
    }
    if (L.negate) return output(data, L, R, R_ONLY, lo, ro);
    if (R.negate) return output(data, L, R, L_ONLY, lo, ro);
    return output(data, L, R, BOTH, lo, ro);
  }

  /** Binds the query to a store for matching its records in bulk. */
  bind(store: TsVectorStore): BoundTsQuery {
    return new BoundTsQuery(this, store);
  }
}

/** Merges two position lists (PostgreSQL's TS_phrase_output). */
function output(data: PhraseData | null, L: PhraseData, R: PhraseData, emit: number, lo: number, ro: number): Ternary {
  let li = 0;
  let ri = 0;
  const lp = L.pos;
  const rp = R.pos;
  while (li < lp.length || ri < rp.length) {
    let lpos: number;
    let rpos: number;
    if (li < lp.length) lpos = (lp[li]! & 0x3fff) + lo;
    else {
      if (!(emit & R_ONLY)) break;
      lpos = Number.MAX_SAFE_INTEGER;
    }
    if (ri < rp.length) rpos = (rp[ri]! & 0x3fff) + ro;
    else {
      if (!(emit & L_ONLY)) break;
      rpos = Number.MAX_SAFE_INTEGER;
    }
    let out = 0;
    if (lpos < rpos) {
      if (emit & L_ONLY) out = lpos;
      li++;
    } else if (lpos === rpos) {
      if (emit & BOTH) out = rpos;
      li++;
      ri++;
    } else {
      if (emit & R_ONLY) out = rpos;
      ri++;
    }
    if (out > 0) {
      if (!data) return YES;
      // Positions are stored in 16 bits, as PostgreSQL's are.
      data.pos.push(out & 0xffff);
    }
  }
  return data && data.pos.length ? YES : NO;
}

/** The entries of a sorted lexeme list an operand matches. */
function findEntries(lexemes: readonly string[], op: QueryOperand): number[] {
  let lo = 0;
  let hi = lexemes.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (compareLexemes(lexemes[m]!, op.lexeme) < 0) lo = m + 1;
    else hi = m;
  }
  if (!op.prefix) return lo < lexemes.length && lexemes[lo] === op.lexeme ? [lo] : [];
  const out: number[] = [];
  for (let i = lo; i < lexemes.length && lexemes[i]!.startsWith(op.lexeme); i++) out.push(i);
  return out;
}

/** Compiles a query for matching (`@@`). */
export function compileTsQuery(query: TsQuery): CompiledTsQuery {
  return new CompiledTsQuery(query);
}

// ---- bulk matching

/** Interned lexemes: each distinct lexeme gets a number, shared by all the vectors of a store. */
export class TsLexicon {
  private readonly ids = new Map<string, number>();
  readonly lexemes: string[] = [];

  /** The lexeme's number, assigning the next one to a new lexeme. */
  intern(lexeme: string): number {
    let id = this.ids.get(lexeme);
    if (id === undefined) {
      id = this.lexemes.length;
      this.ids.set(lexeme, id);
      this.lexemes.push(lexeme);
    }
    return id;
  }

  /** The lexeme's number, or -1 when no vector has it. */
  id(lexeme: string): number {
    return this.ids.get(lexeme) ?? -1;
  }

  get size(): number {
    return this.lexemes.length;
  }
}

/**
 * Many tsvectors in a few typed arrays: per record, its entries (lexeme numbers, in lexeme order)
 * and each entry's positions. About 6 bytes per lexeme occurrence plus 4 per record.
 */
export class TsVectorStore {
  private recStart = new Uint32Array(1024);
  private ids = new Int32Array(4096);
  private posStart = new Uint32Array(4096);
  private hasPos = new Uint8Array(4096);
  private pos = new Uint16Array(8192);
  private records = 0;
  private entries = 0;
  private positions = 0;

  constructor(readonly lexicon: TsLexicon = new TsLexicon()) {}

  get size(): number {
    return this.records;
  }

  /** Adds a vector; returns its record number (0, 1, 2, ...). */
  add(v: TsVector): number {
    const n = v.lexemes.length;
    let np = 0;
    for (const p of v.positions) np += p ? p.length : 0;
    if (this.records + 2 > this.recStart.length) this.recStart = grow(this.recStart, this.records + 2);
    if (this.entries + n + 1 > this.ids.length) {
      const size = this.entries + n + 1;
      this.ids = grow(this.ids, size);
      this.posStart = grow(this.posStart, size);
      this.hasPos = grow(this.hasPos, size);
    }
    if (this.positions + np > this.pos.length) this.pos = grow(this.pos, this.positions + np);
    for (let i = 0; i < n; i++) {
      const e = this.entries++;
      this.ids[e] = this.lexicon.intern(v.lexemes[i]!);
      this.posStart[e] = this.positions;
      const p = v.positions[i];
      this.hasPos[e] = p ? 1 : 0;
      if (p) {
        for (let j = 0; j < p.length; j++) this.pos[this.positions + j] = p[j]!;
        this.positions += p.length;
      }
    }
    this.posStart[this.entries] = this.positions;
    this.recStart[++this.records] = this.entries;
    return this.records - 1;
  }

  /** The vector of a record. */
  get(record: number): TsVector {
    const lexemes: string[] = [];
    const positions: (number[] | null)[] = [];
    for (let e = this.recStart[record]!; e < this.recStart[record + 1]!; e++) {
      lexemes.push(this.lexicon.lexemes[this.ids[e]!]!);
      positions.push(this.hasPos[e] ? Array.from(this.pos.subarray(this.posStart[e]!, this.posStart[e + 1]!)) : null);
    }
    return { lexemes, positions };
  }

  /** @internal The store's arrays, for matching. */
  columns() {
    return { recStart: this.recStart, ids: this.ids, posStart: this.posStart, hasPos: this.hasPos, pos: this.pos };
  }
}

function grow<T extends Uint32Array | Int32Array | Uint8Array | Uint16Array>(a: T, need: number): T {
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/** A compiled query bound to a store: matches its records by number. */
export class BoundTsQuery {
  // For each lexeme number: 0 when no operand matches it, else 1 + index into `opLists`.
  private slot = new Int32Array(0);
  private opLists: number[][] = [[]];
  private readonly listIndex = new Map<string, number>();
  private known = 0;
  private readonly hits: number[][];
  private cols: ReturnType<TsVectorStore['columns']>;
  private readonly access: Access;

  constructor(
    readonly compiled: CompiledTsQuery,
    readonly store: TsVectorStore,
  ) {
    this.hits = compiled.operands.map(() => []);
    this.cols = store.columns();
    this.access = {
      hits: this.hits,
      positions: (e, out) => {
        const c = this.cols;
        if (!c.hasPos[e]) return false;
        for (let i = c.posStart[e]!; i < c.posStart[e + 1]!; i++) out.push(c.pos[i]!);
        return true;
      },
    };
    this.refresh();
  }

  /** Takes in lexemes the store learned since the query was bound. */
  private refresh(): void {
    const lex = this.store.lexicon;
    if (lex.size === this.known) return;
    if (lex.size > this.slot.length) this.slot = grow(this.slot.length ? this.slot : new Int32Array(1024), lex.size);
    const ops = this.compiled.operands;
    for (let id = this.known; id < lex.size; id++) {
      const lexeme = lex.lexemes[id]!;
      let list: number[] | null = null;
      for (let k = 0; k < ops.length; k++) {
        const op = ops[k]!;
        if (op.prefix ? lexeme.startsWith(op.lexeme) : lexeme === op.lexeme) (list ??= []).push(k);
      }
      if (list) {
        const key = list.join(',');
        let idx = this.listIndex.get(key);
        if (idx === undefined) {
          idx = this.opLists.length;
          this.opLists.push(list);
          this.listIndex.set(key, idx);
        }
        this.slot[id] = idx;
      }
    }
    this.known = lex.size;
  }

  /** Whether record `r` of the store matches. */
  test(r: number): boolean {
    if (this.store.lexicon.size !== this.known) this.refresh();
    this.cols = this.store.columns();
    const { recStart, ids } = this.cols;
    const hits = this.hits;
    for (const h of hits) h.length = 0;
    const slot = this.slot;
    for (let e = recStart[r]!, end = recStart[r + 1]!; e < end; e++) {
      const s = slot[ids[e]!]!;
      if (s) for (const k of this.opLists[s]!) hits[k]!.push(e);
    }
    return this.compiled.evaluate(this.access);
  }

  /** The numbers of all matching records, in order. */
  matching(): number[] {
    const out: number[] = [];
    for (let r = 0, n = this.store.size; r < n; r++) if (this.test(r)) out.push(r);
    return out;
  }
}
