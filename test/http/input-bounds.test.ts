// Input that used to reach past the checks: names of JavaScript's own object members, NUL bytes,
// numbers past 2^53, deep JSON, huge echoes, wrong methods, values outside an enum, bodies past
// the limits. Each is answered with a 4xx in the error shape, never a 500.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let srv: TestServer;
let incident: string;
const B = '/cruddy/v2';
const PUB = '/data/public/api/v1';
const MEMBER_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo', limits: { bodyBytes: 1024 * 1024, importBytes: 2 * 1024 * 1024 } });
  incident = (await srv.call('POST', `${B}/service_asset_findings/search`, search({ limit: 1 }))).body.items[0].id;
});
afterAll(async () => {
  await srv?.stop();
});

const isError = (res: { status: number; body: unknown }, status: number) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: expect.any(String), error_code: status });
};

describe('names of object members in requests', () => {
  it('relations and _relations of a search, relations of a get', async () => {
    for (const name of MEMBER_NAMES) {
      isError(await srv.call('POST', `${B}/service_asset_findings/search`, search({ relations: [name] })), 400);
      isError(await srv.call('POST', `${B}/service_asset_findings/search`, search({ _relations: [name] })), 400);
      isError(await srv.call('GET', `${B}/service_asset_findings/${incident}?relations=${encodeURIComponent(name)}`), 400);
    }
  });

  it('mass_update field and fields keys', async () => {
    for (const name of MEMBER_NAMES) {
      const one = await srv.call('POST', `${B}/service_asset_findings/mass_update`, { ids: [incident], field: name, value: 1 });
      isError(one, 400);
      expect(one.body.error).toMatch(/unknown field|__proto__/);
      const many = await srv.call('POST', `${B}/service_asset_findings/mass_update`, `{"ids":["${incident}"],"fields":{"${name}":1}}`);
      isError(many, 400);
    }
  });

  it('a nested entity of the public filters, _relations keys of a write', async () => {
    for (const name of MEMBER_NAMES) {
      isError(await srv.call('GET', `${PUB}/incidents?${encodeURIComponent(`${name}.name`)}=eq,x`), 400);
      isError(await srv.call('POST', `${B}/software_groups/create`, `{"name":"x","_relations":{"${name}":[]}}`), 400);
    }
  });
});

describe('NUL bytes in search terms', () => {
  it('are matched as text, not passed to the full-text parser', async () => {
    for (const term of ['a%00b', 'abc%00def', '%00%00%00']) {
      expect((await srv.call('GET', `${PUB}/incidents?search=${term}`)).status).toBe(200);
      expect((await srv.call('GET', `${PUB}/incidents?title=like,${term}`)).status).toBe(200);
      expect((await srv.call('GET', `/console/v1/stats/incidents?search=${term}`)).status).toBe(200);
    }
    for (const value of ['a\u0000b', 'abc\u0000def']) {
      const vs = await srv.call('POST', `${B}/service_asset_findings/search`, search({ virtual_search: { value, strict: false } }));
      expect(vs.status, vs.text).toBe(200);
      const sub = await srv.call('POST', `${B}/service_asset_findings/search`, search({ filters: [{ field: 'title', filter_type: 'substr', value }] }));
      expect(sub.status, sub.text).toBe(200);
    }
  });
});

describe('numbers past what an offset can hold', () => {
  it('page x per_page past 2^53 is a 400 naming page', async () => {
    for (const q of ['per_page=1000&page=9223372036854775', 'page=99999999999999999999999', 'per_page=1000&page=9007199254742']) {
      const res = await srv.call('GET', `${PUB}/incidents?${q}`);
      isError(res, 400);
      expect(res.body.error).toMatch(/^page must be at most/);
    }
    expect((await srv.call('GET', `${PUB}/incidents?per_page=1000&page=9007199254741`)).status).toBe(200);
  });

  it('a search offset or limit out of range is a 400', async () => {
    isError(await srv.call('POST', `${B}/service_asset_findings/search`, search({ offset: 2 ** 63 })), 400);
    isError(await srv.call('POST', `${B}/service_asset_findings/search`, search({ limit: 1e9 })), 400);
    const far = await srv.call('POST', `${B}/service_asset_findings/search`, search({ offset: Number.MAX_SAFE_INTEGER }));
    expect(far.status).toBe(200);
    expect(far.body.items).toEqual([]);
  });
});

describe('deep JSON', () => {
  const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

  it('is refused with 400 naming the bound, on every way in', async () => {
    for (const [method, path, body] of [
      ['POST', `${B}/software_groups/search`, arrays(10_000)],
      ['POST', `${B}/agents/create`, `{"name":"a","pending_config":${objects(5_000)}}`],
      ['POST', `${B}/engine_go_results/create`, `{"event":${objects(100)}}`],
      ['POST', `/console/v1/route${B}/software_groups/search`, arrays(10_000)],
    ] as const) {
      const res = await srv.call(method, path, body);
      isError(res, 400);
      expect(res.body.error).toBe('invalid JSON body: JSON nested deeper than 64 levels');
    }
    const routed = await srv.call('POST', `${B}/software_groups/search`, arrays(10_000), {}, srv.routing);
    isError(routed, 400);
    const exported = await srv.call('GET', `/console/v1/export?resource=software_groups&format=json&search=${encodeURIComponent(objects(100))}`);
    isError(exported, 400);
  });

  it('64 levels are accepted', async () => {
    const res = await srv.call('POST', `${B}/agents/create`, `{"name":"deep enough","pending_config":${objects(63)}}`);
    expect(res.status, res.text).toBe(201);
  });

  it('keys reaching the prototype are refused', async () => {
    const res = await srv.call('POST', `${B}/software_groups/create`, '{"name":"x","__proto__":{"polluted":true}}');
    isError(res, 400);
    expect(res.body.error).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('errors quoting the input', () => {
  it('are cut to a short prefix', async () => {
    const long = 'x'.repeat(200_000);
    for (const res of [
      await srv.call('POST', `${B}/software_groups/create`, { name: 'x', [long]: 1 }),
      await srv.call('GET', `${PUB}/incidents?status=eq,${long.slice(0, 10_000)}`),
      await srv.call('POST', `${B}/software_groups/search`, search({ filters: [{ field: long, filter_type: 'equal', value: 1 }] })),
    ]) {
      expect(res.status).toBe(400);
      expect(res.text.length).toBeLessThan(600);
    }
  });
});

describe('methods', () => {
  it('a known path with the wrong method is 405 with Allow', async () => {
    for (const [method, path, allow] of [
      ['GET', `${B}/software_groups/search`, 'POST'],
      ['PUT', `${B}/software_groups/create`, 'POST'],
      ['DELETE', `${B}/software_groups/_meta`, 'GET, HEAD'],
      ['POST', `${PUB}/incidents`, 'GET, HEAD'],
      ['GET', `${PUB}/incidents/update/status`, 'PUT'],
      ['PATCH', `${B}/software_groups/${incident}`, 'GET, HEAD, DELETE'],
    ] as const) {
      const res = await srv.call(method, path, method === 'GET' ? undefined : {});
      isError(res, 405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
  });

  it('an unknown path is still 404', async () => {
    isError(await srv.call('GET', `${B}/no_such_resource/search`), 404);
    isError(await srv.call('POST', '/no/such/path', {}), 404);
  });
});

describe('values the field can never hold in the public filters', () => {
  it('is a 400 naming the allowed values', async () => {
    for (const q of ['status=in,new,bogus', 'status=eq,bogus', 'status=notin,bogus', 'risk=noteq,extreme']) {
      const res = await srv.call('GET', `${PUB}/incidents?${q}`);
      isError(res, 400);
      expect(res.body.error).toMatch(/^invalid value "(bogus|extreme)" for (status|risk): expected one of /);
    }
    expect((await srv.call('GET', `${PUB}/incidents?status=in,new,closed`)).status).toBe(200);
  });
});

describe('extension_params of a filter', () => {
  it('children_all alone is accepted; parents_all defaults to false', async () => {
    const groups = (await srv.call('POST', `${B}/software_groups/search`, search({ limit: 1 }))).body.items;
    const res = await srv.call(
      'POST',
      `${B}/software/search`,
      search({ filters: [{ field: 'software_group_id', filter_type: 'related', value: [groups[0].id], extension_params: { children_all: true } }] }),
    );
    expect(res.status, res.text).toBe(200);
    const parents = await srv.call(
      'POST',
      `${B}/software/search`,
      search({ filters: [{ field: 'software_group_id', filter_type: 'related', value: [groups[0].id], extension_params: { parents_all: true } }] }),
    );
    expect(parents.status, parents.text).toBe(200);
  });
});

describe('client-supplied ids', () => {
  it('are honoured by create, mass_create and the named creates; a taken id is 409', async () => {
    const id = crypto.randomUUID();
    const one = await srv.call('POST', `${B}/software_groups/create`, { id, name: 'with its own id' });
    expect(one.status, one.text).toBe(201);
    expect(one.body.id).toBe(id);
    const again = await srv.call('POST', `${B}/software_groups/create`, { id, name: 'the same id again' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'id_already_used', error_code: 409, extra: { fields: ['id'] } });
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    const mass = await srv.call('POST', `${B}/software_groups/mass_create`, ids.map((x, i) => ({ id: x, name: `mass ${i}` })));
    expect(mass.status).toBe(201);
    expect(mass.body.items.map((x: { id: string }) => x.id)).toEqual(ids);
    const upper = crypto.randomUUID().toUpperCase();
    const up = await srv.call('POST', `${B}/findings/create`, { id: upper, title: 'upper-case id' });
    expect(up.body.id).toBe(upper.toLowerCase());
    isError(await srv.call('POST', `${B}/software_groups/create`, { id: 'not-a-uuid', name: 'x' }), 400);
  });
});

describe('body limits', () => {
  const rawRequest = (head: string, body = ''): Promise<string> =>
    new Promise((resolve) => {
      const s = net.connect(Number(new URL(srv.main).port), '127.0.0.1');
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('close', () => resolve(out));
      s.on('error', () => resolve(out));
      s.write(`${head}\r\n\r\n${body}`);
    });

  it('a body announced past the limit is refused with 413 before it is sent', async () => {
    const answer = await rawRequest(
      `POST ${B}/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\nPgrApiKey: ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: 107374182400`,
      '{',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('{"error":"request body is too large","error_code":413}');
  });

  it('an upload announced past the import limit is refused with 413; a chunked one is cut at the limit', async () => {
    const answer = await rawRequest(`POST /console/v1/import HTTP/1.1\r\nHost: 127.0.0.1\r\nPgrApiKey: ${TEST_KEY}\r\nContent-Length: 107374182400`, '{');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/the upload is larger than 2097152 bytes/);
    const chunked = await fetch(`${srv.main}/console/v1/import?kind=software_groups`, {
      method: 'POST',
      headers: { PgrApiKey: TEST_KEY },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 40; i++) c.enqueue(new TextEncoder().encode(' '.repeat(64 * 1024)));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ error: expect.stringMatching(/larger than 2097152 bytes/), error_code: 413 });
  });

  it('whitespace bodies are parsed in linear time', async () => {
    const t0 = performance.now();
    const res = await srv.call('POST', `${B}/software_groups/search`, ' '.repeat(1000 * 1024));
    expect(res.status).toBe(400); // no body: the search request is required
    // A time limit: held in `npm run test:robust` (RADAR_ROBUST=1).
    if (process.env.RADAR_ROBUST === '1') expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('bodies read at once', () => {
  it('a body that would pass the in-flight budget waits until the earlier one is answered', async () => {
    const small = await startTestServer({ limits: { bodyBytes: 1024 * 1024, bodiesInFlightBytes: 1024 * 1024 } });
    try {
      const size = 900 * 1024;
      const json = JSON.stringify(search({ limit: 1 }));
      const body = `${' '.repeat(size - json.length)}${json}`;
      // A: announces 900 KiB and sends only the first bytes, holding its share of the budget.
      const a = net.connect(Number(new URL(small.main).port), '127.0.0.1');
      let aAnswer = '';
      a.on('data', (d) => (aAnswer += d));
      a.write(`POST ${B}/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\nPgrApiKey: ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n${body.slice(0, 1000)}`);
      await new Promise((r) => setTimeout(r, 200));
      // B: the same size, sent whole; it is not read while A holds the budget.
      let bDone = 0;
      const b = small.call('POST', `${B}/software_groups/search`, body).then((res) => {
        bDone = performance.now();
        return res;
      });
      await new Promise((r) => setTimeout(r, 700));
      expect(bDone, 'B answered while A held the budget').toBe(0);
      expect((await small.call('GET', '/tenancy/instance/list')).status).toBe(200); // bodiless requests pass
      const aEnd = performance.now();
      a.write(body.slice(1000));
      const res = await b;
      expect(res.status, res.text).toBe(200);
      expect(bDone).toBeGreaterThan(aEnd);
      await new Promise((r) => (a.destroyed ? r(null) : a.on('close', r)));
      expect(aAnswer).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      await small.stop();
    }
  });
});
