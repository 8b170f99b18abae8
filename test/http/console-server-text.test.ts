// The console shows the server's refusals in Russian: each text the server answers for a mistake
// an analyst can make from the console (a search, a public query, a record that is gone) is
// asked of a real server, and the console's translation of it is Russian, keeping the names it
// quotes. English answers stay as the server wrote them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serverText } from '../../src-renderer/src/i18n/serverText';
import { search, startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

const V2 = '/cruddy/v2/service_asset_findings';
const PUB = '/data/public/api/v1/incidents';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

const cases: { what: string; call: () => Promise<{ status: number; body: { error?: string } }>; quotes: string[] }[] = [
  { what: 'an unknown filter field', call: () => srv.call('POST', `${V2}/search`, search({ filters: [{ field: 'severity', filter_type: 'equal', value: 'high' }] })), quotes: ['severity'] },
  { what: 'a filter type the field does not take', call: () => srv.call('POST', `${V2}/search`, search({ filters: [{ field: 'risklevel', filter_type: 'substr', value: 'x' }] })), quotes: ['risklevel'] },
  { what: 'a value of the wrong kind', call: () => srv.call('POST', `${V2}/search`, search({ filters: [{ field: 'risklevel', filter_type: 'equal', value: 'high' }] })), quotes: ['risklevel'] },
  { what: 'a range without bounds', call: () => srv.call('POST', `${V2}/search`, search({ filters: [{ field: 'risklevel', filter_type: 'range', value: [null, null] }] })), quotes: ['risklevel'] },
  { what: 'an unknown ordering field', call: () => srv.call('POST', `${V2}/search`, search({ ordering: [{ field: 'severity', direction: 'asc' }] })), quotes: ['severity'] },
  { what: 'an unknown relation', call: () => srv.call('POST', `${V2}/search`, search({ relations: ['owners'] })), quotes: ['owners'] },
  { what: 'a record that is not there', call: () => srv.call('GET', `${V2}/${UNKNOWN}`), quotes: [] },
  { what: 'an id that is not a uuid', call: () => srv.call('GET', `${V2}/not-an-id`), quotes: [] },
  { what: 'an unknown public field', call: () => srv.call('GET', `${PUB}?severity=eq,high`), quotes: ['severity'] },
  { what: 'an unknown public operator', call: () => srv.call('GET', `${PUB}?status=between,new`), quotes: ['between', 'status'] },
  { what: 'a status the platform does not have', call: () => srv.call('GET', `${PUB}?status=in,new,bogus`), quotes: ['bogus', 'status', 'LIST'] },
  { what: 'a page size that is not a number', call: () => srv.call('GET', `${PUB}?per_page=many`), quotes: ['per_page'] },
  { what: 'a wrong key', call: () => srv.call('GET', PUB, undefined, { PgrApiKey: 'wrong' }), quotes: [] },
];

it.each(cases)('$what: the server’s text reads in Russian', async ({ call, quotes }) => {
  const r = await call();
  expect(r.status).toBeGreaterThanOrEqual(400);
  const text = r.body.error!;
  expect(text).toBeTruthy();
  const ru = serverText('ru', text);
  expect(ru, text).not.toBe(text);
  expect(ru, `${text} → ${ru}`).toMatch(/[а-яё]/i);
  // No English word left outside the names quoted.
  let rest = ru;
  // LIST: the allowed values the text names after "expected one of".
  for (const q of quotes.map((x) => (x === 'LIST' ? text.split('expected one of ')[1]! : x))) {
    expect(ru).toContain(q);
    rest = rest.split(q).join(' ');
  }
  const english = rest.match(/\b(unknown|invalid|expected|field|value|not|found|should|must|operator|for|the|is|supported|credentials)\b/gi);
  expect(english, `${text} → ${ru}`).toBeNull();
  // English is the server's own words.
  expect(serverText('en', text)).toBe(text);
});
