// PostgreSQL's tsquery input grammar (to_tsquery / ::tsquery), used to validate software
// compliance rule queries before anything is stored.
//
//   query    := or
//   or       := and ( '|' and )*
//   and      := phrase ( '&' phrase )*
//   phrase   := unary ( ( '<->' | '<' N '>' ) unary )*
//   unary    := '!' unary | '(' or ')' | operand
//   operand  := lexeme [ ':' ( '*' | 'A' | 'B' | 'C' | 'D' )+ ]
//   lexeme   := quoted ('...' with '' or \' for a quote) | bare (no space or & | ! ( ) < > : ')
//
// Precedence, as in PostgreSQL: ! binds tightest, then <->, then &, then |.

export type TsNode =
  | { type: 'lexeme'; value: string; prefix: boolean; weights: string }
  | { type: 'not'; arg: TsNode }
  | { type: 'and' | 'or'; left: TsNode; right: TsNode }
  | { type: 'phrase'; distance: number; left: TsNode; right: TsNode };

export type TsParseResult = { ok: true; ast: TsNode } | { ok: false; error: string; position: number };

const SPECIAL = new Set([' ', '\t', '\n', '\r', '&', '|', '!', '(', ')', '<', '>', ':', "'", '\\']);
const MAX_DISTANCE = 16384; // PostgreSQL's MAXENTRYPOS

class TsSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): TsNode {
    const node = this.or();
    this.skip();
    if (this.i < this.s.length) this.fail(`unexpected "${this.s[this.i]}"`);
    return node;
  }

  private fail(msg: string): never {
    throw new TsSyntaxError(`syntax error in tsquery: ${msg} at position ${this.i}`, this.i);
  }

  private skip(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private or(): TsNode {
    let left = this.and();
    for (;;) {
      this.skip();
      if (this.s[this.i] !== '|') return left;
      this.i++;
      left = { type: 'or', left, right: this.and() };
    }
  }

  private and(): TsNode {
    let left = this.phrase();
    for (;;) {
      this.skip();
      if (this.s[this.i] !== '&') return left;
      this.i++;
      left = { type: 'and', left, right: this.phrase() };
    }
  }

  private phrase(): TsNode {
    let left = this.unary();
    for (;;) {
      this.skip();
      if (this.s[this.i] !== '<') return left;
      const m = /^<(-|\d+)>/.exec(this.s.slice(this.i));
      if (!m) this.fail('malformed phrase operator');
      const distance = m[1] === '-' ? 1 : Number(m[1]);
      if (distance > MAX_DISTANCE) this.fail(`distance in phrase operator must be at most ${MAX_DISTANCE}`);
      this.i += m[0].length;
      left = { type: 'phrase', distance, left, right: this.unary() };
    }
  }

  private unary(): TsNode {
    this.skip();
    const c = this.s[this.i];
    if (c === undefined) this.fail('unexpected end of query');
    if (c === '!') {
      this.i++;
      return { type: 'not', arg: this.unary() };
    }
    if (c === '(') {
      this.i++;
      const inner = this.or();
      this.skip();
      if (this.s[this.i] !== ')') this.fail('missing ")"');
      this.i++;
      return inner;
    }
    return this.operand();
  }

  private operand(): TsNode {
    let value = '';
    if (this.s[this.i] === "'") {
      this.i++;
      for (;;) {
        const c = this.s[this.i];
        if (c === undefined) this.fail('unterminated quoted lexeme');
        if (c === '\\') {
          const next = this.s[this.i + 1];
          if (next === undefined) this.fail('unterminated escape');
          value += next;
          this.i += 2;
        } else if (c === "'") {
          if (this.s[this.i + 1] === "'") {
            value += "'";
            this.i += 2;
          } else {
            this.i++;
            break;
          }
        } else {
          value += c;
          this.i++;
        }
      }
    } else {
      while (this.i < this.s.length) {
        const c = this.s[this.i]!;
        if (c === '\\') {
          const next = this.s[this.i + 1];
          if (next === undefined) this.fail('unterminated escape');
          value += next;
          this.i += 2;
        } else if (SPECIAL.has(c) || /\s/.test(c)) {
          break;
        } else {
          value += c;
          this.i++;
        }
      }
    }
    if (value.trim() === '') this.fail('empty lexeme');
    let prefix = false;
    let weights = '';
    if (this.s[this.i] === ':') {
      this.i++;
      const start = this.i;
      while (this.i < this.s.length && /[*abcdABCD]/.test(this.s[this.i]!)) {
        const c = this.s[this.i]!;
        if (c === '*') prefix = true;
        else weights += c.toUpperCase();
        this.i++;
      }
      if (this.i === start) this.fail('expected weight or "*" after ":"');
    }
    return { type: 'lexeme', value, prefix, weights };
  }
}

export function parseTsQuery(input: string): TsParseResult {
  if (input.trim() === '') return { ok: false, error: 'text-search query does not contain lexemes', position: 0 };
  try {
    return { ok: true, ast: new Parser(input).parse() };
  } catch (e) {
    if (e instanceof TsSyntaxError) return { ok: false, error: e.message, position: e.position };
    throw e;
  }
}

export function isValidTsQuery(input: string): boolean {
  return parseTsQuery(input).ok;
}
