// The bare server bench:load measures the product against: node:http and better-sqlite3, nothing
// else, answering exactly the requests the benchmark sends with the same SQL run by hand
// (limit-run.mjs: page, relations and COUNT on every request, JSON), each route's statements
// prepared once from a file the benchmark writes. It checks the API key and prints
// `bare ready <url>` when listening.
//
//   node bench/bare-server.mjs <database> <routes.json> <api key>
//
// routes.json: [{method, path, body?, spec?, linkPath?, instances?}]: a spec is a limit
// (limit.ts); linkPath the front_link path before the id; instances the instance list.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import http from 'node:http';
import { prepareLimit } from './limit-run.mjs';

const [file, routesFile, key] = process.argv.slice(2);
if (!file || !routesFile || !key) throw new Error('usage: bare-server.mjs <database> <routes.json> <api key>');
const db = new Database(file, { readonly: true });
const routes = JSON.parse(fs.readFileSync(routesFile, 'utf8'));
const setting = db.prepare('SELECT value FROM settings WHERE key = ?').pluck();
const instances = db.prepare('SELECT id, name, kind, url, sort_order FROM console_instances ORDER BY sort_order, name');
const handlers = new Map();

function instanceList(base) {
  const out = [{ id: setting.get('instance.id'), name: setting.get('instance.name') ?? 'Main', url: base, sort_order: 0 }];
  for (const row of instances.all()) out.push({ id: row.id, name: row.name, url: row.kind === 'remote' ? row.url : base, sort_order: row.sort_order });
  return JSON.stringify(out);
}

const send = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.headers.pgrapikey !== key) return send(res, 401, '{"error":"no auth header","error_code":401}');
    const handler = handlers.get(`${req.method} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`);
    if (!handler) return send(res, 404, '{"error":"not found","error_code":404}');
    send(res, 200, handler());
  });
});

server.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  for (const r of routes) {
    let run;
    if (r.instances) run = () => instanceList(base);
    else {
      const q = prepareLimit(db, r.spec);
      const link = r.linkPath === undefined ? undefined : { prefix: `${base}${r.linkPath}`, suffix: '' };
      run = () => q.run(link);
    }
    handlers.set(`${r.method} ${r.path} ${r.body ?? ''}`, run);
  }
  process.stdout.write(`bare ready ${base}\n`);
});

process.on('SIGTERM', () => {
  server.close();
  db.close();
  process.exit(0);
});
