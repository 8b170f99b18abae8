// The tsquery validator guards software compliance rules (spec: `rules.query`, "validated
// before saving"; 400 `invalid query`). These tests pin the grammar PostgreSQL accepts; what
// PostgreSQL 15 itself answers is checked in textsearch-postgres.test.ts.
import { describe, expect, it } from 'vitest';
import { isValidTsQuery, parseTsQuery, type TsNode } from '../../src-shared/tsquery';

function ast(input: string): TsNode {
  const r = parseTsQuery(input);
  if (!r.ok) throw new Error(`expected "${input}" to parse, got: ${r.error} (position ${r.position})`);
  if (!r.ast) throw new Error(`expected "${input}" to hold an operand`);
  return r.ast;
}

function failure(input: string): { error: string; position: number } {
  const r = parseTsQuery(input);
  if (r.ok) throw new Error(`expected "${input}" to be rejected, got ${JSON.stringify(r.ast)}`);
  return { error: r.error, position: r.position };
}

const lex = (value: string, prefix = false, weights = ''): TsNode => ({ type: 'lexeme', value, prefix, weights });

describe('tsquery: valid queries and their parse trees', () => {
  it('parses a single bare lexeme', () => {
    expect(ast('nginx')).toEqual(lex('nginx'));
  });

  it('parses a & b as an and node', () => {
    expect(ast('a & b')).toEqual({ type: 'and', left: lex('a'), right: lex('b') });
  });

  it("parses 'fat' & ('rat' | !'cat') with grouping and negation", () => {
    expect(ast("'fat' & ('rat' | !'cat')")).toEqual({
      type: 'and',
      left: lex('fat'),
      right: { type: 'or', left: lex('rat'), right: { type: 'not', arg: lex('cat') } },
    });
  });

  it('parses super:* as a prefix lexeme', () => {
    expect(ast('super:*')).toEqual(lex('super', true, ''));
  });

  it("parses 'a b':AB as one quoted lexeme with weights", () => {
    expect(ast("'a b':AB")).toEqual(lex('a b', false, 'AB'));
  });

  it('upper-cases weights and combines them with the prefix marker', () => {
    expect(ast('post:*ab')).toEqual(lex('post', true, 'AB'));
    expect(ast('post:c*')).toEqual(lex('post', true, 'C'));
  });

  it('parses a <-> b as a phrase of distance 1', () => {
    expect(ast('a <-> b')).toEqual({ type: 'phrase', distance: 1, left: lex('a'), right: lex('b') });
  });

  it('parses a <2> b as a phrase of distance 2', () => {
    expect(ast('a <2> b')).toEqual({ type: 'phrase', distance: 2, left: lex('a'), right: lex('b') });
  });

  it('accepts the largest phrase distance PostgreSQL allows and rejects one above it', () => {
    expect(ast('a <16384> b')).toMatchObject({ type: 'phrase', distance: 16384 });
    expect(isValidTsQuery('a <16385> b')).toBe(false);
  });

  it('parses !!a as a double negation', () => {
    expect(ast('!!a')).toEqual({ type: 'not', arg: { type: 'not', arg: lex('a') } });
  });

  it("unescapes doubled quotes inside a quoted lexeme ('it''s')", () => {
    expect(ast("'it''s'")).toEqual(lex("it's"));
    expect(ast("'o''reilly' & 'd''artagnan'")).toEqual({ type: 'and', left: lex("o'reilly"), right: lex("d'artagnan") });
  });

  it('unescapes a backslash-escaped quote inside a quoted lexeme', () => {
    expect(ast("'it\\'s'")).toEqual(lex("it's"));
  });

  it('keeps special characters inside a quoted lexeme', () => {
    expect(ast("'a&b|c!(d)'")).toEqual(lex('a&b|c!(d)'));
  });

  it('accepts Cyrillic lexemes (ядро & linux)', () => {
    expect(ast('ядро & linux')).toEqual({ type: 'and', left: lex('ядро'), right: lex('linux') });
    expect(ast("'антивирус касперского':* | !драйвер")).toEqual({
      type: 'or',
      left: lex('антивирус касперского', true),
      right: { type: 'not', arg: lex('драйвер') },
    });
  });

  it('tolerates surrounding and inner whitespace, tabs and newlines', () => {
    expect(ast('  a\t&\n b  ')).toEqual({ type: 'and', left: lex('a'), right: lex('b') });
    expect(ast('a&b')).toEqual({ type: 'and', left: lex('a'), right: lex('b') });
  });

  it('gives ! the tightest binding, then <->, then &, then |', () => {
    expect(ast('a | b & c')).toEqual({ type: 'or', left: lex('a'), right: { type: 'and', left: lex('b'), right: lex('c') } });
    expect(ast('a & b | c')).toEqual({ type: 'or', left: { type: 'and', left: lex('a'), right: lex('b') }, right: lex('c') });
    expect(ast('a & b <-> c')).toEqual({
      type: 'and',
      left: lex('a'),
      right: { type: 'phrase', distance: 1, left: lex('b'), right: lex('c') },
    });
    expect(ast('!a <-> b')).toEqual({ type: 'phrase', distance: 1, left: { type: 'not', arg: lex('a') }, right: lex('b') });
  });

  it('associates binary operators to the left', () => {
    expect(ast('a & b & c')).toEqual({ type: 'and', left: { type: 'and', left: lex('a'), right: lex('b') }, right: lex('c') });
    expect(ast('a <-> b <3> c')).toEqual({
      type: 'phrase',
      distance: 3,
      left: { type: 'phrase', distance: 1, left: lex('a'), right: lex('b') },
      right: lex('c'),
    });
  });

  it('parses nested parentheses', () => {
    expect(ast('((a))')).toEqual(lex('a'));
    expect(ast('!(a | (b & c))')).toEqual({
      type: 'not',
      arg: { type: 'or', left: lex('a'), right: { type: 'and', left: lex('b'), right: lex('c') } },
    });
  });

  it('isValidTsQuery agrees with parseTsQuery', () => {
    for (const q of ['a & b', 'super:*', 'ядро & linux', "'it''s'", '']) expect(isValidTsQuery(q)).toBe(true);
    for (const q of ['a &', 'a b', "''"]) expect(isValidTsQuery(q)).toBe(false);
  });
});

describe('tsquery: invalid queries', () => {
  it('accepts an empty or blank query as PostgreSQL does, with its notice: the query matches nothing', () => {
    for (const q of ['', '   \t ']) {
      const r = parseTsQuery(q);
      expect(r).toMatchObject({ ok: true, ast: null, normalized: '' });
      expect(r.ok && r.notice).toBe(`text-search query doesn't contain lexemes: "${q}"`);
    }
  });

  it('rejects a & with nothing after it, at the end of the input', () => {
    const f = failure('a &');
    expect(f.position).toBe(3);
    expect(f.error).toMatch(/end of query/);
  });

  it('rejects a leading & at position 0', () => {
    expect(failure('& a').position).toBe(0);
  });

  it('rejects a leading | and a trailing |', () => {
    expect(failure('| a').position).toBe(0);
    expect(failure('a |').position).toBe(3);
  });

  it('rejects an unclosed parenthesis where the ) should be', () => {
    const f = failure('(a');
    expect(f.position).toBe(2);
    expect(f.error).toMatch(/\)/);
  });

  it('rejects an unmatched ) at its position', () => {
    const f = failure('a)');
    expect(f.position).toBe(1);
    expect(f.error).toContain(')');
  });

  it('rejects two operands without an operator (a b) at the second operand', () => {
    const f = failure('a b');
    expect(f.position).toBe(2);
    expect(f.error).toContain('"b"');
  });

  it('rejects a malformed phrase operator (a <x> b) at the <', () => {
    const f = failure('a <x> b');
    expect(f.position).toBe(2);
    expect(f.error).toMatch(/phrase operator/);
    expect(failure('a <-').position).toBe(2);
    expect(failure('a < 2> b').position).toBe(2);
  });

  it('accepts a colon without weights or * (a:) as PostgreSQL does, and rejects a character after it', () => {
    expect(parseTsQuery('a:')).toMatchObject({ ok: true, ast: lex('a'), normalized: "'a'" });
    const f = failure('a:x');
    expect(f.position).toBe(2);
    expect(f.error).toContain('"x"');
  });

  it("rejects an empty quoted lexeme ('')", () => {
    const f = failure("''");
    expect(f.error).toMatch(/empty lexeme/);
  });

  it("accepts a blank quoted lexeme (' ') as PostgreSQL does: no word, so the query matches nothing", () => {
    expect(parseTsQuery("' '")).toMatchObject({
      ok: true,
      normalized: '',
      notice: "text-search query contains only stop words or doesn't contain lexemes, ignored",
    });
  });

  it('rejects an unterminated quoted lexeme', () => {
    expect(failure("'abc").error).toMatch(/unterminated/);
    expect(isValidTsQuery("'it''s")).toBe(false);
  });

  it('rejects a dangling negation and an empty group', () => {
    expect(failure('!').position).toBe(1);
    expect(isValidTsQuery('()')).toBe(false);
    expect(isValidTsQuery('a & ()')).toBe(false);
  });

  it('rejects a trailing backslash', () => {
    expect(isValidTsQuery('a\\')).toBe(false);
  });

  it('reports the position in the error text as well', () => {
    const f = failure('ядро & ');
    expect(f.position).toBe(7);
    expect(f.error).toContain('position 7');
  });
});
