// PostgreSQL's default text search parser (`ts_parse('default', text)`): a state machine over the
// text's characters that yields typed tokens. The table below is the parser's, state by state, in
// the order PostgreSQL 15 tries each state's rules; the machine that runs it (push, pop, rerun,
// clear, merge) behaves as PostgreSQL's does, including its look-ahead sub-parsers for hosts and
// URL paths and its skipping of <script> and <style> contents.
import { C_ALPHA, C_ASCLET, C_DIGIT, C_SPACE, C_SPECIAL, C_URLCHAR, C_XDIGIT, charClass } from './chars';

/** Token type names, indexed by type id (ts_token_type('default')). */
export const TOKEN_TYPES = [
  '',
  'asciiword',
  'word',
  'numword',
  'email',
  'url',
  'host',
  'sfloat',
  'version',
  'hword_numpart',
  'hword_part',
  'hword_asciipart',
  'blank',
  'tag',
  'protocol',
  'numhword',
  'asciihword',
  'hword',
  'url_path',
  'file',
  'float',
  'int',
  'uint',
  'entity',
] as const;
export type TokenTypeName = Exclude<(typeof TOKEN_TYPES)[number], ''>;

// Token type ids.
const ASCIIWORD = 1;
const WORD = 2;
const NUMWORD = 3;
const EMAIL = 4;
const URL = 5;
const HOST = 6;
const SCIENTIFIC = 7;
const VERSION = 8;
const NUMPARTHWORD = 9;
const PARTHWORD = 10;
const ASCIIPARTHWORD = 11;
const SPACE = 12;
const TAG = 13;
const PROTOCOL = 14;
const NUMHWORD = 15;
const ASCIIHWORD = 16;
const HWORD = 17;
const URLPATH = 18;
const FILEPATH = 19;
const DECIMAL = 20;
const SIGNEDINT = 21;
const UNSIGNEDINT = 22;
const XMLENTITY = 23;

/** Token types the `simple` configuration sends to its dictionary (all but blank, tag, protocol, entity). */
export const SIMPLE_TOKEN_TYPES: ReadonlySet<number> = new Set([
  ASCIIWORD,
  WORD,
  NUMWORD,
  EMAIL,
  URL,
  HOST,
  SCIENTIFIC,
  VERSION,
  NUMPARTHWORD,
  PARTHWORD,
  ASCIIPARTHWORD,
  NUMHWORD,
  ASCIIHWORD,
  HWORD,
  URLPATH,
  FILEPATH,
  DECIMAL,
  SIGNEDINT,
  UNSIGNEDINT,
]);

// Character tests (a rule written with a one-character string tests for that character). A rule
// with DEFAULT always applies (the last rule of each state).
const DEFAULT = 0;
const EOF = 1;
const ALPHA = 3;
const NOTALNUM = 4;
const ALNUM = 5;
const DIGIT = 6;
const ASCLET = 7;
const SPECIAL = 8;
const ISSPACE = 9;
const XDIGIT = 10;
const IGNORE = 11; // inside <script> or <style>
const STOPHOST = 12; // a host is wanted, and only a host (consumes the wish)
const ISHOST = 13; // a host follows (look-ahead parser)
const ISURLPATH = 14; // a URL path follows (look-ahead parser)
const URLCHAR = 15;

// Rule flags.
const NEXT = 0;
const BINGO = 1; // a token ends here
const POP = 2; // back to the state saved by the last PUSH, trying its next rule
const PUSH = 4; // save the state, to come back to on POP
const RERUN = 8; // try the new state's rules on the same character
const CLEAR = 16; // forget the last saved state
const MERGE = 32; // drop the saved state, keeping the current position
const CLRALL = 64; // forget all saved states

// Special handlers.
const SP_TAGS = 1;
const SP_FURL = 2;
const SP_HYPHEN = 3;
const SP_VERVERSION = 4;

// States.
const S = {
  Base: 0,
  InNumWord: 1,
  InAsciiWord: 2,
  InWord: 3,
  InUnsignedInt: 4,
  InSignedIntFirst: 5,
  InSignedInt: 6,
  InSpace: 7,
  InUDecimalFirst: 8,
  InUDecimal: 9,
  InDecimalFirst: 10,
  InDecimal: 11,
  InVerVersion: 12,
  InSVerVersion: 13,
  InVersionFirst: 14,
  InVersion: 15,
  InMantissaFirst: 16,
  InMantissaSign: 17,
  InMantissa: 18,
  InXMLEntityFirst: 19,
  InXMLEntity: 20,
  InXMLEntityNumFirst: 21,
  InXMLEntityNum: 22,
  InXMLEntityHexNumFirst: 23,
  InXMLEntityHexNum: 24,
  InXMLEntityEnd: 25,
  InTagFirst: 26,
  InXMLBegin: 27,
  InTagCloseFirst: 28,
  InTagName: 29,
  InTagBeginEnd: 30,
  InTag: 31,
  InTagEscapeK: 32,
  InTagEscapeKK: 33,
  InTagBackSleshed: 34,
  InTagEnd: 35,
  InCommentFirst: 36,
  InCommentLast: 37,
  InComment: 38,
  InCloseCommentFirst: 39,
  InCloseCommentLast: 40,
  InCommentEnd: 41,
  InHostFirstDomain: 42,
  InHostDomainSecond: 43,
  InHostDomain: 44,
  InPortFirst: 45,
  InPort: 46,
  InHostFirstAN: 47,
  InHost: 48,
  InEmail: 49,
  InFileFirst: 50,
  InFileTwiddle: 51,
  InPathFirst: 52,
  InPathFirstFirst: 53,
  InPathSecond: 54,
  InFile: 55,
  InFileNext: 56,
  InURLPathFirst: 57,
  InURLPathStart: 58,
  InURLPath: 59,
  InFURL: 60,
  InProtocolFirst: 61,
  InProtocolSecond: 62,
  InProtocolEnd: 63,
  InHyphenAsciiWordFirst: 64,
  InHyphenAsciiWord: 65,
  InHyphenWordFirst: 66,
  InHyphenWord: 67,
  InHyphenNumWordFirst: 68,
  InHyphenNumWord: 69,
  InHyphenDigitLookahead: 70,
  InParseHyphen: 71,
  InParseHyphenHyphen: 72,
  InHyphenWordPart: 73,
  InHyphenAsciiWordPart: 74,
  InHyphenNumWordPart: 75,
  InHyphenUnsignedInt: 76,
} as const;
type StateName = keyof typeof S;
const NULL_STATE = -1;

// A rule: [test, flags, next state ('' keeps the state), token type, special handler], with the
// character for EQ written as a one-character string in place of the test.
type Rule = [number | string, number, StateName | '', number?, number?];

const TABLE: Record<StateName, Rule[]> = {
  Base: [
    [EOF, NEXT, ''],
    ['<', PUSH, 'InTagFirst'],
    [IGNORE, NEXT, 'InSpace'],
    [ASCLET, NEXT, 'InAsciiWord'],
    [ALPHA, NEXT, 'InWord'],
    [DIGIT, NEXT, 'InUnsignedInt'],
    ['-', PUSH, 'InSignedIntFirst'],
    ['+', PUSH, 'InSignedIntFirst'],
    ['&', PUSH, 'InXMLEntityFirst'],
    ['~', PUSH, 'InFileTwiddle'],
    ['/', PUSH, 'InFileFirst'],
    ['.', PUSH, 'InPathFirstFirst'],
    [DEFAULT, NEXT, 'InSpace'],
  ],
  InNumWord: [
    [EOF, BINGO, 'Base', NUMWORD],
    [ALNUM, NEXT, 'InNumWord'],
    [SPECIAL, NEXT, 'InNumWord'],
    ['@', PUSH, 'InEmail'],
    ['/', PUSH, 'InFileFirst'],
    ['.', PUSH, 'InFileNext'],
    ['-', PUSH, 'InHyphenNumWordFirst'],
    [DEFAULT, BINGO, 'Base', NUMWORD],
  ],
  InAsciiWord: [
    [EOF, BINGO, 'Base', ASCIIWORD],
    [ASCLET, NEXT, ''],
    ['.', PUSH, 'InHostFirstDomain'],
    ['.', PUSH, 'InFileNext'],
    ['-', PUSH, 'InHostFirstAN'],
    ['-', PUSH, 'InHyphenAsciiWordFirst'],
    ['_', PUSH, 'InHostFirstAN'],
    ['@', PUSH, 'InEmail'],
    [':', PUSH, 'InProtocolFirst'],
    ['/', PUSH, 'InFileFirst'],
    [DIGIT, PUSH, 'InHost'],
    [DIGIT, NEXT, 'InNumWord'],
    [ALPHA, NEXT, 'InWord'],
    [SPECIAL, NEXT, 'InWord'],
    [DEFAULT, BINGO, 'Base', ASCIIWORD],
  ],
  InWord: [
    [EOF, BINGO, 'Base', WORD],
    [ALPHA, NEXT, ''],
    [SPECIAL, NEXT, ''],
    [DIGIT, NEXT, 'InNumWord'],
    ['-', PUSH, 'InHyphenWordFirst'],
    [DEFAULT, BINGO, 'Base', WORD],
  ],
  InUnsignedInt: [
    [EOF, BINGO, 'Base', UNSIGNEDINT],
    [DIGIT, NEXT, ''],
    ['.', PUSH, 'InHostFirstDomain'],
    ['.', PUSH, 'InUDecimalFirst'],
    ['e', PUSH, 'InMantissaFirst'],
    ['E', PUSH, 'InMantissaFirst'],
    ['-', PUSH, 'InHostFirstAN'],
    ['_', PUSH, 'InHostFirstAN'],
    ['@', PUSH, 'InEmail'],
    [ASCLET, PUSH, 'InHost'],
    [ALPHA, NEXT, 'InNumWord'],
    [SPECIAL, NEXT, 'InNumWord'],
    ['/', PUSH, 'InFileFirst'],
    [DEFAULT, BINGO, 'Base', UNSIGNEDINT],
  ],
  InSignedIntFirst: [
    [EOF, POP, ''],
    [DIGIT, NEXT | CLEAR, 'InSignedInt'],
    [DEFAULT, POP, ''],
  ],
  InSignedInt: [
    [EOF, BINGO, 'Base', SIGNEDINT],
    [DIGIT, NEXT, ''],
    ['.', PUSH, 'InDecimalFirst'],
    ['e', PUSH, 'InMantissaFirst'],
    ['E', PUSH, 'InMantissaFirst'],
    [DEFAULT, BINGO, 'Base', SIGNEDINT],
  ],
  InSpace: [
    [EOF, BINGO, 'Base', SPACE],
    ['<', BINGO, 'Base', SPACE],
    [IGNORE, NEXT, ''],
    ['-', BINGO, 'Base', SPACE],
    ['+', BINGO, 'Base', SPACE],
    ['&', BINGO, 'Base', SPACE],
    ['/', BINGO, 'Base', SPACE],
    [NOTALNUM, NEXT, 'InSpace'],
    [DEFAULT, BINGO, 'Base', SPACE],
  ],
  InUDecimalFirst: [
    [EOF, POP, ''],
    [DIGIT, CLEAR, 'InUDecimal'],
    [DEFAULT, POP, ''],
  ],
  InUDecimal: [
    [EOF, BINGO, 'Base', DECIMAL],
    [DIGIT, NEXT, 'InUDecimal'],
    ['.', PUSH, 'InVersionFirst'],
    ['e', PUSH, 'InMantissaFirst'],
    ['E', PUSH, 'InMantissaFirst'],
    [DEFAULT, BINGO, 'Base', DECIMAL],
  ],
  InDecimalFirst: [
    [EOF, POP, ''],
    [DIGIT, CLEAR, 'InDecimal'],
    [DEFAULT, POP, ''],
  ],
  InDecimal: [
    [EOF, BINGO, 'Base', DECIMAL],
    [DIGIT, NEXT, 'InDecimal'],
    ['.', PUSH, 'InVerVersion'],
    ['e', PUSH, 'InMantissaFirst'],
    ['E', PUSH, 'InMantissaFirst'],
    [DEFAULT, BINGO, 'Base', DECIMAL],
  ],
  InVerVersion: [
    [EOF, POP, ''],
    [DIGIT, RERUN, 'InSVerVersion', 0, SP_VERVERSION],
    [DEFAULT, POP, ''],
  ],
  InSVerVersion: [
    [EOF, POP, ''],
    [DIGIT, BINGO | CLRALL, 'InUnsignedInt', SPACE],
    [DEFAULT, NEXT, ''],
  ],
  InVersionFirst: [
    [EOF, POP, ''],
    [DIGIT, CLEAR, 'InVersion'],
    [DEFAULT, POP, ''],
  ],
  InVersion: [
    [EOF, BINGO, 'Base', VERSION],
    [DIGIT, NEXT, 'InVersion'],
    ['.', PUSH, 'InVersionFirst'],
    [DEFAULT, BINGO, 'Base', VERSION],
  ],
  InMantissaFirst: [
    [EOF, POP, ''],
    [DIGIT, CLEAR, 'InMantissa'],
    ['+', NEXT, 'InMantissaSign'],
    ['-', NEXT, 'InMantissaSign'],
    [DEFAULT, POP, ''],
  ],
  InMantissaSign: [
    [EOF, POP, ''],
    [DIGIT, CLEAR, 'InMantissa'],
    [DEFAULT, POP, ''],
  ],
  InMantissa: [
    [EOF, BINGO, 'Base', SCIENTIFIC],
    [DIGIT, NEXT, 'InMantissa'],
    [DEFAULT, BINGO, 'Base', SCIENTIFIC],
  ],
  InXMLEntityFirst: [
    [EOF, POP, ''],
    ['#', NEXT, 'InXMLEntityNumFirst'],
    [ASCLET, NEXT, 'InXMLEntity'],
    [':', NEXT, 'InXMLEntity'],
    ['_', NEXT, 'InXMLEntity'],
    [DEFAULT, POP, ''],
  ],
  InXMLEntity: [
    [EOF, POP, ''],
    [ALNUM, NEXT, 'InXMLEntity'],
    [':', NEXT, 'InXMLEntity'],
    ['_', NEXT, 'InXMLEntity'],
    ['.', NEXT, 'InXMLEntity'],
    ['-', NEXT, 'InXMLEntity'],
    [';', NEXT, 'InXMLEntityEnd'],
    [DEFAULT, POP, ''],
  ],
  InXMLEntityNumFirst: [
    [EOF, POP, ''],
    ['x', NEXT, 'InXMLEntityHexNumFirst'],
    ['X', NEXT, 'InXMLEntityHexNumFirst'],
    [DIGIT, NEXT, 'InXMLEntityNum'],
    [DEFAULT, POP, ''],
  ],
  InXMLEntityNum: [
    [EOF, POP, ''],
    [DIGIT, NEXT, 'InXMLEntityNum'],
    [';', NEXT, 'InXMLEntityEnd'],
    [DEFAULT, POP, ''],
  ],
  InXMLEntityHexNumFirst: [
    [EOF, POP, ''],
    [XDIGIT, NEXT, 'InXMLEntityHexNum'],
    [DEFAULT, POP, ''],
  ],
  InXMLEntityHexNum: [
    [EOF, POP, ''],
    [XDIGIT, NEXT, 'InXMLEntityHexNum'],
    [';', NEXT, 'InXMLEntityEnd'],
    [DEFAULT, POP, ''],
  ],
  InXMLEntityEnd: [[DEFAULT, BINGO | CLEAR, 'Base', XMLENTITY]],
  InTagFirst: [
    [EOF, POP, ''],
    ['/', PUSH, 'InTagCloseFirst'],
    ['!', PUSH, 'InCommentFirst'],
    ['?', PUSH, 'InXMLBegin'],
    [ASCLET, PUSH, 'InTagName'],
    [':', PUSH, 'InTagName'],
    ['_', PUSH, 'InTagName'],
    [DEFAULT, POP, ''],
  ],
  InXMLBegin: [
    [EOF, POP, ''],
    ['x', NEXT, 'InTag'],
    [DEFAULT, POP, ''],
  ],
  InTagCloseFirst: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InTagName'],
    [DEFAULT, POP, ''],
  ],
  InTagName: [
    [EOF, POP, ''],
    ['/', NEXT, 'InTagBeginEnd'],
    ['>', NEXT, 'InTagEnd', 0, SP_TAGS],
    [ISSPACE, NEXT, 'InTag', 0, SP_TAGS],
    [ALNUM, NEXT, ''],
    [':', NEXT, ''],
    ['_', NEXT, ''],
    ['.', NEXT, ''],
    ['-', NEXT, ''],
    [DEFAULT, POP, ''],
  ],
  InTagBeginEnd: [
    [EOF, POP, ''],
    ['>', NEXT, 'InTagEnd'],
    [DEFAULT, POP, ''],
  ],
  InTag: [
    [EOF, POP, ''],
    ['>', NEXT, 'InTagEnd', 0, SP_TAGS],
    ["'", NEXT, 'InTagEscapeK'],
    ['"', NEXT, 'InTagEscapeKK'],
    [ASCLET, NEXT, ''],
    [DIGIT, NEXT, ''],
    ['=', NEXT, ''],
    ['-', NEXT, ''],
    ['_', NEXT, ''],
    ['#', NEXT, ''],
    ['/', NEXT, ''],
    [':', NEXT, ''],
    ['.', NEXT, ''],
    ['&', NEXT, ''],
    ['?', NEXT, ''],
    ['%', NEXT, ''],
    ['~', NEXT, ''],
    [ISSPACE, NEXT, '', 0, SP_TAGS],
    [DEFAULT, POP, ''],
  ],
  InTagEscapeK: [
    [EOF, POP, ''],
    ['\\', PUSH, 'InTagBackSleshed'],
    ["'", NEXT, 'InTag'],
    [DEFAULT, NEXT, 'InTagEscapeK'],
  ],
  InTagEscapeKK: [
    [EOF, POP, ''],
    ['\\', PUSH, 'InTagBackSleshed'],
    ['"', NEXT, 'InTag'],
    [DEFAULT, NEXT, 'InTagEscapeKK'],
  ],
  InTagBackSleshed: [
    [EOF, POP, ''],
    [DEFAULT, MERGE, ''],
  ],
  InTagEnd: [[DEFAULT, BINGO | CLRALL, 'Base', TAG]],
  InCommentFirst: [
    [EOF, POP, ''],
    ['-', NEXT, 'InCommentLast'],
    ['D', NEXT, 'InTag'],
    ['d', NEXT, 'InTag'],
    [DEFAULT, POP, ''],
  ],
  InCommentLast: [
    [EOF, POP, ''],
    ['-', NEXT, 'InComment'],
    [DEFAULT, POP, ''],
  ],
  InComment: [
    [EOF, POP, ''],
    ['-', NEXT, 'InCloseCommentFirst'],
    [DEFAULT, NEXT, ''],
  ],
  InCloseCommentFirst: [
    [EOF, POP, ''],
    ['-', NEXT, 'InCloseCommentLast'],
    [DEFAULT, NEXT, 'InComment'],
  ],
  InCloseCommentLast: [
    [EOF, POP, ''],
    ['-', NEXT, ''],
    ['>', NEXT, 'InCommentEnd'],
    [DEFAULT, NEXT, 'InComment'],
  ],
  InCommentEnd: [[DEFAULT, BINGO | CLRALL, 'Base', TAG]],
  InHostFirstDomain: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InHostDomainSecond'],
    [DIGIT, NEXT, 'InHost'],
    [DEFAULT, POP, ''],
  ],
  InHostDomainSecond: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InHostDomain'],
    [DIGIT, PUSH, 'InHost'],
    ['-', PUSH, 'InHostFirstAN'],
    ['_', PUSH, 'InHostFirstAN'],
    ['.', PUSH, 'InHostFirstDomain'],
    ['@', PUSH, 'InEmail'],
    [DEFAULT, POP, ''],
  ],
  InHostDomain: [
    [EOF, BINGO | CLRALL, 'Base', HOST],
    [ASCLET, NEXT, 'InHostDomain'],
    [DIGIT, PUSH, 'InHost'],
    [':', PUSH, 'InPortFirst'],
    ['-', PUSH, 'InHostFirstAN'],
    ['_', PUSH, 'InHostFirstAN'],
    ['.', PUSH, 'InHostFirstDomain'],
    ['@', PUSH, 'InEmail'],
    [DIGIT, POP, ''],
    [STOPHOST, BINGO | CLRALL, 'InURLPathStart', HOST],
    ['/', PUSH, 'InFURL'],
    [DEFAULT, BINGO | CLRALL, 'Base', HOST],
  ],
  InPortFirst: [
    [EOF, POP, ''],
    [DIGIT, NEXT, 'InPort'],
    [DEFAULT, POP, ''],
  ],
  InPort: [
    [EOF, BINGO | CLRALL, 'Base', HOST],
    [DIGIT, NEXT, 'InPort'],
    [STOPHOST, BINGO | CLRALL, 'InURLPathStart', HOST],
    ['/', PUSH, 'InFURL'],
    [DEFAULT, BINGO | CLRALL, 'Base', HOST],
  ],
  InHostFirstAN: [
    [EOF, POP, ''],
    [DIGIT, NEXT, 'InHost'],
    [ASCLET, NEXT, 'InHost'],
    [DEFAULT, POP, ''],
  ],
  InHost: [
    [EOF, POP, ''],
    [DIGIT, NEXT, 'InHost'],
    [ASCLET, NEXT, 'InHost'],
    ['@', PUSH, 'InEmail'],
    ['.', PUSH, 'InHostFirstDomain'],
    ['-', PUSH, 'InHostFirstAN'],
    ['_', PUSH, 'InHostFirstAN'],
    [DEFAULT, POP, ''],
  ],
  InEmail: [
    [STOPHOST, POP, ''],
    [ISHOST, BINGO | CLRALL, 'Base', EMAIL],
    [DEFAULT, POP, ''],
  ],
  InFileFirst: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InFile'],
    [DIGIT, NEXT, 'InFile'],
    ['.', NEXT, 'InPathFirst'],
    ['_', NEXT, 'InFile'],
    ['~', PUSH, 'InFileTwiddle'],
    [DEFAULT, POP, ''],
  ],
  InFileTwiddle: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InFile'],
    [DIGIT, NEXT, 'InFile'],
    ['_', NEXT, 'InFile'],
    ['/', NEXT, 'InFileFirst'],
    [DEFAULT, POP, ''],
  ],
  InPathFirst: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InFile'],
    [DIGIT, NEXT, 'InFile'],
    ['_', NEXT, 'InFile'],
    ['.', NEXT, 'InPathSecond'],
    ['/', NEXT, 'InFileFirst'],
    [DEFAULT, POP, ''],
  ],
  InPathFirstFirst: [
    [EOF, POP, ''],
    ['.', NEXT, 'InPathSecond'],
    ['/', NEXT, 'InFileFirst'],
    [DEFAULT, POP, ''],
  ],
  InPathSecond: [
    [EOF, BINGO | CLEAR, 'Base', FILEPATH],
    ['/', NEXT | PUSH, 'InFileFirst'],
    ['/', BINGO | CLEAR, 'Base', FILEPATH],
    [ISSPACE, BINGO | CLEAR, 'Base', FILEPATH],
    [DEFAULT, POP, ''],
  ],
  InFile: [
    [EOF, BINGO, 'Base', FILEPATH],
    [ASCLET, NEXT, 'InFile'],
    [DIGIT, NEXT, 'InFile'],
    ['.', PUSH, 'InFileNext'],
    ['_', NEXT, 'InFile'],
    ['-', NEXT, 'InFile'],
    ['/', PUSH, 'InFileFirst'],
    [DEFAULT, BINGO, 'Base', FILEPATH],
  ],
  InFileNext: [
    [EOF, POP, ''],
    [ASCLET, CLEAR, 'InFile'],
    [DIGIT, CLEAR, 'InFile'],
    ['_', CLEAR, 'InFile'],
    [DEFAULT, POP, ''],
  ],
  InURLPathFirst: [
    [EOF, POP, ''],
    [URLCHAR, NEXT, 'InURLPath'],
    [DEFAULT, POP, ''],
  ],
  InURLPathStart: [[DEFAULT, NEXT, 'InURLPath']],
  InURLPath: [
    [EOF, BINGO, 'Base', URLPATH],
    [URLCHAR, NEXT, 'InURLPath'],
    [DEFAULT, BINGO, 'Base', URLPATH],
  ],
  InFURL: [
    [EOF, POP, ''],
    [ISURLPATH, BINGO | CLRALL, 'Base', URL, SP_FURL],
    [DEFAULT, POP, ''],
  ],
  InProtocolFirst: [
    [EOF, POP, ''],
    ['/', NEXT, 'InProtocolSecond'],
    [DEFAULT, POP, ''],
  ],
  InProtocolSecond: [
    [EOF, POP, ''],
    ['/', NEXT, 'InProtocolEnd'],
    [DEFAULT, POP, ''],
  ],
  InProtocolEnd: [[DEFAULT, BINGO | CLRALL, 'Base', PROTOCOL]],
  InHyphenAsciiWordFirst: [
    [EOF, POP, ''],
    [ASCLET, NEXT, 'InHyphenAsciiWord'],
    [ALPHA, NEXT, 'InHyphenWord'],
    [DIGIT, NEXT, 'InHyphenDigitLookahead'],
    [DEFAULT, POP, ''],
  ],
  InHyphenAsciiWord: [
    [EOF, BINGO | CLRALL, 'InParseHyphen', ASCIIHWORD, SP_HYPHEN],
    [ASCLET, NEXT, 'InHyphenAsciiWord'],
    [ALPHA, NEXT, 'InHyphenWord'],
    [SPECIAL, NEXT, 'InHyphenWord'],
    [DIGIT, NEXT, 'InHyphenNumWord'],
    ['-', PUSH, 'InHyphenAsciiWordFirst'],
    [DEFAULT, BINGO | CLRALL, 'InParseHyphen', ASCIIHWORD, SP_HYPHEN],
  ],
  InHyphenWordFirst: [
    [EOF, POP, ''],
    [ALPHA, NEXT, 'InHyphenWord'],
    [DIGIT, NEXT, 'InHyphenDigitLookahead'],
    [DEFAULT, POP, ''],
  ],
  InHyphenWord: [
    [EOF, BINGO | CLRALL, 'InParseHyphen', HWORD, SP_HYPHEN],
    [ALPHA, NEXT, 'InHyphenWord'],
    [SPECIAL, NEXT, 'InHyphenWord'],
    [DIGIT, NEXT, 'InHyphenNumWord'],
    ['-', PUSH, 'InHyphenWordFirst'],
    [DEFAULT, BINGO | CLRALL, 'InParseHyphen', HWORD, SP_HYPHEN],
  ],
  InHyphenNumWordFirst: [
    [EOF, POP, ''],
    [ALPHA, NEXT, 'InHyphenNumWord'],
    [DIGIT, NEXT, 'InHyphenDigitLookahead'],
    [DEFAULT, POP, ''],
  ],
  InHyphenNumWord: [
    [EOF, BINGO | CLRALL, 'InParseHyphen', NUMHWORD, SP_HYPHEN],
    [ALNUM, NEXT, 'InHyphenNumWord'],
    [SPECIAL, NEXT, 'InHyphenNumWord'],
    ['-', PUSH, 'InHyphenNumWordFirst'],
    [DEFAULT, BINGO | CLRALL, 'InParseHyphen', NUMHWORD, SP_HYPHEN],
  ],
  InHyphenDigitLookahead: [
    [EOF, POP, ''],
    [DIGIT, NEXT, 'InHyphenDigitLookahead'],
    [ALPHA, NEXT, 'InHyphenNumWord'],
    [SPECIAL, NEXT, 'InHyphenNumWord'],
    [DEFAULT, POP, ''],
  ],
  InParseHyphen: [
    [EOF, RERUN, 'Base'],
    [ASCLET, NEXT, 'InHyphenAsciiWordPart'],
    [ALPHA, NEXT, 'InHyphenWordPart'],
    [DIGIT, PUSH, 'InHyphenUnsignedInt'],
    ['-', PUSH, 'InParseHyphenHyphen'],
    [DEFAULT, RERUN, 'Base'],
  ],
  InParseHyphenHyphen: [
    [EOF, POP, ''],
    [ALNUM, BINGO | CLEAR, 'InParseHyphen', SPACE],
    [SPECIAL, BINGO | CLEAR, 'InParseHyphen', SPACE],
    [DEFAULT, POP, ''],
  ],
  InHyphenWordPart: [
    [EOF, BINGO, 'Base', PARTHWORD],
    [ALPHA, NEXT, 'InHyphenWordPart'],
    [SPECIAL, NEXT, 'InHyphenWordPart'],
    [DIGIT, NEXT, 'InHyphenNumWordPart'],
    [DEFAULT, BINGO, 'InParseHyphen', PARTHWORD],
  ],
  InHyphenAsciiWordPart: [
    [EOF, BINGO, 'Base', ASCIIPARTHWORD],
    [ASCLET, NEXT, 'InHyphenAsciiWordPart'],
    [ALPHA, NEXT, 'InHyphenWordPart'],
    [SPECIAL, NEXT, 'InHyphenWordPart'],
    [DIGIT, NEXT, 'InHyphenNumWordPart'],
    [DEFAULT, BINGO, 'InParseHyphen', ASCIIPARTHWORD],
  ],
  InHyphenNumWordPart: [
    [EOF, BINGO, 'Base', NUMPARTHWORD],
    [ALNUM, NEXT, 'InHyphenNumWordPart'],
    [SPECIAL, NEXT, 'InHyphenNumWordPart'],
    [DEFAULT, BINGO, 'InParseHyphen', NUMPARTHWORD],
  ],
  InHyphenUnsignedInt: [
    [EOF, POP, ''],
    [DIGIT, NEXT, ''],
    [ALPHA, CLEAR, 'InHyphenNumWordPart'],
    [SPECIAL, CLEAR, 'InHyphenNumWordPart'],
    [DEFAULT, POP, ''],
  ],
};

// The table flattened: rules of state s are FIRST[s] .. FIRST[s + 1] - 1. Character tests become
// a kind (K_*) with a class mask or a character.
const K_DEFAULT = 0;
const K_EOF = 1;
const K_EQ = 2;
const K_ANY = 3; // the character has one of the classes in the mask
const K_NONE = 4; // the character has none of them
const K_IGNORE = 5;
const K_STOPHOST = 6;
const K_ISHOST = 7;
const K_ISURLPATH = 8;
const CLASS_OF_TEST: Record<number, [number, number]> = {
  [ALPHA]: [K_ANY, C_ALPHA],
  [NOTALNUM]: [K_NONE, C_ALPHA | C_DIGIT],
  [ALNUM]: [K_ANY, C_ALPHA | C_DIGIT],
  [DIGIT]: [K_ANY, C_DIGIT],
  [ASCLET]: [K_ANY, C_ASCLET],
  [SPECIAL]: [K_ANY, C_SPECIAL],
  [ISSPACE]: [K_ANY, C_SPACE],
  [XDIGIT]: [K_ANY, C_XDIGIT],
  [URLCHAR]: [K_ANY, C_URLCHAR],
  [DEFAULT]: [K_DEFAULT, 0],
  [EOF]: [K_EOF, 0],
  [IGNORE]: [K_IGNORE, 0],
  [STOPHOST]: [K_STOPHOST, 0],
  [ISHOST]: [K_ISHOST, 0],
  [ISURLPATH]: [K_ISURLPATH, 0],
};
const FIRST: number[] = [];
const kinds: number[] = [];
const args: number[] = [];
const flagsOf: number[] = [];
const toOf: number[] = [];
const typeOf: number[] = [];
const specialOf: number[] = [];
for (const [name, id] of Object.entries(S) as [StateName, number][]) {
  if (id !== FIRST.length) throw new Error('text search parser: states out of order');
  FIRST.push(kinds.length);
  for (const [test, flags, to, type = 0, special = 0] of TABLE[name]) {
    if (typeof test === 'string') {
      kinds.push(K_EQ);
      args.push(test.charCodeAt(0));
    } else {
      const [k, mask] = CLASS_OF_TEST[test]!;
      kinds.push(k);
      args.push(mask);
    }
    flagsOf.push(flags);
    toOf.push(to === '' ? NULL_STATE : S[to]);
    typeOf.push(type);
    specialOf.push(special);
  }
}
const R_KIND = Int8Array.from(kinds);
const R_ARG = Int32Array.from(args);
const R_FLAGS = Int8Array.from(flagsOf);
const R_TO = Int8Array.from(toOf);
const R_TYPE = Int8Array.from(typeOf);
const R_SPECIAL = Int8Array.from(specialOf);
const R_FIRST = Int16Array.from(FIRST);

// Which rule applies, precomputed: for each rule r and each kind of character (an ASCII character
// by itself, a non-ASCII one by its classes, or the end of the text), the first rule from r on
// whose test passes, or that tests something other than the character (ignore, host, URL path).
const SLOTS = 128 + 16 + 1;
const SLOT_EOF = SLOTS - 1;
const slotOf = (cp: number, cls: number) => (cp < 0 ? SLOT_EOF : cp < 128 ? cp : 128 + (cls & 15));
let JUMP: Int16Array = new Int16Array(0);

function buildJump(): Int16Array {
  const jump = new Int16Array(R_KIND.length * SLOTS);
  for (let slot = 0; slot < SLOTS; slot++) {
    const atEnd = slot === SLOT_EOF;
    const cp = slot < 128 ? slot : -2;
    const k = slot < 128 ? charClass(slot) : atEnd ? 0 : slot - 128;
    for (let r = 0; r < R_KIND.length; r++) {
      let i = r;
      for (;; i++) {
        const a = R_ARG[i]!;
        const kind = R_KIND[i]!;
        if (kind >= K_IGNORE) break;
        if (kind === K_DEFAULT || (kind === K_EOF && atEnd) || (kind === K_EQ && cp === a) || (kind === K_ANY && (k & a) !== 0) || (kind === K_NONE && (k & a) === 0)) break;
      }
      jump[r * SLOTS + slot] = i;
    }
  }
  return jump;
}

/**
 * A tokenizer over code points `cps[start .. end)` with their classes `cls` (PostgreSQL's
 * TParser). Its saved positions (TParserPosition) are a stack of parallel arrays: position and
 * token length in code points, state, and the rule that pushed the position above it.
 */
class Tokenizer {
  private sPos: Int32Array;
  private sLen: Int32Array;
  private sState: Int8Array;
  private sPushed: Int32Array;
  private sp = 0;
  ignore = false;
  wanthost = false;
  tokenStart = 0;
  tokenLen = 0;
  type = 0;

  constructor(
    readonly cps: ArrayLike<number>,
    readonly cls: Uint8Array,
    start: number,
    readonly end: number,
    stack?: Tokenizer,
  ) {
    // The main tokenizer of a text reuses the stack of the previous text's.
    if (stack) {
      this.sPos = stack.sPos;
      this.sLen = stack.sLen;
      this.sState = stack.sState;
      this.sPushed = stack.sPushed;
    } else {
      this.sPos = new Int32Array(16);
      this.sLen = new Int32Array(16);
      this.sState = new Int8Array(16);
      this.sPushed = new Int32Array(16);
    }
    this.sPos[0] = start;
    this.sLen[0] = 0;
    this.sState[0] = S.Base;
    this.sPushed[0] = -1;
  }

  /** Saves the top position (PUSH): a copy goes on top. */
  private push(): void {
    const sp = this.sp;
    if (sp + 1 >= this.sPos.length) {
      const n = this.sPos.length * 2;
      const g = <T extends Int32Array | Int8Array>(a: T, make: (n: number) => T): T => {
        const b = make(n);
        b.set(a);
        return b;
      };
      this.sPos = g(this.sPos, (k) => new Int32Array(k));
      this.sLen = g(this.sLen, (k) => new Int32Array(k));
      this.sState = g(this.sState, (k) => new Int8Array(k));
      this.sPushed = g(this.sPushed, (k) => new Int32Array(k));
    }
    this.sPos[sp + 1] = this.sPos[sp]!;
    this.sLen[sp + 1] = this.sLen[sp]!;
    this.sState[sp + 1] = this.sState[sp]!;
    this.sPushed[sp + 1] = -1;
    this.sp = sp + 1;
  }

  /** Runs a fresh parser from here; when its first token is of type `want`, takes that token in. */
  private lookAhead(state: number, wanthost: boolean, want: number): boolean {
    const sub = new Tokenizer(this.cps, this.cls, this.sPos[this.sp]!, this.end);
    sub.wanthost = wanthost;
    if (state !== S.Base) {
      sub.push();
      sub.sState[1] = state;
    }
    if (sub.next() && sub.type === want) {
      this.sPos[this.sp]! += sub.tokenLen;
      this.sLen[this.sp]! += sub.tokenLen;
      return true;
    }
    return false;
  }

  private specialTags(): void {
    const n = this.sLen[this.sp]!;
    if (n < 6 || n > 8) return;
    let t = '';
    for (let i = 0; i < n; i++) {
      const c = this.cps[this.tokenStart + i]!;
      t += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c < 128 ? c : 0);
    }
    if (n === 8 && t === '</script') this.ignore = false;
    else if (n === 7 && t === '</style') this.ignore = false;
    else if (n === 7 && t === '<script') this.ignore = true;
    else if (n === 6 && t === '<style') this.ignore = true;
  }

  /** The next token (PostgreSQL's TParserGet): true with tokenStart, tokenLen and type set, false at the end. */
  next(): boolean {
    const end = this.end;
    const cps = this.cps;
    const cls = this.cls;
    if (this.sPos[this.sp]! >= end) return false;
    this.tokenStart = this.sPos[this.sp]!;
    this.sPushed[this.sp] = -1;
    let rule = -1;
    while (this.sPos[this.sp]! <= end) {
      let sp = this.sp;
      const pos = this.sPos[sp]!;
      const atEnd = pos >= end;
      const slot = atEnd ? SLOT_EOF : slotOf(cps[pos]!, cls[pos]!);
      const pushed = this.sPushed[sp]!;
      if (pushed >= 0) {
        rule = pushed + 1;
        this.sPushed[sp] = -1;
      } else rule = R_FIRST[this.sState[sp]!]!;
      for (;;) {
        rule = JUMP[rule * SLOTS + slot]!;
        const kind = R_KIND[rule]!;
        if (kind < K_IGNORE) break;
        let hit: boolean;
        if (kind === K_IGNORE) hit = this.ignore;
        else if (kind === K_STOPHOST) {
          hit = this.wanthost;
          this.wanthost = false;
        } else if (kind === K_ISHOST) hit = this.lookAhead(S.Base, true, HOST);
        else hit = this.lookAhead(S.InURLPathFirst, false, URLPATH);
        if (hit) break;
        rule++;
      }

      switch (R_SPECIAL[rule]) {
        case 0:
          break;
        case SP_TAGS:
          this.specialTags();
          break;
        case SP_FURL:
          this.wanthost = true;
          this.sPos[sp]! -= this.sLen[sp]!;
          break;
        case SP_HYPHEN:
          this.sPos[sp]! -= this.sLen[sp]!;
          break;
        default: // SP_VERVERSION
          this.sPos[sp]! -= this.sLen[sp]!;
          this.sLen[sp] = 0;
      }

      const flags = R_FLAGS[rule]!;
      if (flags & BINGO) {
        this.tokenLen = this.sLen[sp]!;
        this.sLen[sp] = 0;
        this.type = R_TYPE[rule]!;
      }
      if (flags & POP) {
        sp = --this.sp;
      } else if (flags & PUSH) {
        this.sPushed[sp] = rule;
        this.push();
        sp = this.sp;
      } else if (flags & CLEAR) {
        // Forget the saved position under the top one.
        this.sPos[sp - 1] = this.sPos[sp]!;
        this.sLen[sp - 1] = this.sLen[sp]!;
        this.sState[sp - 1] = this.sState[sp]!;
        this.sPushed[sp - 1] = this.sPushed[sp]!;
        sp = --this.sp;
      } else if (flags & CLRALL) {
        this.sPos[0] = this.sPos[sp]!;
        this.sLen[0] = this.sLen[sp]!;
        this.sState[0] = this.sState[sp]!;
        this.sPushed[0] = this.sPushed[sp]!;
        sp = this.sp = 0;
      } else if (flags & MERGE) {
        this.sPos[sp - 1] = this.sPos[sp]!;
        this.sLen[sp - 1] = this.sLen[sp]!;
        sp = --this.sp;
      }
      const to = R_TO[rule]!;
      if (to !== NULL_STATE) this.sState[sp] = to;

      if (flags & BINGO || (this.sPos[sp]! >= end && !(flags & RERUN))) break;
      if (flags & (RERUN | POP)) continue;
      if (this.sPos[sp]! < end) {
        this.sPos[sp]!++;
        this.sLen[sp]!++;
      }
    }
    return rule >= 0 && (R_FLAGS[rule]! & BINGO) !== 0;
  }
}

/** The code points of a string (a lone surrogate stands for itself). */
export function codePoints(text: string): number[] {
  const cps: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if ((d & 0xfc00) === 0xdc00) {
        cps.push(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        i++;
        continue;
      }
    }
    cps.push(c);
  }
  return cps;
}

/**
 * Calls `emit(type, start, end)` for each token of the code points, in order (start and end are
 * code point indexes), as `ts_parse('default', text)` yields them.
 */
let spareStack: Tokenizer | undefined;
let spareClasses = new Uint8Array(256);

export function tokenize(cps: ArrayLike<number>, emit: (type: number, start: number, end: number) => void): void {
  if (!JUMP.length) JUMP = buildJump();
  const n = cps.length;
  // Buffers of the last text are reused unless a tokenize runs inside another's `emit`.
  let cls = spareClasses;
  if (cls.length < n) cls = spareClasses = new Uint8Array(Math.max(n, cls.length * 2));
  spareClasses = new Uint8Array(0);
  for (let i = 0; i < n; i++) cls[i] = charClass(cps[i]!);
  const t = new Tokenizer(cps, cls, 0, n, spareStack);
  spareStack = undefined;
  try {
    while (t.next()) emit(t.type, t.tokenStart, t.tokenStart + t.tokenLen);
  } finally {
    spareStack = t;
    spareClasses = cls;
  }
}

export interface ParsedToken {
  /** Token type id, 1-23 (ts_token_type('default')). */
  type: number;
  /** Token type name: asciiword, word, numword, email, url, host, ... */
  alias: TokenTypeName;
  /** The token's text, as it stands in the input. */
  token: string;
}

/** PostgreSQL's `ts_parse('default', text)`: every token of the text, blanks and tags included. */
export function parseTokens(text: string): ParsedToken[] {
  const cps = codePoints(text);
  const out: ParsedToken[] = [];
  tokenize(cps, (type, start, end) => {
    out.push({ type, alias: TOKEN_TYPES[type] as TokenTypeName, token: String.fromCodePoint(...cps.slice(start, end)) });
  });
  return out;
}
