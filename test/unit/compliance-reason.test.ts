// The workbench says why PostgreSQL refuses a query in the console's language: every reason the
// tsquery reader gives (on hand-picked and generated broken queries) has a message of its own in
// English and in Russian, the position left to the line beside it.
import fc from 'fast-check';
import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { toTsQuery } from '../../src-shared/textsearch';
import { EN, RU } from '../../src-renderer/src/i18n/catalog';
import { reasonText } from '../../src-renderer/src/views/compliance/reason';

const i18n = createInstance();
await i18n.init({ resources: { en: { translation: EN }, ru: { translation: RU } }, lng: 'en', fallbackLng: false, initAsync: false, interpolation: { escapeValue: false } });
const en = i18n.getFixedT('en');
const ru = i18n.getFixedT('ru');

const BROKEN = [
  'teamviewer anydesk',
  'a &',
  '& a',
  'a | ',
  '(a | b',
  'a | b)',
  'a <x> b',
  'a:Z',
  ':a',
  "'unterminated",
  "''",
  'a <16385> b',
  'a \\',
  '!',
  '()',
  `${'('.repeat(1100)}a${')'.repeat(1100)}`,
  `x${'é'.repeat(1100)}`,
  `a & ${'!'.repeat(40)}b`,
];
const soup = fc
  .array(fc.constantFrom('a', 'ядро', "'q'", '&', '|', '!', '<->', '<2>', '<99999>', '<-', '(', ')', ':*', ':A', ':', ':z', '\\', ' ', '*'), { minLength: 1, maxLength: 8 })
  .map((p) => p.join(''));

describe('why a query is refused, in both languages', () => {
  it('has a message for every reason the reader gives', () => {
    const reasons = new Map<string, string>();
    for (const q of [...BROKEN, ...fc.sample(soup, { numRuns: 3000, seed: 24 })]) {
      const r = toTsQuery(q);
      if (!r.ok) reasons.set(r.error.reason, q);
    }
    expect(reasons.size).toBeGreaterThan(8);
    const kinds = new Set<string>();
    for (const [reason, query] of reasons) {
      const e = reasonText(reason, en);
      const r = reasonText(reason, ru);
      expect(e, `${query}: ${reason}`).not.toBe(reason);
      expect(r, `${query}: ${reason}`).toMatch(/[а-яё]/i);
      for (const text of [e, r]) {
        expect(text).not.toMatch(/\{\{|compliance\.|position \d/);
        expect(text).not.toMatch(/позици/);
      }
      kinds.add(reasonText(reason.replace(/"(.+)"/u, '"x"'), en));
    }
    // The hand-picked queries reach every kind of refusal the reader has.
    expect(kinds.size).toBeGreaterThanOrEqual(10);
  });

  it('names the character where reading stopped and keeps a reason it does not know', () => {
    expect(reasonText('unexpected "b" at position 2', ru)).toBe('неожиданный символ «b»');
    expect(reasonText('unexpected "b" at position 2', en)).toBe('unexpected “b”');
    expect(reasonText('missing ")" at position 6', ru)).toBe('«(» без парной «)»');
    expect(reasonText('something new at position 3', ru)).toBe('something new at position 3');
  });
});
