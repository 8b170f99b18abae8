// Who may call, over a real socket: API key, Bearer JWT, the Host check (DNS rebinding), no CORS,
// no secret echoed back, and the error shape of every non-2xx answer.
import http from 'node:http';
import { createSigner } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src-main/server/security';
import { search, startTestServer, TEST_KEY, type CallResult, type TestServer } from '../helpers/server';
import { B, CM, createByName, uuid } from './gen';

let srv: TestServer;
let port = 0;

beforeAll(async () => {
  srv = await startTestServer();
  port = Number(new URL(srv.main).port);
});

afterAll(async () => {
  await srv?.stop();
});

const NO_KEY = { PgrApiKey: '' };
const bearer = (token: string) => ({ PgrApiKey: '', Authorization: `Bearer ${token}` });

/** Every non-2xx answer: exactly {error, error_code} (+ extra on 409), error_code equal to the status. */
function expectErrorShape(res: CallResult, status?: number): void {
  if (status !== undefined) expect(res.status, res.text).toBe(status);
  expect(res.status).toBeGreaterThanOrEqual(400);
  const keys = Object.keys(res.body ?? {}).sort();
  expect(keys, res.text).toEqual(res.status === 409 ? ['error', 'error_code', 'extra'] : ['error', 'error_code']);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.error.length).toBeGreaterThan(0);
  expect(res.body.error_code).toBe(res.status);
  expect(res.headers.get('content-type') ?? '').toContain('application/json');
  if (res.status === 409) expect(Array.isArray(res.body.extra.fields)).toBe(true);
}

/** A raw request with a chosen Host header (fetch does not let one set it). */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('no credentials', () => {
  const routes: [string, string, unknown?][] = [
    ['POST', `${B}/software_groups/search`, search()],
    ['POST', `${B}/software_groups/create`, { name: 'без ключа' }],
    ['GET', `${B}/software_groups/_meta`],
    ['GET', `${B}/input_sources/6f1c1b8e-2f0f-4a44-9a39-000000000000`],
    ['DELETE', `${B}/software_groups/all`],
    ['POST', `${B}/rules/create`, { trace_id: 't', name: 'x', query: 'a' }],
    ['POST', `${B}/sonar/services/scan`, { ips: ['127.0.0.1'] }],
    ['POST', `${CM}/agents/6f1c1b8e-2f0f-4a44-9a39-000000000000/apply_config`],
    ['GET', '/openapi.json'],
    ['GET', `${B}/no_such_resource/anything`],
    ['GET', '/no/such/path'],
  ];

  for (const [method, path, body] of routes) {
    it(`${method} ${path} answers 401 \`no auth header\``, async () => {
      const res = await srv.call(method, path, body, NO_KEY);
      expectErrorShape(res, 401);
      expect(res.body).toEqual({ error: 'no auth header', error_code: 401 });
    });
  }

  it('nothing is written by a refused call', async () => {
    const name = `отказ-${uuid()}`;
    await srv.call('POST', `${B}/software_groups/create`, { name }, NO_KEY);
    const s = await srv.call('POST', `${B}/software_groups/search`, search({ filters: [{ field: 'name', filter_type: 'equal', value: name }] }));
    expect(s.status).toBe(200);
    expect(s.body.total).toBe(0);
  });

  it('the routing port asks for credentials too', async () => {
    const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, NO_KEY, srv.routing);
    expect(res.body).toEqual({ error: 'no auth header', error_code: 401 });
    const ok = await srv.call('GET', `${B}/software_groups/_meta`, undefined, {}, srv.routing);
    expect(ok.status).toBe(200);
  });
});

describe('API key and Bearer tokens', () => {
  it('the right API key is accepted', async () => {
    const res = await srv.call('GET', `${B}/software_groups/_meta`);
    expect(res.status).toBe(200);
  });

  it('a wrong API key answers 401', async () => {
    for (const key of ['wrong', `${TEST_KEY}x`, TEST_KEY.slice(0, -1), TEST_KEY.toUpperCase()]) {
      const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, { PgrApiKey: key });
      expectErrorShape(res, 401);
    }
  });

  it('a wrong API key is refused even with a valid token beside it', async () => {
    const token = issueToken(srv.jwtSecret, uuid(), 60);
    const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, { PgrApiKey: 'wrong', Authorization: `Bearer ${token}` });
    expectErrorShape(res, 401);
  });

  it('a malformed or garbage Authorization answers 401', async () => {
    for (const value of ['Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer garbage', 'Bearer a.b.c', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.', 'Token abc', TEST_KEY, `Bearer ${TEST_KEY}`]) {
      const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, { PgrApiKey: '', Authorization: value });
      expectErrorShape(res, 401);
    }
  });

  it('a valid HS256 JWT signed with the server secret is accepted (no API key)', async () => {
    const token = issueToken(srv.jwtSecret, uuid(), 300);
    const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, bearer(token));
    expect(res.status, res.text).toBe(200);
    const created = await srv.call('POST', `${B}/software_groups/create`, { name: `по-токену-${uuid()}` }, bearer(token));
    expect(created.status, created.text).toBe(201);
    const lower = await srv.call('GET', `${B}/software_groups/_meta`, undefined, { PgrApiKey: '', Authorization: `bearer ${token}` });
    expect(lower.status).toBe(200);
  });

  it('an expired JWT answers 401', async () => {
    const sign = createSigner({ key: srv.jwtSecret, algorithm: 'HS256' });
    const now = Math.floor(Date.now() / 1000);
    const token = sign({ sub: uuid(), iat: now - 3600, exp: now - 60 });
    const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, bearer(token));
    expectErrorShape(res, 401);
  });

  it('a JWT signed with another secret answers 401', async () => {
    const token = issueToken(`${srv.jwtSecret}-other`, uuid(), 300);
    const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, bearer(token));
    expectErrorShape(res, 401);
  });

  it('an unsigned (alg none) JWT, one without exp, and one of another algorithm answer 401', async () => {
    const none = createSigner({ algorithm: 'none' })({ sub: uuid(), exp: Math.floor(Date.now() / 1000) + 300 });
    const noExp = createSigner({ key: srv.jwtSecret, algorithm: 'HS256' })({ sub: uuid() });
    const hs512 = createSigner({ key: srv.jwtSecret, algorithm: 'HS512', expiresIn: 300_000 })({ sub: uuid() });
    for (const token of [none, noExp, hs512]) {
      const res = await srv.call('GET', `${B}/software_groups/_meta`, undefined, bearer(token));
      expectErrorShape(res, 401);
    }
  });

  it('a token-authenticated call creates an active action, recording the Pgr-User-Id user', async () => {
    const user = uuid();
    const token = issueToken(srv.jwtSecret, user, 300);
    const rule = await createByName(srv, 'engine_go_rules');
    const script = await createByName(srv, 'integration_scripts');
    const res = await srv.call(
      'POST',
      `${B}/engine_go_rules_integration_actions/create`,
      { rule_id: rule.id, integration_script_id: script.id, params: [], state: true },
      { ...bearer(token), 'Pgr-User-Id': user },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.user_id).toBe(user);
  });
});

describe('Host header (DNS rebinding)', () => {
  const path = `${B}/software_groups/_meta`;

  for (const host of ['evil.example', 'evil.example:80', `evil.example:PORT`, 'localhost.evil.example', '127.0.0.1.evil.example', '10.0.0.5:PORT', '[2001:db8::1]:PORT']) {
    it(`Host ${host} answers 403 \`forbidden host\``, async () => {
      const res = await rawRequest('GET', path, { Host: host.replace('PORT', String(port)), PgrApiKey: TEST_KEY });
      expect(res.status, res.text).toBe(403);
      expect(JSON.parse(res.text)).toEqual({ error: 'forbidden host', error_code: 403 });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  }

  it('a foreign Host is refused before anything is written', async () => {
    const name = `чужой-хост-${uuid()}`;
    const res = await rawRequest('POST', `${B}/software_groups/create`, { Host: 'evil.example', PgrApiKey: TEST_KEY, 'Content-Type': 'application/json' }, JSON.stringify({ name }));
    expect(res.status).toBe(403);
    const s = await srv.call('POST', `${B}/software_groups/search`, search({ filters: [{ field: 'name', filter_type: 'equal', value: name }] }));
    expect(s.body.total).toBe(0);
  });

  for (const host of ['localhost:PORT', '127.0.0.1:PORT', '[::1]:PORT', 'localhost', '127.0.0.1', 'LOCALHOST:PORT']) {
    it(`Host ${host} is accepted`, async () => {
      const res = await rawRequest('GET', path, { Host: host.replace('PORT', String(port)), PgrApiKey: TEST_KEY });
      expect(res.status, res.text).toBe(200);
      expect(JSON.parse(res.text).name).toBe('software_groups');
    });
  }
});

describe('CORS: no cross-origin access is granted', () => {
  it('no access-control-allow-origin on an OPTIONS preflight with Origin (with or without a key)', async () => {
    const variants: Record<string, string>[] = [
      { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'pgrapikey,content-type' },
      { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST', PgrApiKey: '' },
    ];
    for (const headers of variants) {
      const res = await srv.call('OPTIONS', `${B}/software_groups/search`, undefined, headers);
      expect(res.headers.get('access-control-allow-origin'), JSON.stringify(headers)).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('no access-control-allow-origin on ordinary answers with an Origin header', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', `${B}/software_groups/_meta`],
      ['POST', `${B}/software_groups/search`, search()],
      ['GET', `${B}/software_groups/not-a-uuid`],
      ['GET', '/openapi.json'],
      ['GET', '/'],
    ];
    for (const [m, p, body] of calls) {
      for (const origin of ['http://evil.example', 'null', srv.main]) {
        const res = await srv.call(m, p, body, { Origin: origin });
        expect(res.headers.get('access-control-allow-origin'), `${m} ${p} ${origin}`).toBeNull();
      }
    }
  });
});

describe('secrets are never echoed', () => {
  it('neither the API key nor the token secret appears in any body or header of normal calls', async () => {
    const g = await srv.call('POST', `${B}/software_groups/create`, { name: `секрет-${uuid()}` });
    const vs = await srv.call('POST', `${B}/value_stores/create`, { name: 'db', password: TEST_KEY });
    expect(vs.status, vs.text).toBe(201);
    const calls = [
      g,
      vs,
      await srv.call('GET', `${B}/value_stores/${vs.body.id}`),
      await srv.call('POST', `${B}/value_stores/search`, search()),
      await srv.call('GET', `${B}/software_groups/${g.body.id}`),
      await srv.call('POST', `${B}/software_groups/search`, search()),
      await srv.call('GET', `${B}/software_groups/_meta`),
      await srv.call('GET', '/openapi.json'),
      await srv.call('GET', `${B}/software_groups/not-a-uuid`),
      await srv.call('GET', '/no/such/path'),
      await srv.call('POST', `${B}/software_groups/search`, '{bad json'),
      await srv.call('GET', `${B}/software_groups/_meta`, undefined, { PgrApiKey: `${TEST_KEY}-wrong` }),
      await srv.call('GET', '/'),
    ];
    for (const res of calls) {
      expect(res.text).not.toContain(TEST_KEY);
      expect(res.text).not.toContain(srv.jwtSecret);
      res.headers.forEach((value, name) => {
        expect(value, name).not.toContain(TEST_KEY);
        expect(value, name).not.toContain(srv.jwtSecret);
      });
    }
  });
});

describe('error shape', () => {
  it('a malformed JSON body answers 400 {error, error_code: 400}', async () => {
    for (const body of ['{bad json', '{"name": }', '[1,', 'null x']) {
      const res = await srv.call('POST', `${B}/software_groups/create`, body);
      expectErrorShape(res, 400);
    }
  });

  it('every non-2xx answer is exactly {error, error_code} (+ extra on 409) with error_code equal to the status', async () => {
    const name = `дубль-${uuid()}`;
    await srv.call('POST', `${B}/software_groups/create`, { name });
    const answers: CallResult[] = [
      await srv.call('GET', `${B}/software_groups/not-a-uuid`),
      await srv.call('GET', `${B}/software_groups/6f1c1b8e-2f0f-4a44-9a39-000000000000`),
      await srv.call('GET', `${B}/software_groups/`),
      await srv.call('POST', `${B}/software_groups/create`, { name }),
      await srv.call('POST', `${B}/software_groups/create`, {}),
      await srv.call('POST', `${B}/software_groups/create`, { name: 5 }),
      await srv.call('POST', `${B}/software_groups/create`, { name: 'x', unknown_field: 1 }),
      await srv.call('POST', `${B}/software_groups/search`, { limit: 'x' }),
      await srv.call('POST', `${B}/software_groups/search`, search({ include_fields: ['nope'] })),
      await srv.call('POST', `${B}/software_groups/group`, {}),
      await srv.call('POST', `${B}/software_groups/mass_delete`, { ids: [] }),
      await srv.call('POST', `${B}/software_groups/mass_update`, { ids: ['x'] }),
      await srv.call('POST', `${B}/software_groups/create`, 'name=x', { 'Content-Type': 'application/x-www-form-urlencoded' }),
      await srv.call('POST', `${B}/software_groups/create`, 'name', { 'Content-Type': 'text/plain' }),
      await srv.call('DELETE', `${B}/software_groups/not-a-uuid`),
      await srv.call('PUT', `${B}/software_groups/update`, { id: '6f1c1b8e-2f0f-4a44-9a39-000000000000' }),
      await srv.call('GET', '/no/such/path'),
      await srv.call('PATCH', `${B}/software_groups/update`, {}),
      await srv.call('GET', `${B}/software_groups/_meta`, undefined, NO_KEY),
      await srv.call('GET', `${B}/software_groups/_meta`, undefined, { PgrApiKey: 'bad' }),
      await srv.call('POST', `${B}/sonar/services/scan`, { ips: [''] }),
      await srv.call('POST', `${B}/rules/create`, { trace_id: 't', name: '', query: 'a' }),
      await srv.call('POST', `${CM}/agents/6f1c1b8e-2f0f-4a44-9a39-000000000000/apply_config`),
    ];
    const statuses = new Set<number>();
    for (const res of answers) {
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expectErrorShape(res);
      statuses.add(res.status);
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([400, 401, 404, 409]));
  });

  it('a 403 from the Host check has the same shape', async () => {
    const res = await rawRequest('GET', `${B}/software_groups/_meta`, { Host: 'evil.example' });
    expect(res.status).toBe(403);
    expect(Object.keys(JSON.parse(res.text)).sort()).toEqual(['error', 'error_code']);
  });
});
