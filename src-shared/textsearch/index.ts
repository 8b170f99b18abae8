// PostgreSQL 15's full text search with the `simple` configuration, exactly: to_tsvector,
// to_tsquery, the tsvector and tsquery text forms, and `@@`. Used to evaluate software compliance
// rules (a rule's query against installed software) the way the platform's PostgreSQL does.
import { compileTsQuery } from './match';
import { toTsQuery, type TsQuery } from './tsquery';
import { EMPTY_TSVECTOR, parseTsVector, TextSearchError, toTsVector, type TsVector } from './tsvector';

export { compareLexemes, lowerText } from './chars';
export {
  BoundTsQuery,
  CompiledTsQuery,
  compileTsQuery,
  type Prefilter,
  type QueryOperand,
  TsLexicon,
  TsVectorStore,
} from './match';
export { type ParsedToken, parseTokens, TOKEN_TYPES, type TokenTypeName } from './parser';
export {
  foldTree,
  MAX_QUERY_DEPTH,
  queryKids,
  parseTsQuerySyntax,
  type TsQuery,
  type TsQueryError,
  type TsQueryNode,
  type TsQueryResult,
  type TsQuerySyntax,
  tsqueryFromText,
  tsqueryToString,
  toTsQuery,
  WEIGHT_BITS,
} from './tsquery';
export {
  EMPTY_TSVECTOR,
  MAX_LEXEME_BYTES,
  MAX_POSITION,
  MAX_TSVECTOR_BYTES,
  type ParsedWord,
  parseTsVector,
  parseWords,
  TextSearchError,
  type TsVector,
  toTsVector,
  tsvectorEquals,
  tsvectorFromWords,
  tsvectorToString,
} from './tsvector';

/** The text a software record is indexed by when it has no stored tsvector: `name || ' ' || version`, the version left out when empty. */
export function softwareText(name: string | null | undefined, version?: string | null): string {
  const n = name ?? '';
  return version ? `${n} ${version}` : n;
}

/**
 * A software record's vector: its stored `tsvector` text when it has one (records copied from the
 * platform), otherwise `to_tsvector('simple', name || ' ' || version)`, the version left out when
 * empty. A stored text PostgreSQL would refuse throws TextSearchError.
 */
export function softwareVector(record: { name?: string | null; version?: string | null; tsvector?: string | null }): TsVector {
  if (record.tsvector != null && record.tsvector !== '') return parseTsVector(record.tsvector);
  const text = softwareText(record.name, record.version);
  return text ? toTsVector(text) : EMPTY_TSVECTOR;
}

/** PostgreSQL's `to_tsquery('simple', text)`, throwing TextSearchError where PostgreSQL raises an error. */
export function toTsQueryOrThrow(text: string): TsQuery {
  const r = toTsQuery(text);
  if (!r.ok) throw new TextSearchError(r.error.message, r.error.position, r.error.reason);
  return r.query;
}

/** `vector @@ query` for one pair (compile the query once with compileTsQuery to match many vectors). */
export function tsMatch(vector: TsVector, query: TsQuery): boolean {
  return compileTsQuery(query).matches(vector);
}
