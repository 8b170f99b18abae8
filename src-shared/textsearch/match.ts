// `tsvector @@ tsquery` as PostgreSQL 15 evaluates it (TS_execute): &, |, ! on lexemes' presence,
// weights (:A-:D) and prefixes (:*), and phrase operators (<->, <N>) on positions, including
// negation inside phrases and the width rules of & and | under a phrase. A query is compiled once;
// vectors are matched as TsVector values or, in bulk, from a TsVectorStore, a columnar store of
// many vectors over one interned lexicon.
import { compareLexemes } from './chars';
import { foldTree, queryKids, type TsQuery, type TsQueryNode } from './tsquery';
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

/**
 * Where a (sub)query matches under a phrase operator (PostgreSQL's ExecPhraseData): positions
 * arr[start .. end) (WordEntryPos values: the position is the low 14 bits), whether the set is
 * negated, and the match's width.
 */
interface PhraseData {
  arr: ArrayLike<number>;
  start: number;
  end: number;
  negate: boolean;
  width: number;
}
const NO_POSITIONS: number[] = [];
const newData = (): PhraseData => ({ arr: NO_POSITIONS, start: 0, end: 0, negate: false, width: 0 });

/**
 * The lexeme entries of the vector being matched, found per operand: `hits[k]` lists the entries
 * operand k matches (its lexeme, or every lexeme it is a prefix of). Entry e has positions
 * pos[posStart[e] .. posStart[e + 1]) when hasPos[e] is 1.
 */
interface Access {
  hits: number[][];
  hasPos: ArrayLike<number>;
  posStart: ArrayLike<number>;
  pos: ArrayLike<number>;
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
  // The nodes on the way down from the root while evaluating, and which side each is on.
  private readonly stack: number[] = [];
  private readonly side: number[] = [];

  constructor(readonly query: TsQuery) {
    const operands: QueryOperand[] = [];
    const keyOf = new Map<string, number>();
    // Children are numbered before their parent (the tree is folded without recursion), so a
    // pass in node order meets every node after its children.
    const add = (node: TsQueryNode, kids: number[]): number => {
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
          this.a[n] = kids[0]!;
          break;
        default:
          this.type[n] = node.type === 'and' ? T_AND : node.type === 'or' ? T_OR : T_PHRASE;
          this.d[n] = node.type === 'phrase' ? node.distance : 0;
          this.a[n] = kids[0]!;
          this.b[n] = kids[1]!;
      }
      return n;
    };
    this.root = query.root ? foldTree<TsQueryNode, number>(query.root, queryKids, add) : -1;
    this.operands = operands;
    this.weighted = operands.map((o) => o.weight !== 0);
    this.usesPositions = this.type.includes(T_PHRASE);
    this.prefilter = this.root < 0 ? ALL : this.prefilterOf();
    this.matchesEmpty = this.root >= 0 && this.evaluate({ hits: operands.map(() => []), hasPos: [], posStart: [0], pos: [] });
  }

  /** The prefilter of every node, children first; an and/or of and/ors is flattened into one. */
  private prefilterOf(): Prefilter {
    const of: Prefilter[] = new Array(this.type.length);
    for (let n = 0; n < this.type.length; n++) {
      const t = this.type[n];
      if (t === T_VAL) {
        of[n] = { kind: 'term', operand: this.a[n]! };
        continue;
      }
      if (t === T_NOT) {
        of[n] = ALL;
        continue;
      }
      const l = of[this.a[n]!]!;
      const r = of[this.b[n]!]!;
      const kind = t === T_OR ? 'or' : 'and';
      if (l.kind === 'all' || r.kind === 'all') {
        of[n] = kind === 'or' ? ALL : l.kind === 'all' ? r : l;
        continue;
      }
      // Each node has one parent: its children's part lists are taken over, not copied.
      const parts = l.kind === kind ? (l.parts as Prefilter[]) : [l];
      if (r.kind === kind) for (const p of r.parts) parts.push(p);
      else parts.push(r);
      of[n] = { kind, parts };
    }
    return of[this.root]!;
  }

  /** Whether the vector matches (`v @@ query`). The empty query matches nothing. */
  matches(v: TsVector): boolean {
    if (this.root < 0) return false;
    const hits = this.operands.map((op) => findEntries(v.lexemes, op));
    if (!this.usesPositions && !this.weighted.includes(true)) return this.evaluate({ hits, hasPos: [], posStart: [], pos: [] });
    const n = v.lexemes.length;
    const hasPos: number[] = new Array(n);
    const posStart: number[] = new Array(n + 1);
    const pos: number[] = [];
    for (let e = 0; e < n; e++) {
      const p = v.positions[e];
      hasPos[e] = p ? 1 : 0;
      posStart[e] = pos.length;
      if (p) for (let i = 0; i < p.length; i++) pos.push(p[i]!);
    }
    posStart[n] = pos.length;
    return this.evaluate({ hits, hasPos, posStart, pos });
  }

  /** Evaluates the query over the operands' hits (TS_execute with no flags). */
  evaluate(access: Access): boolean {
    return this.root >= 0 && this.bool(this.root, access);
  }

  /**
   * The query's truth outside phrases, without recursion: each operand from `x`, or, when `x`
   * is null, from the bits of `mask` (operand k present when bit k is set). & and | decide on
   * their left side when it suffices, as PostgreSQL's TS_execute does.
   */
  private bool(root: number, x: Access | null, mask = 0): boolean {
    const type = this.type;
    const stack = this.stack;
    const side = this.side;
    let sp = 0;
    let n = root;
    let result = false;
    for (;;) {
      // Down the left side to an operand or a phrase.
      for (;;) {
        const t = type[n];
        if (t === T_VAL) {
          result = x ? this.valPresent(this.a[n]!, x) : (mask & (1 << this.a[n]!)) !== 0;
          break;
        }
        if (t === T_PHRASE) {
          // A phrase that can only MAYBE match (lexemes without positions) does not match.
          result = this.phrase(n, x!, null) === YES;
          break;
        }
        stack[sp] = n;
        side[sp++] = 0;
        n = this.a[n]!;
      }
      // Up, until an & or | needs its right side.
      let descend = false;
      while (sp > 0) {
        const p = stack[sp - 1]!;
        const t = type[p];
        if (t === T_NOT) result = !result;
        else if (side[sp - 1] === 0 && (t === T_AND ? result : !result)) {
          side[sp - 1] = 1;
          n = this.b[p]!;
          descend = true;
          break;
        }
        sp--;
      }
      if (!descend) return result;
    }
  }

  /** An operand outside phrases: some matching entry with a wanted weight, or without positions. */
  private valPresent(k: number, x: Access): boolean {
    const hits = x.hits[k]!;
    if (!hits.length) return false;
    if (!this.weighted[k]) return true;
    const w = this.operands[k]!.weight;
    const { hasPos, posStart, pos } = x;
    for (const e of hits) {
      if (!hasPos[e]) return true;
      for (let i = posStart[e]!, end = posStart[e + 1]!; i < end; i++) if (w & (1 << (pos[i]! >> 14))) return true;
    }
    return false;
  }

  /** An operand under a phrase operator: its positions (weight-filtered), or MAYBE without any. */
  private valPositions(k: number, x: Access, data: PhraseData): Ternary {
    const hits = x.hits[k]!;
    if (!hits.length) return NO;
    const w = this.operands[k]!.weight;
    const { hasPos, posStart, pos } = x;
    if (hits.length === 1 && !w) {
      const e = hits[0]!;
      if (!hasPos[e]) return MAYBE;
      data.arr = pos;
      data.start = posStart[e]!;
      data.end = posStart[e + 1]!;
      return YES;
    }
    const all: number[] = [];
    for (const e of hits) {
      if (!hasPos[e]) return MAYBE;
      for (let i = posStart[e]!, end = posStart[e + 1]!; i < end; i++) {
        const p = pos[i]!;
        if (!w || w & (1 << (p >> 14))) all.push(p & 0x3fff);
      }
    }
    if (!all.length) return NO;
    if (hits.length > 1) {
      all.sort((p, q) => p - q);
      let j = 0;
      for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[j - 1]) all[j++] = all[i]!;
      all.length = j;
    }
    data.arr = all;
    data.start = 0;
    data.end = all.length;
    return YES;
  }

  /**
   * PostgreSQL's TS_phrase_execute from phrase node `root`, without recursion: a frame per
   * operator on the way down, each with the positions of its left (L) and right (R) sides.
   */
  private phrase(root: number, x: Access, rootData: PhraseData | null): Ternary {
    const frames: PhraseFrame[] = [];
    let n = root;
    let data = rootData;
    let ret: Ternary = NO;
    for (;;) {
      for (;;) {
        const t = this.type[n];
        if (t === T_VAL) {
          ret = this.valPositions(this.a[n]!, x, data!);
          break;
        }
        const f: PhraseFrame = { n, data, L: t === T_NOT ? data! : newData(), R: t === T_NOT ? data! : newData(), right: false, lm: NO };
        frames.push(f);
        data = f.L;
        n = this.a[n]!;
      }
      let descend = false;
      while (frames.length) {
        const f = frames[frames.length - 1]!;
        const t = this.type[f.n];
        if (t !== T_NOT && !f.right) {
          f.lm = ret;
          // & and <N> stop at a left side that does not match; | always reads both.
          if (t === T_OR || ret !== NO) {
            f.right = true;
            n = this.b[f.n]!;
            data = f.R;
            descend = true;
            break;
          }
        }
        frames.pop();
        ret = t === T_NOT ? notPhrase(ret, f.data!) : t === T_OR ? orPhrase(f.lm, ret, f.L, f.R, f.data!) : andPhrase(t === T_PHRASE ? this.d[f.n]! : -1, f.lm, ret, f.L, f.R, f.data);
      }
      if (!descend) return ret;
    }
  }

  /**
   * For a query of at most 31 operands without phrases or weights: the query as a function of
   * the set of operands present (bit k for operand k).
   */
  maskEvaluator(): (m: number) => boolean {
    if (this.root < 0) return () => false;
    const build = (n: number): ((m: number) => boolean) => {
      switch (this.type[n]) {
        case T_VAL: {
          const bit = 1 << this.a[n]!;
          return (m) => (m & bit) !== 0;
        }
        case T_NOT: {
          const f = build(this.a[n]!);
          return (m) => !f(m);
        }
        case T_AND: {
          const l = build(this.a[n]!);
          const r = build(this.b[n]!);
          return (m) => l(m) && r(m);
        }
        case T_OR: {
          const l = build(this.a[n]!);
          const r = build(this.b[n]!);
          return (m) => l(m) || r(m);
        }
        default:
          throw new Error('maskEvaluator: the query has a phrase operator');
      }
    };
    if (this.usesPositions || this.operands.length > 31) return () => false;
    // Closures for a small tree; a long chain (of few distinct operands) is walked without recursion.
    const f = this.type.length <= 512 ? build(this.root) : (m: number) => this.bool(this.root, null, m);
    // With few operands, a truth table answers in one lookup.
    if (this.operands.length <= 12) {
      const table = new Uint8Array(1 << this.operands.length);
      for (let m = 0; m < table.length; m++) table[m] = f(m) ? 1 : 0;
      return (m) => table[m] === 1;
    }
    return f;
  }

  /** Binds the query to a store for matching its records in bulk. */
  bind(store: TsVectorStore): BoundTsQuery {
    return new BoundTsQuery(this, store);
  }
}

/** An operator being evaluated under a phrase: its data, its sides' data, and the left result. */
interface PhraseFrame {
  n: number;
  data: PhraseData | null;
  L: PhraseData;
  R: PhraseData;
  right: boolean;
  lm: Ternary;
}

/** ! under a phrase, from its operand's result (computed into `d`). */
function notPhrase(m: Ternary, d: PhraseData): Ternary {
  switch (m) {
    case NO:
      d.negate = true;
      return YES;
    case YES:
      if (d.end > d.start) {
        d.negate = !d.negate;
        return YES;
      }
      if (d.negate) d.negate = false;
      return NO;
    default:
      return MAYBE;
  }
}

/** | under a phrase, from both sides' results. */
function orPhrase(lm: Ternary, rm: Ternary, L: PhraseData, R: PhraseData, d: PhraseData): Ternary {
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

/** & (distance -1) or <distance> under a phrase, from both sides' results. */
function andPhrase(distance: number, lm: Ternary, rm: Ternary, L: PhraseData, R: PhraseData, data: PhraseData | null): Ternary {
  if (lm === NO || rm === NO) return NO;
  if (lm === MAYBE || rm === MAYBE) return MAYBE;
  let lo: number;
  let ro: number;
  if (distance >= 0) {
    lo = distance + R.width;
    ro = 0;
    if (data) data.width = distance + L.width + R.width;
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

/** Merges two position lists (PostgreSQL's TS_phrase_output). */
function output(data: PhraseData | null, L: PhraseData, R: PhraseData, emit: number, lo: number, ro: number): Ternary {
  let li = L.start;
  let ri = R.start;
  const la = L.arr;
  const ra = R.arr;
  let out: number[] | null = null;
  while (li < L.end || ri < R.end) {
    let lpos: number;
    let rpos: number;
    if (li < L.end) lpos = (la[li]! & 0x3fff) + lo;
    else {
      if (!(emit & R_ONLY)) break;
      lpos = Number.MAX_SAFE_INTEGER;
    }
    if (ri < R.end) rpos = (ra[ri]! & 0x3fff) + ro;
    else {
      if (!(emit & L_ONLY)) break;
      rpos = Number.MAX_SAFE_INTEGER;
    }
    let p = 0;
    if (lpos < rpos) {
      if (emit & L_ONLY) p = lpos;
      li++;
    } else if (lpos === rpos) {
      if (emit & BOTH) p = rpos;
      li++;
      ri++;
    } else {
      if (emit & R_ONLY) p = rpos;
      ri++;
    }
    if (p > 0) {
      if (!data) return YES;
      // Positions are stored in 16 bits, as PostgreSQL's are.
      (out ??= []).push(p & 0xffff);
    }
  }
  if (data && out) {
    data.arr = out;
    data.start = 0;
    data.end = out.length;
    return YES;
  }
  return NO;
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

  // The inverted index: for lexeme number id, the records that have it are
  // postRecs[postStart[id] .. postStart[id + 1]), ascending. Built on first use, again after adds.
  private postStart = new Int32Array(0);
  private postRecs = new Int32Array(0);
  private postBuiltFor = -1;

  /** The records (ascending) whose vector has lexeme number `id`. */
  postings(id: number): Int32Array {
    if (this.postBuiltFor !== this.entries) this.buildPostings();
    if (id < 0 || id + 1 >= this.postStart.length) return new Int32Array(0);
    return this.postRecs.subarray(this.postStart[id]!, this.postStart[id + 1]!);
  }

  private buildPostings(): void {
    const n = this.lexicon.size;
    const start = new Int32Array(n + 1);
    for (let e = 0; e < this.entries; e++) start[this.ids[e]! + 1]!++;
    for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
    const cursor = start.slice(0, n);
    const recs = new Int32Array(this.entries);
    for (let r = 0; r < this.records; r++) {
      for (let e = this.recStart[r]!, end = this.recStart[r + 1]!; e < end; e++) recs[cursor[this.ids[e]!]!++] = r;
    }
    this.postStart = start;
    this.postRecs = recs;
    this.postBuiltFor = this.entries;
  }
}

function grow<T extends Uint32Array | Int32Array | Uint8Array | Uint16Array>(a: T, need: number): T {
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/**
 * A compiled query bound to a store: matches its records by number. Records are tested one by
 * one (a query of at most 31 operands without weights or phrases by one bit mask per record), and
 * `matching()` first narrows them through the store's inverted index when the query's prefilter
 * allows it.
 */
export class BoundTsQuery {
  // Lexeme numbers each operand matches (its lexeme, or all the lexemes it is a prefix of).
  private readonly operandIds: number[][];
  // For each lexeme number: the operands it satisfies, as a bit mask (fast path) and as a list.
  private maskOf = new Int32Array(0);
  private listOf: (number[] | undefined)[] = [];
  private known = 0;
  private readonly fast: boolean;
  private readonly evalMask: (m: number) => boolean;
  private readonly hits: number[][];
  private cols: ReturnType<TsVectorStore['columns']>;
  private readonly access: Access;

  constructor(
    readonly compiled: CompiledTsQuery,
    readonly store: TsVectorStore,
  ) {
    const ops = compiled.operands;
    this.operandIds = ops.map(() => []);
    this.hits = ops.map(() => []);
    this.fast = ops.length <= 31 && !compiled.usesPositions && ops.every((o) => o.weight === 0);
    this.evalMask = compiled.maskEvaluator();
    this.cols = store.columns();
    this.access = { hits: this.hits, hasPos: this.cols.hasPos, posStart: this.cols.posStart, pos: this.cols.pos };
    this.refresh();
  }

  /** Takes in lexemes the store learned since the query was bound. */
  private refresh(): void {
    const lex = this.store.lexicon;
    const size = lex.size;
    if (size === this.known) return;
    if (size > this.maskOf.length) {
      const m = new Int32Array(Math.max(1024, size * 2));
      m.set(this.maskOf);
      this.maskOf = m;
    }
    const ops = this.compiled.operands;
    const mark = (id: number, k: number) => {
      this.operandIds[k]!.push(id);
      if (k < 31) this.maskOf[id]! |= 1 << k;
      (this.listOf[id] ??= []).push(k);
    };
    let prefixes = false;
    for (let k = 0; k < ops.length; k++) {
      const op = ops[k]!;
      if (op.prefix) prefixes = true;
      else {
        const id = lex.id(op.lexeme);
        if (id >= this.known && id < size) mark(id, k);
      }
    }
    if (prefixes) {
      for (let id = this.known; id < size; id++) {
        const lexeme = lex.lexemes[id]!;
        for (let k = 0; k < ops.length; k++) {
          const op = ops[k]!;
          if (op.prefix && lexeme.startsWith(op.lexeme)) mark(id, k);
        }
      }
    }
    this.known = size;
  }

  /** Whether record `r` of the store matches. */
  test(r: number): boolean {
    if (this.store.lexicon.size !== this.known) this.refresh();
    const c = (this.cols = this.store.columns());
    const ids = c.ids;
    const end = c.recStart[r + 1]!;
    if (this.fast) {
      let m = 0;
      const maskOf = this.maskOf;
      for (let e = c.recStart[r]!; e < end; e++) m |= maskOf[ids[e]!]!;
      return this.evalMask(m);
    }
    const hits = this.hits;
    for (const h of hits) h.length = 0;
    const x = this.access;
    x.hasPos = c.hasPos;
    x.posStart = c.posStart;
    x.pos = c.pos;
    for (let e = c.recStart[r]!; e < end; e++) {
      const list = this.listOf[ids[e]!];
      if (list) for (const k of list) hits[k]!.push(e);
    }
    return this.compiled.evaluate(x);
  }

  /**
   * The records that could match, from the inverted index (ascending), or null when the query
   * can match a vector without any of its lexemes and every record must be tested.
   */
  candidates(): Int32Array | null {
    if (this.compiled.prefilter.kind === 'all') return null;
    if (this.store.lexicon.size !== this.known) this.refresh();
    return this.candidatesOf(this.compiled.prefilter);
  }

  private candidatesOf(f: Prefilter): Int32Array {
    switch (f.kind) {
      case 'term':
        return union(this.operandIds[f.operand]!.map((id) => this.store.postings(id)), this.store.size);
      case 'or':
        return union(
          f.parts.map((p) => this.candidatesOf(p)),
          this.store.size,
        );
      case 'and': {
        const parts = f.parts.map((p) => this.candidatesOf(p)).sort((a, b) => a.length - b.length);
        let acc = parts[0]!;
        for (let i = 1; i < parts.length && acc.length; i++) acc = intersect(acc, parts[i]!);
        return acc;
      }
      default:
        throw new Error('prefilter: no candidates for "all"');
    }
  }

  /** The numbers of all matching records, ascending. */
  matching(): number[] {
    const out: number[] = [];
    const cand = this.candidates();
    if (!cand && this.fast) {
      // Every record, by bit masks filled from the index: each operand marks the records that
      // have one of its lexemes, then the query is asked of each record's mask.
      if (this.store.lexicon.size !== this.known) this.refresh();
      const n = this.store.size;
      const masks = new Int32Array(n);
      this.operandIds.forEach((ids, k) => {
        const bit = 1 << k;
        for (const id of ids) {
          const recs = this.store.postings(id);
          for (let i = 0; i < recs.length; i++) masks[recs[i]!]! |= bit;
        }
      });
      const f = this.evalMask;
      for (let r = 0; r < n; r++) if (f(masks[r]!)) out.push(r);
      return out;
    }
    if (cand) {
      for (let i = 0; i < cand.length; i++) if (this.test(cand[i]!)) out.push(cand[i]!);
    } else {
      for (let r = 0, n = this.store.size; r < n; r++) if (this.test(r)) out.push(r);
    }
    return out;
  }

  /** How many records match. */
  count(): number {
    return this.matching().length;
  }
}

/** The union of ascending record lists, ascending. */
function union(lists: Int32Array[], records: number): Int32Array {
  if (!lists.length) return new Int32Array(0);
  if (lists.length === 1) return lists[0]!;
  let total = 0;
  for (const l of lists) total += l.length;
  if (total * 8 < records) {
    const all = new Int32Array(total);
    let o = 0;
    for (const l of lists) {
      all.set(l, o);
      o += l.length;
    }
    all.sort();
    let j = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[j - 1]) all[j++] = all[i]!;
    return all.subarray(0, j);
  }
  const seen = new Uint8Array(records);
  for (const l of lists) for (let i = 0; i < l.length; i++) seen[l[i]!] = 1;
  let n = 0;
  for (let r = 0; r < records; r++) n += seen[r]!;
  const out = new Int32Array(n);
  for (let r = 0, o = 0; r < records; r++) if (seen[r]) out[o++] = r;
  return out;
}

/** The intersection of two ascending record lists. */
function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}
