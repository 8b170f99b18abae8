// Why a query is refused, in the console's language: the server's `reason` (English, stable
// wording from the tsquery reader) matched to a message of the catalogue. The position is shown
// beside it, so a trailing "at position N" is left out. A reason the catalogue does not know is
// shown as the server wrote it.
import type { TFunction } from 'i18next';

const READERS: [RegExp, (m: RegExpMatchArray, t: TFunction) => string][] = [
  [/^unexpected ":" where an operand should start$/, (_m, t) => t('compliance.reasonColon')],
  [/^unexpected end( of query)?$/, (_m, t) => t('compliance.reasonEnd')],
  [/^expected an operand, found "(.+)"$/u, (m, t) => t('compliance.reasonOperand', { c: m[1] })],
  [/^empty lexeme$/, (_m, t) => t('compliance.reasonEmpty')],
  [/^unterminated quoted lexeme$/, (_m, t) => t('compliance.reasonUnterminated')],
  [/^nothing after "\\"$/, (_m, t) => t('compliance.reasonBackslash')],
  [/^unexpected "(.+)"$/u, (m, t) => t('compliance.reasonUnexpected', { c: m[1] })],
  [/^malformed phrase operator/, (_m, t) => t('compliance.reasonPhrase')],
  [/^unmatched "\)"$/, (_m, t) => t('compliance.reasonUnmatched')],
  [/^missing "\)"$/, (_m, t) => t('compliance.reasonMissing')],
  [/^phrase distance (\d+) is above 16384$/, (m, t) => t('compliance.reasonDistance', { d: m[1] })],
  [/^more than (\d+) operators waiting for operands$/, (m, t) => t('compliance.reasonStack', { n: Number(m[1]) })],
  [/^the query nests more than (\d+) levels deep$/, (m, t) => t('compliance.reasonDeep', { n: Number(m[1]) })],
  [/^a word of (\d+) bytes \(at most (\d+)\)$/, (m, t) => t('compliance.reasonLong', { n: Number(m[1]), max: Number(m[2]) })],
  [/^the operands exceed 1 MB$/, (_m, t) => t('compliance.reasonBig')],
];

export function reasonText(reason: string, t: TFunction): string {
  const bare = reason.replace(/ at position \d+$/, '');
  for (const [re, say] of READERS) {
    const m = bare.match(re);
    if (m) return say(m, t);
  }
  return reason;
}
