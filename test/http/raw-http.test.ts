// Malformed HTTP on a raw socket, to both ports: whatever layer refuses it (Node's parser,
// Fastify's router, the body parser), the answer is a status line and an {error, error_code}
// body whose code is the status, and the server goes on answering.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are and reads the first answer (or what came before the socket closed). */
function raw(base: string, data: string | Buffer, endAfterMs = 300): Promise<RawAnswer | null> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const sep = text.indexOf('\r\n\r\n');
      if (!text.startsWith('HTTP/1.1 ') || sep < 0) return resolve(null);
      const [statusLine, ...lines] = text.slice(0, sep).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      let body = text.slice(sep + 4);
      if (headers['content-length'] !== undefined) body = Buffer.from(body).subarray(0, Number(headers['content-length'])).toString('utf8');
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body });
    };
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.write(data);
    setTimeout(() => socket.end(), endAfterMs);
  });
}

const KEY = `PgrApiKey: ${TEST_KEY}\r\n`;

/** name, bytes, status, and whether the routing port passes it on to every instance (`routed`). */
const CASES: [string, string | Buffer, number, ('routed' | '')?][] = [
  ['a garbage request line', 'GARBAGE\r\n\r\n', 400],
  ['a request line with spaces in the path', 'GET /a b c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
  ['a NUL byte in a header', `GET /tenancy/instance/list HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\0b\r\n\r\n`, 400],
  ['a header without a colon', `GET /tenancy/instance/list HTTP/1.1\r\nHost: 127.0.0.1\r\nbroken header\r\n\r\n`, 400],
  ['Content-Length with Transfer-Encoding', `POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400],
  ['two different Content-Lengths', `POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400],
  ['a Content-Length that is not a number', `POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Length: abc\r\n\r\n{}`, 400],
  ['a bad chunk size', `POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400],
  ['headers over 16 KiB', `GET /tenancy/instance/list HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ['a URL over 16 KiB', `GET /cruddy/v2/${'a'.repeat(20_000)}/search HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 431],
  ['bad %-encoding in the path', `GET /cruddy/v2/software_groups/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}\r\n`, 400],
  ['an over-long path parameter', `GET /cruddy/v2/software_groups/${'a'.repeat(1000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}\r\n`, 414, 'routed'],
  ['an unsupported HTTP version', `GET /tenancy/instance/list HTTP/3.0\r\nHost: 127.0.0.1\r\n\r\n`, 400],
  ['a body that is not JSON', `POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":`, 400, 'routed'],
  ['a body of another media type', `POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Type: application/xml\r\nContent-Length: 4\r\n\r\n<a/>`, 415, 'routed'],
  ['a body in invalid UTF-8', Buffer.concat([Buffer.from(`POST /cruddy/v2/software_groups/search HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Type: application/json\r\nContent-Length: 6\r\n\r\n`), Buffer.from([0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22])]), 400, 'routed'],
];

describe('malformed HTTP', () => {
  for (const port of ['main', 'routing'] as const) {
    for (const [name, data, status, routed] of CASES) {
      const fanOut = port === 'routing' && routed === 'routed';
      it(`${port} port: ${name} is ${status} in the error shape${fanOut ? ' (in each instance\'s element)' : ''}`, async () => {
        const answer = await raw(srv[port], data);
        expect(answer, 'an HTTP answer').not.toBeNull();
        expect(answer!.headers['content-type']).toMatch(/^application\/json/);
        const parsed = JSON.parse(answer!.body) as unknown;
        // The routing port asks every instance and answers 200 with each one's refusal.
        const bodies = fanOut ? (parsed as { status_code: number; data: unknown }[]).map((e) => (expect(e.status_code).toBe(status), e.data)) : [parsed];
        expect(answer!.status).toBe(fanOut ? 200 : status);
        for (const body of bodies) {
          expect(body).toEqual({ error: expect.any(String), error_code: status });
          expect(String((body as { error: string }).error)).not.toMatch(/\n\s+at |FST_|HPE_|SQLITE/);
        }
      });
    }
  }

  it('a body cut short (the client goes away) leaves the server answering', async () => {
    await raw(srv.main, `POST /cruddy/v2/software_groups/create HTTP/1.1\r\nHost: 127.0.0.1\r\n${KEY}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`, 50);
    const res = await srv.call('GET', '/tenancy/instance/list');
    expect(res.status).toBe(200);
  });

  it('both ports still answer afterwards', async () => {
    expect((await srv.call('GET', '/tenancy/instance/list')).status).toBe(200);
    expect((await srv.call('GET', '/tenancy/instance/list', undefined, {}, srv.routing)).status).toBe(200);
  });
});
