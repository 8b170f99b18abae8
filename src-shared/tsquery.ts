// Validation of software compliance rule queries (`rules.query`): PostgreSQL tsquery text, read
// as `to_tsquery('simple', query)` reads it (textsearch/). A query is valid exactly when
// PostgreSQL accepts it; an empty query, or one whose operands hold no word (`-`, `' '`), is
// accepted with PostgreSQL's notice and matches nothing.
//
//   query    := or
//   or       := and ( '|' and )*
//   and      := phrase ( '&' phrase )*
//   phrase   := unary ( ( '<->' | '<' N '>' ) unary )*       N from 0 to 16384
//   unary    := '!' unary | '(' or ')' | operand
//   operand  := lexeme [ ':' ( '*' | 'A' | 'B' | 'C' | 'D' )* ]
//   lexeme   := quoted ('...' with '' or \' for a quote) | bare (no space or ! & | ( ) < :)
//
// Precedence, as in PostgreSQL: ! binds tightest, then <->, then &, then |.
import { foldTree, queryKids, type TsQuerySyntax, toTsQuery, tsqueryToString } from './textsearch';

/** The query as written: operands with their text (unescaped), prefix flag and weight letters. */
export type TsNode =
  | { type: 'lexeme'; value: string; prefix: boolean; weights: string }
  | { type: 'not'; arg: TsNode }
  | { type: 'and' | 'or'; left: TsNode; right: TsNode }
  | { type: 'phrase'; distance: number; left: TsNode; right: TsNode };

export type TsParseResult =
  | {
      ok: true;
      /** The query as written; null for an empty query. */
      ast: TsNode | null;
      /** to_tsquery('simple', query) as PostgreSQL prints it ('' when it matches nothing). */
      normalized: string;
      /** PostgreSQL's notice when the query holds no word. */
      notice?: string;
    }
  | {
      ok: false;
      /** What is wrong and where (`unexpected "b" at position 2`). */
      error: string;
      /** UTF-16 index into the query where reading stopped. */
      position: number;
      /** PostgreSQL's own message (`syntax error in tsquery: "a b"`). */
      message: string;
    };

const weightLetters = (w: number) => (w & 8 ? 'A' : '') + (w & 4 ? 'B' : '') + (w & 2 ? 'C' : '') + (w & 1 ? 'D' : '');

/** The syntax tree as TsNode, without recursion (a chain of 40,000 operators is 40,000 levels deep). */
function toNode(root: TsQuerySyntax): TsNode {
  return foldTree<TsQuerySyntax, TsNode>(root, queryKids, (s, kids) => {
    switch (s.type) {
      case 'operand':
        return { type: 'lexeme', value: s.text, prefix: s.prefix, weights: weightLetters(s.weight) };
      case 'not':
        return { type: 'not', arg: kids[0]! };
      case 'phrase':
        return { type: 'phrase', distance: s.distance, left: kids[0]!, right: kids[1]! };
      default:
        return { type: s.type, left: kids[0]!, right: kids[1]! };
    }
  });
}

export function parseTsQuery(input: string): TsParseResult {
  const r = toTsQuery(input);
  if (!r.ok) return { ok: false, error: r.error.reason, position: r.error.position, message: r.error.message };
  return { ok: true, ast: r.syntax ? toNode(r.syntax) : null, normalized: tsqueryToString(r.query), ...(r.notice ? { notice: r.notice } : {}) };
}

/** Whether PostgreSQL accepts the query (`to_tsquery('simple', query)` raises no error). */
export function isValidTsQuery(input: string): boolean {
  return toTsQuery(input).ok;
}
