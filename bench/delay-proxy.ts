// A separate process holding HTTP proxies that add a fixed network delay, for benchmarks of
// remote instances: `node --import tsx bench/delay-proxy.ts <target> <delayMs> [<target> <delayMs> ...]`
// prints one line `proxies {"urls":[...]}` when listening. Each request and each answer is held
// for the delay (a round trip costs twice the delay), bodies are passed through unchanged.
import http from 'node:http';
import { request } from 'undici';

const pairs: [string, number][] = [];
const args = process.argv.slice(2);
for (let i = 0; i + 1 < args.length; i += 2) pairs.push([args[i]!, Number(args[i + 1])]);

const wait = (ms: number) => new Promise((res) => setTimeout(res, ms));

function proxy(target: string, delay: number): Promise<string> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    await wait(delay);
    try {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const up = await request(`${target}${req.url}`, { method: req.method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const body = Buffer.from(await up.body.arrayBuffer());
      await wait(delay);
      const out: Record<string, string> = {};
      for (const k of ['content-type', 'x-radar-platform-version']) if (up.headers[k]) out[k] = String(up.headers[k]);
      res.writeHead(up.statusCode, out);
      res.end(body);
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

Promise.all(pairs.map(([t, d]) => proxy(t, d))).then(
  (urls) => process.stdout.write(`proxies ${JSON.stringify({ urls })}\n`),
  (e: unknown) => {
    process.stderr.write(`delay proxies: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
