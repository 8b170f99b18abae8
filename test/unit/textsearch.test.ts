// The text search module (src-shared/textsearch): PostgreSQL 15's full text search with the
// `simple` configuration. Cases come from PostgreSQL's documentation (Full Text Search: parsers,
// tsvector, tsquery, @@) and its regression tests (tstypes, tsearch); every expected value is what
// PostgreSQL 15 answers in a C.UTF-8 database (textsearch-postgres.test.ts compares thousands
// more against the server itself).
import { describe, expect, it } from 'vitest';
import {
  compileTsQuery,
  parseTokens,
  parseTsVector,
  softwareText,
  softwareVector,
  TextSearchError,
  toTsQuery,
  toTsQueryOrThrow,
  toTsVector,
  tsMatch,
  tsqueryFromText,
  tsqueryToString,
  TsVectorStore,
  tsvectorToString,
} from '../../src-shared/textsearch';

const vec = (text: string) => tsvectorToString(toTsVector(text));
const tokens = (text: string) => parseTokens(text).map((t) => `${t.alias}:${t.token}`).join(' ');
const q = (text: string) => {
  const r = toTsQuery(text);
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
  return tsqueryToString(r.query);
};
const cast = (text: string) => {
  const r = tsqueryFromText(text);
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
  return r.query;
};
const qError = (text: string) => {
  const r = toTsQuery(text);
  if (r.ok) throw new Error(`${text}: expected an error, got ${tsqueryToString(r.query)}`);
  return r.error;
};
const vecError = (text: string) => {
  try {
    parseTsVector(text);
  } catch (e) {
    expect(e).toBeInstanceOf(TextSearchError);
    return (e as Error).message;
  }
  throw new Error(`${text}: expected an error`);
};
/** `v::tsvector @@ q::tsquery`, as the regression tests write it. */
const matchCast = (v: string, query: string) => tsMatch(parseTsVector(v), cast(query));

describe('the default parser (ts_parse, ts_debug)', () => {
  it('splits a hyphenated word with digits into the word and its parts (documentation: foo-bar-beta1)', () => {
    expect(tokens('foo-bar-beta1')).toBe('numhword:foo-bar-beta1 hword_asciipart:foo blank:- hword_asciipart:bar blank:- hword_numpart:beta1');
  });

  it('splits a URL into protocol, url, host and url_path (documentation)', () => {
    expect(tokens('http://example.com/stuff/index.html')).toBe('protocol:http:// url:example.com/stuff/index.html host:example.com url_path:/stuff/index.html');
  });

  it('gives every token type of the documentation table its type', () => {
    const cases: [string, string][] = [
      ['elephant', 'asciiword'],
      ['mañana', 'word'],
      ['beta1', 'numword'],
      ['foo@example.com', 'email'],
      ['/usr/local/foo.txt', 'file'],
      ['-1.234e56', 'sfloat'],
      ['-1.234', 'float'],
      ['-1', 'int'],
      ['42', 'uint'],
      ['8.3.0', 'version'],
      ['<a href="dictionaries.html">', 'tag'],
      ['&amp;', 'entity'],
      ['up-to-date', 'asciihword'],
      ['lógico-matemática', 'hword'],
      ['postgresql-beta1', 'numhword'],
    ];
    for (const [text, alias] of cases) expect(parseTokens(text)[0], text).toMatchObject({ alias, token: text });
  });

  it('reads Cyrillic as words, skips the contents of <script> and <style>', () => {
    expect(tokens('Ну-ка 1С')).toBe('hword:Ну-ка hword_part:Ну blank:- hword_part:ка blank:  numword:1С');
    expect(vec('<script>var a = 1;</script> b <style>.x{}</style> c')).toBe("'b':1 'c':2");
  });
});

describe("to_tsvector('simple', text)", () => {
  it('indexes every word token, lower-cased, at its position; merges repeated words', () => {
    expect(vec('The Fat Rats')).toBe("'fat':2 'rats':3 'the':1");
    expect(vec('a fat  cat sat on a mat - it ate a fat rats')).toBe("'a':1,6,10 'ate':9 'cat':3 'fat':2,11 'it':8 'mat':7 'on':5 'rats':12 'sat':4");
    expect(vec('a a a a')).toBe("'a':1,2,3,4");
  });

  it('keeps hyphenated words whole and in parts, each with its own position', () => {
    expect(vec('elephant mañana beta1 up-to-date lógico-matemática postgresql-beta1')).toBe(
      "'beta1':3,13 'date':7 'elephant':1 'lógico':9 'lógico-matemática':8 'matemática':10 'mañana':2 'postgresql':12 'postgresql-beta1':11 'to':6 'up':5 'up-to-date':4",
    );
  });

  it('indexes e-mail addresses, URLs with their host and path, files and numbers; not tags or entities', () => {
    expect(vec('foo@example.com http://example.com/stuff/index.html /usr/local/foo.txt -1.234e56 -1.234 -1 42 8.3.0 <a href="dictionaries.html"> &amp; x')).toBe(
      "'-1':8 '-1.234':7 '-1.234e56':6 '/stuff/index.html':4 '/usr/local/foo.txt':5 '42':9 '8.3.0':10 'example.com':3 'example.com/stuff/index.html':2 'foo@example.com':1 'x':11",
    );
  });

  it('lower-cases as the C library does under C.UTF-8: one code point for one', () => {
    expect(vec('Ёлка ЁЛКА ёлка Ну-ка 1С:Предприятие')).toBe("'1с':7 'ка':6 'ну':5 'ну-ка':4 'предприятие':8 'ёлка':1,2,3");
    expect(vec('İstanbul ẞ ǅ Σ')).toBe("'istanbul':1 'ß':2 'ǆ':3 'σ':4");
  });

  it('skips a word of 2048 bytes or more without giving it a position', () => {
    expect(vec(`${'x'.repeat(2048)} y`)).toBe("'y':1");
  });

  it('sorts lexemes by their UTF-8 bytes, quotes and escapes them', () => {
    expect(vec("it's a \\ test")).toBe("'a':3 'it':1 's':2 'test':4");
    // UTF-8 puts U+FF5A before U+10428 (UTF-16 code units would not).
    expect(vec('\u{10400} ｚ zz')).toBe("'zz':3 'ｚ':2 '\u{10428}':1");
  });
});

describe('the tsvector input syntax and text output (regression test tstypes)', () => {
  it('reads bare and quoted lexemes with escapes', () => {
    const out = (v: string) => tsvectorToString(parseTsVector(v));
    expect(out('1')).toBe("'1'");
    expect(out(' 1 ')).toBe("'1'");
    expect(out('1 2')).toBe("'1' '2'");
    expect(out("'1 2'")).toBe("'1 2'");
    expect(out("'1 \\'2' ' 3' 4 ")).toBe("' 3' '1 ''2' '4'");
    expect(out("'\\\\as' ab\\c ab\\\\c AB\\\\\\c ab\\\\\\\\c")).toBe("'AB\\\\c' '\\\\as' 'ab\\\\\\\\c' 'ab\\\\c' 'abc'");
  });

  it('merges duplicate lexemes and positions, keeping the higher weight; * is weight A', () => {
    expect(tsvectorToString(parseTsVector('w:12B w:13* w:12,5,6 a:1,3* a:3 w asd:1dc asd'))).toBe("'a':1,3A 'asd':1C 'w':5,6,12B,13A");
  });

  it('refuses what PostgreSQL refuses, with its message', () => {
    expect(vecError("'' '1' '2'")).toBe(`syntax error in tsvector: "'' '1' '2'"`);
    expect(vecError('a:0')).toBe('wrong position info in tsvector: "a:0"');
    expect(vecError('a:1,b')).toBe('syntax error in tsvector: "a:1,b"');
    expect(vecError('a\\')).toBe('there is no escaped character: "a\\"');
  });
});

describe("to_tsquery('simple', query) and query::tsquery", () => {
  it('normalises operands through the parser and the simple dictionary (documentation)', () => {
    expect(q('The & Fat & Rats')).toBe("'the' & 'fat' & 'rats'");
    expect(q('Fat | Rats:AB')).toBe("'fat' | 'rats':AB");
    expect(q('supernovae:*')).toBe("'supernovae':*");
    expect(q("'supernovae stars' & !crab")).toBe("'supernovae' <-> 'stars' & !'crab'");
  });

  it('turns an operand of several words into a phrase, each word with the operand weight and prefix', () => {
    expect(q('openssh-server')).toBe("'openssh-server' <-> 'openssh' <-> 'server'");
    expect(q('postgresql-beta1:B*')).toBe("'postgresql-beta1':*B <-> 'postgresql':*B <-> 'beta1':*B");
  });

  it('drops operands without a word, widening the phrase around them', () => {
    expect(q('a <-> - <-> b')).toBe("'a' <2> 'b'");
    expect(q('a & ( - | b)')).toBe("'a' & 'b'");
    const r = toTsQuery('!-');
    expect(r).toMatchObject({ ok: true, query: { root: null }, notice: "text-search query contains only stop words or doesn't contain lexemes, ignored" });
  });

  it('prints with PostgreSQL parentheses: by priority, and around a phrase on the right of a phrase', () => {
    expect(q('a <-> (b|c)')).toBe("'a' <-> ( 'b' | 'c' )");
    expect(q('(a|b) <-> !c')).toBe("( 'a' | 'b' ) <-> !'c'");
    expect(q('a <-> (b <-> c) <-> d')).toBe("'a' <-> ( 'b' <-> 'c' ) <-> 'd'");
    expect(q('!(a & b) & !!c')).toBe("!( 'a' & 'b' ) & !!'c'");
  });

  it('keeps operands as written in ::tsquery (regression test tstypes)', () => {
    expect(tsqueryToString(cast('a:* & nbb:*ac | doo:a* | goo'))).toBe("'a':* & 'nbb':*AC | 'doo':*A | 'goo'");
    expect(tsqueryToString(cast("1&('2'&(' 4'&(\\|5 | '6 \\' !|&')))"))).toBe("'1' & '2' & ' 4' & ( '|5' | '6 '' !|&' )");
    for (const [input, out] of [
      ['!1|2', "!'1' | '2'"],
      ['!(!1|!2)', "!( !'1' | !'2' )"],
      ['1|(2&3)', "'1' | '2' & '3'"],
      ['(1|2)&3', "( '1' | '2' ) & '3'"],
      ['1|(2|(4|(5|6)))', "'1' | '2' | '4' | '5' | '6'"],
      ['1&(2&(4&(5|!6)))', "'1' & '2' & '4' & ( '5' | !'6' )"],
      ['!(!b)', "!!'b'"],
    ]) {
      expect(tsqueryToString(cast(input!)), input).toBe(out);
    }
  });

  it("refuses what PostgreSQL refuses, with PostgreSQL's message and where reading stopped", () => {
    expect(qError('a b')).toEqual({ message: 'syntax error in tsquery: "a b"', reason: 'unexpected "b" at position 2', position: 2 });
    expect(qError('a &')).toMatchObject({ message: 'no operand in tsquery: "a &"', position: 3 });
    expect(qError('()')).toMatchObject({ message: 'syntax error in tsquery: "()"', position: 1 });
    expect(qError('a <16385> b')).toMatchObject({ message: 'distance in phrase operator must be an integer value between zero and 16384 inclusive', position: 2 });
    expect(qError("'abc")).toMatchObject({ message: `syntax error in tsquery: "'abc"`, position: 4 });
    expect(qError('a\\').message).toBe('there is no escaped character: "a\\"');
    expect(qError(`${'!'.repeat(33)}a`).message).toBe('tsquery stack too small');
    // A phrase operator cannot end the query; an operand cannot start with ':'.
    expect(qError('a <->').message).toBe('syntax error in tsquery: "a <->"');
    expect(qError(':a')).toMatchObject({ message: 'syntax error in tsquery: ":a"', position: 0 });
  });

  it('reads parentheses nested as deep as PostgreSQL 15 reads them (7,695 with its default stack), and refuses deeper with its message', () => {
    expect(toTsQuery(`${'('.repeat(7695)}a${')'.repeat(7695)}`).ok).toBe(true);
    expect(qError(`${'('.repeat(7696)}a${')'.repeat(7696)}`)).toMatchObject({ message: 'stack depth limit exceeded', position: 7695 });
    const deep = toTsQuery(`${'x & (y | '.repeat(7695)}a${')'.repeat(7695)}`);
    expect(deep.ok && tsqueryToString(deep.query).length).toBe(7695 * 16 + 3);
    expect(deep.ok && compileTsQuery(deep.query).matches(toTsVector('x a'))).toBe(true);
    // A thousand nested parentheses, each around a chain: a tree as deep as both.
    const nested = `${'x & ('.repeat(1000)}a${')'.repeat(1000)}`;
    const r = toTsQuery(nested);
    // PostgreSQL prints no parentheses around the right side of an operator of the same priority.
    expect(r.ok && tsqueryToString(r.query)).toBe(`${"'x' & ".repeat(1000)}'a'`);
    const alternating = toTsQuery(`${'x & (y | '.repeat(500)}a${')'.repeat(500)}`);
    expect(alternating.ok && tsqueryToString(alternating.query)).toBe(`${"'x' & ( 'y' | ".repeat(500)}'a'${' )'.repeat(500)}`);
    expect(r.ok && compileTsQuery(r.query).matches(toTsVector('x a'))).toBe(true);
  });

  it('reads, prints and matches chains of 40,000 operands (as PostgreSQL does) without running out of stack', () => {
    const words = Array.from({ length: 40_000 }, (_, i) => `w${i}`);
    for (const [op, sign] of [
      ['|', '|'],
      ['&', '&'],
      ['<->', '<->'],
    ] as const) {
      const r = toTsQuery(words.join(` ${op} `));
      if (!r.ok) throw new Error(r.error.message);
      expect(tsqueryToString(r.query)).toBe(words.map((w) => `'${w}'`).join(` ${sign} `));
      const c = compileTsQuery(r.query);
      expect(c.operands).toHaveLength(40_000);
      expect(c.matches(toTsVector('w39999'))).toBe(op === '|');
      // Positions stop at 16383: past it, every word stands at 16383 and the phrase breaks.
      expect(c.matches(toTsVector(words.join(' ')))).toBe(op !== '<->');
      expect(c.matches(toTsVector(words.slice(1).join(' ')))).toBe(op === '|');
    }
    // Negated operands in the chain, and one operand of 1,200 words (a phrase of its parts).
    const mixed = words.map((w, i) => (i % 3 === 1 ? `!${w}` : w)).join(' & ');
    const m = toTsQuery(mixed);
    expect(m.ok && compileTsQuery(m.query).matches(toTsVector(words.filter((_, i) => i % 3 !== 1).join(' ')))).toBe(true);
    expect(m.ok && compileTsQuery(m.query).matches(toTsVector(words.join(' ')))).toBe(false);
    const phrase = toTsQuery(`'${'w '.repeat(1200)}'`);
    expect(phrase.ok && tsqueryToString(phrase.query)).toBe(Array(1200).fill("'w'").join(' <-> '));
    // Few distinct operands repeated (bit masks) and a store matched in bulk.
    const repeated = toTsQueryOrThrow(Array.from({ length: 40_000 }, (_, i) => `r${i % 5}`).join(' & '));
    const store = new TsVectorStore();
    store.add(toTsVector('r0 r1 r2 r3 r4'));
    store.add(toTsVector('r0 r1 r2 r3'));
    expect(compileTsQuery(repeated).bind(store).matching()).toEqual([0]);
  });

  it('accepts an over-long word but leaves it out, as the parser does', () => {
    expect(toTsQuery('x'.repeat(2049))).toMatchObject({ ok: true, query: { root: null } });
  });
});

describe('tsvector @@ tsquery (regression test tstypes)', () => {
  it('checks weights, also through a prefix', () => {
    const v = 'a b:89  ca:23A,64b d:34c';
    expect(matchCast(v, 'd:AC & ca')).toBe(true);
    expect(matchCast(v, 'd:AC & ca:B')).toBe(true);
    expect(matchCast(v, 'd:AC & ca:A')).toBe(true);
    expect(matchCast(v, 'd:AC & ca:C')).toBe(false);
    expect(matchCast(v, 'd:AC & ca:CB')).toBe(true);
    expect(matchCast(v, 'd:AC & c:*C')).toBe(false);
    expect(matchCast(v, 'd:AC & c:*CB')).toBe(true);
    expect(matchCast('a b:89  ca:23A,64b cb:80c d:34c', 'd:AC & c:*C')).toBe(true);
  });

  it('matches a prefix only when written with :*', () => {
    expect(matchCast('supernova', 'super')).toBe(false);
    expect(matchCast('supeanova supernova', 'super')).toBe(false);
    expect(matchCast('supernova', 'super:*')).toBe(true);
    expect(matchCast('supeznova supernova', 'super:*')).toBe(true);
  });

  it('matches phrases at the distance written', () => {
    const s = (text: string, query: string) => tsMatch(toTsVector(text), cast(query));
    expect(s('1 2 3 1', '1 <-> 2')).toBe(true);
    expect(s('1 2 3 1', '1 <2> 2')).toBe(false);
    expect(s('1 2 3 1', '1 <2> 3')).toBe(true);
    expect(s('1 2 11 3', '1 <-> 3')).toBe(false);
    expect(s('1 2 11 3', '1:* <-> 3')).toBe(true);
    expect(s('1 2 3 4', '1 <-> (2 <-> 3)')).toBe(true);
    expect(s('1 2 3 4', '1 <2> (2 <-> 3)')).toBe(false);
    expect(s('1 2 1 2 3 4', '(1 <-> 2) <-> 3')).toBe(true);
    expect(matchCast('a:1 b:2', 'a <0> b')).toBe(false);
    expect(matchCast('a:1 b:3', 'a <2> b')).toBe(true);
    expect(matchCast('a:1 b:3', 'a <3> b')).toBe(false);
  });

  it('evaluates negation inside phrases position by position', () => {
    expect(matchCast('a:1 b:2', 'a <-> !b')).toBe(false);
    expect(matchCast('a:1 b:3', 'a <-> !b')).toBe(true);
    expect(matchCast('a:1 b:2', '!a <-> b')).toBe(false);
    expect(matchCast('a:2 b:2', '!a <-> b')).toBe(true);
    expect(matchCast('a:1 b:2', '!a <-> !b')).toBe(true);
    expect(matchCast('a:1 b:2', '!(a <-> b)')).toBe(false);
    expect(matchCast('a:1 b:3 c:2', 'a <-> (b | c)')).toBe(true);
    expect(matchCast('a:1 b:3 c:4', 'a <2> (b & !c)')).toBe(true);
    expect(matchCast('a:1 b:3 c:3', 'a <2> (b & !c)')).toBe(false);
    expect(matchCast('x:1 y:5', 'x <-> !(a <-> b) <-> y')).toBe(false);
  });

  it('does not match a phrase over lexemes without positions; weights do not apply to them', () => {
    expect(matchCast('a b', 'a <-> b')).toBe(false);
    expect(matchCast('a b:1', 'a <-> b')).toBe(false);
    expect(matchCast('a b', 'a & b:A')).toBe(true);
  });

  it('matches nothing with the empty query; a negation matches the empty vector', () => {
    expect(tsMatch(toTsVector('one two three'), cast(''))).toBe(false);
    expect(tsMatch(toTsVector('one two three'), cast('!three'))).toBe(false);
    expect(tsMatch(toTsVector(''), cast('!three'))).toBe(true);
  });
});

describe('compiled queries, the vector store and pre-filtering', () => {
  const software = [
    { name: 'openssh-server', version: '1:9.2p1-2+deb12u3' },
    { name: 'TeamViewer', version: '15.57.5' },
    { name: 'AnyDesk', version: '' },
    { name: 'Adobe Photoshop CC 2019', version: '20.0' },
    { name: 'GNU Image Manipulation Program (gimp)', version: '2.10' },
    { name: 'x', version: 'y', tsvector: "'adobe':1A 'photoshop':2" },
    { name: 'Антивирус Касперского', version: '11.0' },
  ];

  it('builds a software vector from its stored tsvector, else from name and version', () => {
    expect(softwareText('AnyDesk', '')).toBe('AnyDesk');
    expect(softwareText('openssh-server', '1:9.2p1')).toBe('openssh-server 1:9.2p1');
    expect(tsvectorToString(softwareVector(software[0]!))).toBe("'-2':7 '1':4 '9.2':5 'deb12u3':8 'openssh':2 'openssh-server':1 'p1':6 'server':3");
    expect(tsvectorToString(softwareVector(software[2]!))).toBe("'anydesk':1");
    expect(tsvectorToString(softwareVector(software[5]!))).toBe("'adobe':1A 'photoshop':2");
    expect(tsvectorToString(softwareVector({ name: '', version: '' }))).toBe('');
  });

  it('matches the same records one by one and in bulk, and through the index', () => {
    const store = new TsVectorStore();
    const vectors = software.map(softwareVector);
    for (const v of vectors) store.add(v);
    for (const text of ['teamviewer | anydesk', '(adobe & photoshop) | (gnu & gimp)', 'openssh-server', '!adobe', 'касперск:*', 'photoshop:A', 'adobe <-> photoshop']) {
      const compiled = compileTsQuery(toTsQueryOrThrow(text));
      const one = vectors.flatMap((v, i) => (compiled.matches(v) ? [i] : []));
      const bound = compiled.bind(store);
      expect(bound.matching(), text).toEqual(one);
      expect(vectors.map((_, i) => bound.test(i)).flatMap((m, i) => (m ? [i] : [])), text).toEqual(one);
    }
    expect(compileTsQuery(toTsQueryOrThrow('teamviewer | anydesk')).bind(store).matching()).toEqual([1, 2]);
    expect(compileTsQuery(toTsQueryOrThrow('(adobe & photoshop) | (gnu & gimp)')).bind(store).matching()).toEqual([3, 4, 5]);
  });

  it('sees records and lexemes added after the query was bound', () => {
    const store = new TsVectorStore();
    store.add(softwareVector({ name: 'nginx', version: '1.24' }));
    const bound = compileTsQuery(toTsQueryOrThrow('apache:* | nginx')).bind(store);
    expect(bound.matching()).toEqual([0]);
    store.add(softwareVector({ name: 'apache2', version: '2.4.52' }));
    expect(bound.matching()).toEqual([0, 1]);
    expect(store.get(1)).toEqual(softwareVector({ name: 'apache2', version: '2.4.52' }));
  });

  it('tells what an index can pre-filter on, and whether the query matches without any lexeme', () => {
    const c = (text: string) => compileTsQuery(toTsQueryOrThrow(text));
    expect(c('a & b').prefilter).toEqual({ kind: 'and', parts: [{ kind: 'term', operand: 0 }, { kind: 'term', operand: 1 }] });
    expect(c('a | b:*').prefilter).toEqual({ kind: 'or', parts: [{ kind: 'term', operand: 0 }, { kind: 'term', operand: 1 }] });
    expect(c('a & !b').prefilter).toEqual({ kind: 'term', operand: 0 });
    expect(c('a | !b').prefilter).toEqual({ kind: 'all' });
    expect(c('a <-> !b').prefilter).toEqual({ kind: 'term', operand: 0 });
    expect(c('b:*A').operands).toEqual([{ lexeme: 'b', prefix: true, weight: 8 }]);
    expect(c('a | !b').matchesEmpty).toBe(true);
    expect(c('a & !b').matchesEmpty).toBe(false);
    expect(compileTsQuery({ root: null }).matchesEmpty).toBe(false);
  });
});
