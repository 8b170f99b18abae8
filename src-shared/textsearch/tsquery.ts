// PostgreSQL's tsquery: the query syntax as PostgreSQL 15 reads it (what it accepts, what it
// refuses and with which message), `to_tsquery('simple', text)` with each operand normalised
// through the same parser and dictionary as to_tsvector (`openssh-server` becomes a phrase of its
// parts), `text::tsquery` (operands as written), and the tsquery's text output.
import { utf8Length } from './chars';
import { isSpaceAt, MAX_LEXEME_BYTES, MAX_TSVECTOR_BYTES, parseWords, readValueToken, TextSearchError } from './tsvector';

/** Weight bits of a query operand: A = 8, B = 4, C = 2, D = 1 (0: any weight). */
export const WEIGHT_BITS = { A: 8, B: 4, C: 2, D: 1 } as const;

export type TsQueryNode =
  | { readonly type: 'val'; readonly lexeme: string; readonly prefix: boolean; readonly weight: number }
  | { readonly type: 'not'; readonly arg: TsQueryNode }
  | { readonly type: 'and' | 'or'; readonly left: TsQueryNode; readonly right: TsQueryNode }
  | { readonly type: 'phrase'; readonly distance: number; readonly left: TsQueryNode; readonly right: TsQueryNode };

/** A tsquery; `root` is null for the empty query (which matches nothing). */
export interface TsQuery {
  readonly root: TsQueryNode | null;
}

/** The query as written, before normalisation: operands keep their text and where they stand. */
export type TsQuerySyntax =
  | { readonly type: 'operand'; readonly text: string; readonly prefix: boolean; readonly weight: number; readonly start: number; readonly end: number }
  | { readonly type: 'not'; readonly arg: TsQuerySyntax }
  | { readonly type: 'and' | 'or'; readonly left: TsQuerySyntax; readonly right: TsQuerySyntax }
  | { readonly type: 'phrase'; readonly distance: number; readonly left: TsQuerySyntax; readonly right: TsQuerySyntax };

export interface TsQueryError {
  /** PostgreSQL's message, word for word (`syntax error in tsquery: "a b"`). */
  message: string;
  /** What is wrong, in words, with the position (`unexpected "b" at position 2`). */
  reason: string;
  /** UTF-16 index into the query where reading stopped. */
  position: number;
}

export type TsQueryResult =
  | {
      ok: true;
      query: TsQuery;
      /** The query as written. */
      syntax: TsQuerySyntax | null;
      /** PostgreSQL's NOTICE when the query comes out empty (it then matches nothing). */
      notice?: string;
    }
  | { ok: false; error: TsQueryError };

// Operator priorities (PostgreSQL's tsearch_op_priority): ! binds tightest, then <->, &, |.
const PRIORITY = { not: 4, phrase: 3, and: 2, or: 1 } as const;
type Op = keyof typeof PRIORITY;
const STACK_DEPTH = 32;

/**
 * How deeply parentheses may nest. PostgreSQL reads a parenthesis by recursion and refuses a query
 * its C stack cannot hold ("stack depth limit exceeded"): with PostgreSQL 15's default
 * max_stack_depth (2MB), beyond 7,695 nested parentheses in a plain query (fewer inside a
 * function: the figure moves with the stack in use). This module reads them with a stack of its
 * own and refuses, with the same message, beyond the same 7,695. Chains of operators (`a | b | c
 * | ...`, `a & b & ...`, `a <-> b <-> ...`) are not limited: they are read, normalised, printed
 * and matched without recursion, however long, as PostgreSQL accepts them.
 */
export const MAX_QUERY_DEPTH = 7695;
const tooDeep = (at: number) => new TextSearchError('stack depth limit exceeded', at, `parentheses nest more than ${MAX_QUERY_DEPTH} levels deep`);

/**
 * Folds a tree bottom-up without recursion: `build` gets a node and the results of its children
 * (in order), so that trees as deep as a chain of 40,000 operators do not exhaust the stack.
 */
export function foldTree<S, T>(root: S, kids: (s: S) => readonly S[], build: (s: S, results: T[]) => T): T {
  const todo: S[] = [root];
  const expanded: boolean[] = [false];
  const out: T[] = [];
  while (todo.length) {
    const i = todo.length - 1;
    const s = todo[i]!;
    const k = kids(s);
    if (k.length && !expanded[i]) {
      expanded[i] = true;
      for (let j = k.length - 1; j >= 0; j--) {
        todo.push(k[j]!);
        expanded.push(false);
      }
      continue;
    }
    todo.pop();
    expanded.pop();
    out.push(build(s, k.length ? out.splice(out.length - k.length, k.length) : []));
  }
  return out[0]!;
}

const NO_KIDS: never[] = [];
/** The children of a query node, left to right. */
export function queryKids<N extends { type: string }>(node: N): readonly N[] {
  const n = node as unknown as { type: string; arg?: N; left?: N; right?: N };
  if (n.type === 'not') return [n.arg!];
  if (n.left !== undefined) return [n.left, n.right!];
  return NO_KIDS;
}

const WAIT_OPERAND = 1;
const WAIT_OPERATOR = 2;
const WAIT_FIRST_OPERAND = 3;

type Token =
  | { t: 'end' }
  | { t: 'open' }
  | { t: 'close' }
  | { t: 'op'; op: Op; distance: number; at: number }
  | { t: 'val'; text: string; prefix: boolean; weight: number; start: number; end: number };

/** Reads the query's tokens as PostgreSQL's standard tsquery tokenizer does. */
class QueryReader {
  i = 0;
  state = WAIT_FIRST_OPERAND;
  depth = 0;

  constructor(readonly s: string) {}

  fail(at: number, reason: string): never {
    throw new TextSearchError(`syntax error in tsquery: "${this.s}"`, at, reason);
  }

  private modifiers(): { prefix: boolean; weight: number } {
    let prefix = false;
    let weight = 0;
    const s = this.s;
    if (s.charCodeAt(this.i) !== 58) return { prefix, weight };
    this.i++;
    for (; this.i < s.length; this.i++) {
      const c = s[this.i];
      if (c === 'a' || c === 'A') weight |= 8;
      else if (c === 'b' || c === 'B') weight |= 4;
      else if (c === 'c' || c === 'C') weight |= 2;
      else if (c === 'd' || c === 'D') weight |= 1;
      else if (c === '*') prefix = true;
      else break;
    }
    return { prefix, weight };
  }

  /** `<->` or `<N>` at the current '<': the distance and the index after it, or null. */
  private phraseOperator(): { distance: number; end: number } | null {
    const s = this.s;
    let p = this.i + 1;
    let distance = 1;
    if (s[p] === '-') p++;
    else {
      let q = p;
      while (q < s.length && s.charCodeAt(q) >= 48 && s.charCodeAt(q) <= 57) q++;
      if (q === p) return null;
      const digits = s.slice(p, q).replace(/^0+(?=\d)/, '');
      if (digits.length > 5 || Number(digits) > 16384) {
        throw new TextSearchError(
          'distance in phrase operator must be an integer value between zero and 16384 inclusive',
          this.i,
          `phrase distance ${s.slice(p, q)} is above 16384`,
        );
      }
      distance = Number(digits);
      p = q;
    }
    // PostgreSQL reads the operator only while characters follow it: a query cannot end with one.
    if (s[p] !== '>' || p + 1 >= s.length) return null;
    return { distance, end: p + 1 };
  }

  next(): Token {
    const s = this.s;
    for (;;) {
      const c = this.i < s.length ? s.charCodeAt(this.i) : 0;
      if (this.state === WAIT_OPERAND || this.state === WAIT_FIRST_OPERAND) {
        if (c === 33) {
          this.state = WAIT_OPERAND;
          return { t: 'op', op: 'not', distance: 0, at: this.i++ };
        }
        if (c === 40) {
          if (this.depth >= MAX_QUERY_DEPTH) throw tooDeep(this.i);
          this.i++;
          this.state = WAIT_OPERAND;
          this.depth++;
          return { t: 'open' };
        }
        if (c === 58) this.fail(this.i, 'unexpected ":" where an operand should start');
        if (!isSpaceAt(s, this.i)) {
          const v = readValueToken(s, this.i, true);
          if (v) {
            this.i = v.end;
            const { prefix, weight } = this.modifiers();
            this.state = WAIT_OPERATOR;
            return { t: 'val', text: v.word, prefix, weight, start: v.start, end: v.end };
          }
          if (this.state === WAIT_FIRST_OPERAND) return { t: 'end' };
          throw new TextSearchError(`no operand in tsquery: "${s}"`, s.length, `unexpected end of query at position ${s.length}`);
        }
      } else {
        if (c === 38 || c === 124) {
          this.state = WAIT_OPERAND;
          return { t: 'op', op: c === 38 ? 'and' : 'or', distance: 0, at: this.i++ };
        }
        if (c === 60) {
          const ph = this.phraseOperator();
          if (ph) {
            const at = this.i;
            this.i = ph.end;
            this.state = WAIT_OPERAND;
            return { t: 'op', op: 'phrase', distance: ph.distance, at };
          }
          this.fail(this.i, 'malformed phrase operator (expected <-> or <N>)');
        }
        if (c === 41) {
          this.i++;
          this.depth--;
          if (this.depth < 0) this.fail(this.i - 1, 'unmatched ")"');
          return { t: 'close' };
        }
        if (this.i >= s.length) {
          if (this.depth) this.fail(this.i, 'missing ")"');
          return { t: 'end' };
        }
        if (!isSpaceAt(s, this.i)) this.fail(this.i, `unexpected "${String.fromCodePoint(s.codePointAt(this.i)!)}"`);
      }
      this.i += (s.codePointAt(this.i) ?? 0) > 0xffff ? 2 : 1;
    }
  }
}

/** Parses the query's structure (makepol), handing each operand to `operand` as PostgreSQL does. */
function parseStructure<T>(
  reader: QueryReader,
  operand: (tok: Extract<Token, { t: 'val' }>) => T,
  combine: (op: Op, distance: number, left: T | null, right: T) => T,
): T | null {
  // One frame per open parenthesis, kept on a stack of our own (PostgreSQL recurses; a query
  // nested thousands of levels deep would take the JavaScript stack with it).
  type Frame = { values: T[]; ops: { op: Op; distance: number }[] };
  const frames: Frame[] = [{ values: [], ops: [] }];
  const apply = (f: Frame) => {
    const { op, distance } = f.ops.pop()!;
    const right = f.values.pop()!;
    f.values.push(op === 'not' ? combine(op, 0, null, right) : combine(op, distance, f.values.pop()!, right));
  };
  const clean = (f: Frame, op: Op) => {
    const p = PRIORITY[op];
    while (f.ops.length) {
      const top = PRIORITY[f.ops[f.ops.length - 1]!.op];
      if ((op !== 'not' && p > top) || (op === 'not' && p >= top)) break;
      apply(f);
    }
  };
  for (;;) {
    const f = frames[frames.length - 1]!;
    const tok = reader.next();
    switch (tok.t) {
      case 'val':
        f.values.push(operand(tok));
        break;
      case 'op':
        clean(f, tok.op);
        if (f.ops.length === STACK_DEPTH) {
          throw new TextSearchError('tsquery stack too small', tok.at, `more than ${STACK_DEPTH} operators waiting for operands at position ${tok.at}`);
        }
        f.ops.push({ op: tok.op, distance: tok.distance });
        break;
      case 'open':
        frames.push({ values: [], ops: [] });
        break;
      case 'close': {
        clean(f, 'or');
        const inner = f.values.pop() ?? null;
        frames.pop();
        if (inner !== null) frames[frames.length - 1]!.values.push(inner);
        break;
      }
      case 'end':
        clean(f, 'or');
        return f.values.pop() ?? null;
    }
  }
}

const syntaxCombine = (op: Op, distance: number, left: TsQuerySyntax | null, right: TsQuerySyntax): TsQuerySyntax =>
  op === 'not' ? { type: 'not', arg: right } : op === 'phrase' ? { type: 'phrase', distance, left: left!, right } : { type: op, left: left!, right };

/** A node of a query under construction: a stop word stands where an operand gave no lexeme. */
type Building = TsQueryNode | { type: 'stop' };

function buildQuery(text: string, normalise: boolean): TsQueryResult {
  const reader = new QueryReader(text);
  let storage = 0; // bytes of operand storage, as PostgreSQL counts them
  let operands = 0;
  let hasStop = false;
  const pushValue = (lexeme: string, weight: number, prefix: boolean, at: number): TsQueryNode => {
    const len = utf8Length(lexeme);
    if (len >= MAX_LEXEME_BYTES) throw new TextSearchError(`word is too long in tsquery: "${text}"`, at, `a word of ${len} bytes (at most ${MAX_LEXEME_BYTES - 1})`);
    if (storage >= MAX_TSVECTOR_BYTES) throw new TextSearchError(`value is too big in tsquery: "${text}"`, at, 'the operands exceed 1 MB');
    storage += len + 1;
    return { type: 'val', lexeme, prefix, weight };
  };
  try {
    const built = parseStructure<{ node: Building; syntax: TsQuerySyntax }>(
      reader,
      (tok) => {
        operands++;
        const syntax: TsQuerySyntax = { type: 'operand', text: tok.text, prefix: tok.prefix, weight: tok.weight, start: tok.start, end: tok.end };
        if (!normalise) return { node: pushValue(tok.text, tok.weight, tok.prefix, tok.start), syntax };
        const node = morph(tok.text, tok.weight, tok.prefix, tok.start);
        if (node.type === 'stop') hasStop = true;
        return { node, syntax };
      },
      (op, distance, left, right) => ({
        node: combineBuilding(op, distance, left?.node ?? null, right.node),
        syntax: syntaxCombine(op, distance, left?.syntax ?? null, right.syntax),
      }),
    );
    if (!operands || !built) {
      return { ok: true, query: { root: null }, syntax: null, notice: `text-search query doesn't contain lexemes: "${text}"` };
    }
    const root = hasStop ? cleanStopWords(built.node) : (built.node as TsQueryNode);
    if (!root) {
      return {
        ok: true,
        query: { root: null },
        syntax: built.syntax,
        notice: 'text-search query contains only stop words or doesn\'t contain lexemes, ignored',
      };
    }
    return { ok: true, query: { root }, syntax: built.syntax };
  } catch (e) {
    if (e instanceof TextSearchError) {
      const reason = /position \d+$/.test(e.reason) ? e.reason : `${e.reason} at position ${e.position}`;
      return { ok: false, error: { message: e.message, reason, position: e.position } };
    }
    throw e;
  }

  // An operand through the parser and the simple dictionary (pushval_morph): its words in a
  // phrase (<->), words at one position (past position 16383) joined by &, or a stop word.
  function morph(operandText: string, weight: number, prefix: boolean, at: number): Building {
    const words = parseWords(operandText);
    if (!words.length) return { type: 'stop' };
    const stack: Building[] = [];
    const op2 = (make: (l: Building, r: Building) => Building) => {
      const r = stack.pop()!;
      const l = stack.pop()!;
      stack.push(make(l, r));
    };
    let count = 0;
    let pos = 0;
    let groups = 0;
    while (count < words.length) {
      if (pos > 0 && pos + 1 < words[count]!.position) {
        while (pos + 1 < words[count]!.position) {
          stack.push({ type: 'stop' });
          if (groups) op2((l, r) => combineBuilding('phrase', 1, l, r));
          groups++;
          pos++;
        }
      }
      pos = words[count]!.position;
      let inGroup = 0;
      while (count < words.length && words[count]!.position === pos) {
        stack.push(pushValue(words[count]!.lexeme, weight, prefix, at));
        if (inGroup) op2((l, r) => combineBuilding('and', 0, l, r));
        inGroup++;
        count++;
      }
      if (groups) op2((l, r) => combineBuilding('phrase', 1, l, r));
      groups++;
    }
    return stack.pop()!;
  }
}

function combineBuilding(op: Op, distance: number, left: Building | null, right: Building): Building {
  if (op === 'not') return { type: 'not', arg: right as TsQueryNode };
  if (op === 'phrase') return { type: 'phrase', distance, left: left as TsQueryNode, right: right as TsQueryNode };
  return { type: op, left: left as TsQueryNode, right: right as TsQueryNode };
}

const int16 = (n: number) => (n << 16) >> 16;

/**
 * Removes stop words from a query (PostgreSQL's clean_stopword_intree): an operator loses the
 * side that was a stop word, and the phrase distances around a removed word grow by its width,
 * so that 'a <-> - <-> b' becomes 'a' <2> 'b'.
 */
function cleanStopWords(root: Building): TsQueryNode | null {
  type Cleaned = { node: TsQueryNode | null; ladd: number; radd: number };
  const build = (node: Building, kids: Cleaned[]): Cleaned => {
    switch (node.type) {
      case 'stop':
        return { node: null, ladd: 0, radd: 0 };
      case 'val':
        return { node, ladd: 0, radd: 0 };
      case 'not': {
        const r = kids[0]!;
        return r.node ? { node: { type: 'not', arg: r.node }, ladd: r.ladd, radd: r.radd } : { node: null, ladd: r.ladd, radd: r.radd };
      }
      default: {
        const l = kids[0]!;
        const r = kids[1]!;
        const isPhrase = node.type === 'phrase';
        const d = node.type === 'phrase' ? node.distance : 0;
        if (!l.node && !r.node) {
          const add = isPhrase ? l.ladd + d + r.ladd : Math.max(l.ladd, r.ladd);
          return { node: null, ladd: add, radd: add };
        }
        if (!l.node) return isPhrase ? { node: r.node, ladd: l.ladd + d + r.ladd, radd: r.radd } : { node: r.node, ladd: r.ladd, radd: r.radd };
        if (!r.node) return isPhrase ? { node: l.node, ladd: l.ladd, radd: l.radd + d + r.radd } : { node: l.node, ladd: l.ladd, radd: l.radd };
        if (isPhrase) {
          return { node: { type: 'phrase', distance: int16(d + l.radd + r.ladd), left: l.node, right: r.node }, ladd: l.ladd, radd: r.radd };
        }
        return { node: { type: node.type, left: l.node, right: r.node }, ladd: 0, radd: 0 };
      }
    }
  };
  return foldTree<Building, Cleaned>(root, queryKids, build).node;
}

/** PostgreSQL's `to_tsquery('simple', text)`: the query, or the error PostgreSQL would raise. */
export function toTsQuery(text: string): TsQueryResult {
  return buildQuery(text, true);
}

/** PostgreSQL's `text::tsquery`: operands as written, without normalisation. */
export function tsqueryFromText(text: string): TsQueryResult {
  return buildQuery(text, false);
}

/** Only the query's structure, operands as written (no normalisation), or the syntax error. */
export function parseTsQuerySyntax(text: string): { ok: true; syntax: TsQuerySyntax | null } | { ok: false; error: TsQueryError } {
  const r = buildQuery(text, false);
  return r.ok ? { ok: true, syntax: r.syntax } : r;
}

const quote = (lexeme: string) => `'${lexeme.replace(/['\\]/g, (c) => c + c)}'`;

function operandText(node: Extract<TsQueryNode, { type: 'val' }>): string {
  let out = quote(node.lexeme);
  if (node.weight || node.prefix) {
    out += ':';
    if (node.prefix) out += '*';
    if (node.weight & 8) out += 'A';
    if (node.weight & 4) out += 'B';
    if (node.weight & 2) out += 'C';
    if (node.weight & 1) out += 'D';
  }
  return out;
}

/**
 * PostgreSQL's infix(): the tree printed in its own shape, parenthesised where an operand binds
 * more loosely than its parent, and the right side of a phrase operator when it is a phrase.
 * Without recursion: a stack of pieces still to write (text, or a node with its context).
 */
function infix(root: TsQueryNode): string {
  type Task = string | { node: TsQueryNode; parent: number; rightOfPhrase: boolean };
  const todo: Task[] = [{ node: root, parent: -1, rightOfPhrase: false }];
  const out: string[] = [];
  while (todo.length) {
    const task = todo.pop()!;
    if (typeof task === 'string') {
      out.push(task);
      continue;
    }
    const { node, parent, rightOfPhrase } = task;
    switch (node.type) {
      case 'val':
        out.push(operandText(node));
        break;
      case 'not': {
        const paren = PRIORITY.not < parent;
        if (paren) todo.push(' )');
        todo.push({ node: node.arg, parent: PRIORITY.not, rightOfPhrase: false });
        out.push(paren ? '( !' : '!');
        break;
      }
      default: {
        const p = PRIORITY[node.type];
        const sign = node.type === 'phrase' ? (node.distance === 1 ? '<->' : `<${node.distance}>`) : node.type === 'or' ? '|' : '&';
        const paren = p < parent || (node.type === 'phrase' && rightOfPhrase);
        if (paren) todo.push(' )');
        todo.push({ node: node.right, parent: p, rightOfPhrase: node.type === 'phrase' }, ` ${sign} `, { node: node.left, parent: p, rightOfPhrase: false });
        if (paren) out.push('( ');
      }
    }
  }
  return out.join('');
}

/** The tsquery's text, as PostgreSQL prints it: `'adobe' & ( 'gimp' | !'gnu' ) <-> 'x':*A`. */
export function tsqueryToString(q: TsQuery): string {
  return q.root ? infix(q.root) : '';
}
