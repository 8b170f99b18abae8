// The console's opening: the first page asked before the application is loaded (api/primed.ts)
// is taken only by a request equal in every part, once, over a real socket; the fields the
// opening asks are the list's; the address parser knows every resource without loading them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sendAhead, takeAhead } from '../../src-renderer/src/api/primed';
import { fieldsOf, openingFields } from '../../src-renderer/src/data/incidentFields';
import { FIRST_READ, FIRST_ROWS, PAGE_SIZE, READ_AHEAD } from '../../src-renderer/src/data/paging';
import { parseRoute } from '../../src-renderer/src/router';
import { RESOURCES } from '../../src-shared/resources/index';

describe('a request sent ahead', () => {
  let server: http.Server;
  let base = '';
  let received: { method: string; url: string; body: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ n: received.length, body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test('is answered to the same request once, and to nothing else', async () => {
    received = [];
    const url = `${base}/cruddy/v2/service_asset_findings/search`;
    const body = JSON.stringify({ limit: 300, offset: 0 });
    sendAhead({ url, method: 'POST', headers: { PgrApiKey: 'k1', 'Content-Type': 'application/json' }, body });
    // Another key, another body, another method or address, one more header: not this answer.
    expect(takeAhead(url, { method: 'POST', headers: { PgrApiKey: 'k2', 'Content-Type': 'application/json' }, body })).toBeUndefined();
    expect(takeAhead(url, { method: 'POST', headers: { PgrApiKey: 'k1', 'Content-Type': 'application/json' }, body: JSON.stringify({ limit: 300, offset: 300 }) })).toBeUndefined();
    expect(takeAhead(url, { method: 'GET', headers: { PgrApiKey: 'k1', 'Content-Type': 'application/json' }, body })).toBeUndefined();
    expect(takeAhead(`${url}?x=1`, { method: 'POST', headers: { PgrApiKey: 'k1', 'Content-Type': 'application/json' }, body })).toBeUndefined();
    expect(takeAhead(url, { method: 'POST', headers: { PgrApiKey: 'k1', 'Content-Type': 'application/json', 'Pgr-User-Id': 'u' }, body })).toBeUndefined();
    // The same request (headers in another order and case): the answer sent ahead, once.
    const answer = takeAhead(url, { method: 'post', headers: new Headers({ 'content-type': 'application/json', pgrapikey: 'k1' }), body });
    expect(answer).toBeDefined();
    expect(await (await answer!).json()).toEqual({ n: 1, body });
    expect(takeAhead(url, { method: 'POST', headers: { PgrApiKey: 'k1', 'Content-Type': 'application/json' }, body })).toBeUndefined();
    expect(received).toEqual([{ method: 'POST', url: '/cruddy/v2/service_asset_findings/search', body }]);
  });

  test('is sent once however often it is asked ahead', async () => {
    received = [];
    const url = `${base}/console/v1/me`;
    sendAhead({ url, method: 'GET', headers: { PgrApiKey: 'k1' }, body: undefined });
    sendAhead({ url, method: 'GET', headers: { PgrApiKey: 'k1' }, body: undefined });
    const answer = takeAhead(url, { method: 'GET', headers: { PgrApiKey: 'k1' } });
    expect((await (await answer!).json()).n).toBe(1);
    expect(received).toHaveLength(1);
  });
});

describe('the opening request', () => {
  test('asks the fields of the optional columns shown, as the list does', () => {
    expect(openingFields(null, undefined)).toEqual([]);
    expect(openingFields(null, { visibility: { updated_at: true, external: false, title: false }, sizing: {}, order: [] })).toEqual(['updated_at']);
    // Columns named in the address win over the settings.
    expect(openingFields(['display_id', 'itsm_sync_status', 'alert_type'], { visibility: { updated_at: true }, sizing: {}, order: [] })).toEqual(['alert_type', 'itsm_sync_status']);
    expect(fieldsOf(['title', 'reopened_at', 'acknowledged_at'])).toEqual(['acknowledged_at', 'reopened_at']);
  });

  test('reads the pages under the first rows and the ones read ahead in one request', () => {
    expect(FIRST_READ).toBe((Math.ceil(FIRST_ROWS / PAGE_SIZE) + READ_AHEAD) * PAGE_SIZE);
    expect(FIRST_READ).toBe(300);
  });

  test('the address parser knows every resource', () => {
    for (const r of RESOURCES) expect(parseRoute(`#/r/${r.name}`)).toEqual({ view: 'resource', resource: r.name });
    expect(parseRoute('#/r/no_such_resource').view).toBe('notFound');
  });
});
