// `radar-console api [METHOD] PATH`: one call to the local server with the local key, its answer
// on stdout — the way `gh api` calls GitHub. The server is the one running for --db (found from
// `<db>.server.json`, written by `serve`), or --url / --port. With --instance the call goes
// through the routing endpoint with PgrSelectedInstance and prints the routing envelope; with
// --all-instances it fans out to every instance.
import fs from 'node:fs';
import { Command } from '@commander-js/extra-typings';
import { isUuid } from '../../src-shared/ids';
import { secretsFileFor } from '../config/secrets';
import { ROUTE_PREFIX } from '../server/addresses';
import { CliError, UsageError } from './errors';
import { defaultDbFile } from '../config/paths';
import { DB_HELP, existingDb, intIn } from './options';
import { readReady } from './ready';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

interface Target {
  base: string;
  key: string;
}

function storedKey(dbFile: string): string | undefined {
  try {
    const key = (JSON.parse(fs.readFileSync(secretsFileFor(dbFile), 'utf8')) as { apiKey?: unknown }).apiKey;
    return typeof key === 'string' && key ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The server to call and the key to call it with. */
function targetOf(opts: { url?: string; port?: number; db?: string; apiKey?: string }): Target {
  if (opts.url !== undefined && opts.port !== undefined) throw new UsageError('give either --url or --port, not both');
  const given = opts.apiKey ?? (process.env.RADAR_API_KEY || undefined);
  if (opts.url !== undefined || opts.port !== undefined) {
    let base: string;
    if (opts.url !== undefined) {
      if (!/^https?:\/\/[^/]+/i.test(opts.url)) throw new UsageError('--url must be an http:// or https:// address, e.g. http://127.0.0.1:9000');
      base = opts.url.replace(/\/+$/, '');
    } else base = `http://127.0.0.1:${opts.port}`;
    const key = given ?? (opts.db !== undefined ? storedKey(existingDb(opts.db)) : undefined);
    if (!key) throw new CliError('no API key: give --api-key, set RADAR_API_KEY, or --db of the database the server serves');
    return { base, key };
  }
  const db = existingDb(opts.db);
  const ready = readReady(db);
  if (!ready) throw new CliError(`no server is running for ${db} (start one with \`radar-console serve --db ${db}\`, or give --url or --port)`);
  if (given) return { base: ready.main, key: given };
  if (ready.key === 'given') {
    throw new CliError(`the server of ${db} runs with a key of its own (--api-key or RADAR_API_KEY at its start); give the same with --api-key or RADAR_API_KEY`);
  }
  const key = storedKey(db);
  if (!key) throw new CliError(`no API key kept beside ${db}; give --api-key or set RADAR_API_KEY`);
  return { base: ready.main, key };
}

/** The --data body: JSON given inline, in a file (@file) or on standard input (@-). */
function bodyOf(data: string): string {
  let text = data;
  if (data === '@-') text = fs.readFileSync(0, 'utf8');
  else if (data.startsWith('@')) {
    try {
      text = fs.readFileSync(data.slice(1), 'utf8');
    } catch (e) {
      throw new UsageError(`--data ${data}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
  }
  try {
    JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--data is not JSON: ${(e as Error).message}`);
  }
  return text;
}

async function call(target: Target, method: Method, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
  try {
    return await fetch(`${target.base}${path}`, {
      method,
      headers: { PgrApiKey: target.key, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body,
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach the server at ${target.base}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
}

/** An instance's id: a uuid as given, a name looked up in the server's instance list. */
async function instanceId(target: Target, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const res = await call(target, 'GET', '/tenancy/instance/list', {});
  if (!res.ok) throw new CliError(`the instance list answered HTTP ${res.status}: ${await res.text()}`);
  const list = (await res.json()) as { id: string; name: string }[];
  const found = list.find((i) => i.name === ref);
  if (!found) throw new CliError(`no instance "${ref}"; the server has ${list.map((i) => `"${i.name}"`).join(', ')}`);
  return found.id;
}

export function apiCommand() {
  return new Command('api')
    .description('call the local server with the local key and print its answer (like `gh api`)')
    .argument('<method-or-path>', 'GET, POST, PUT, PATCH or DELETE, then the path; or just the path')
    .argument('[path]', 'the path with its query, e.g. /data/public/api/v1/incidents?status=in,new')
    .option('--data <json|@file|@->', 'the JSON body, inline, from a file or from standard input (makes the default method POST)')
    .option('--instance <id|name>', 'route the call to one instance (PgrSelectedInstance); prints the routing envelope')
    .option('--all-instances', 'fan the call out to every instance; prints one envelope element per instance')
    .option('--db <file>', `${DB_HELP}; its running server is called with the key kept beside it`)
    .option('--url <url>', 'the main address of a server instead (e.g. http://127.0.0.1:9000)')
    .option('--port <n>', 'the main port of a server on 127.0.0.1 instead', intIn(1, 65535))
    .option('--api-key <key>', 'the key to send (default: RADAR_API_KEY, else the one kept beside the database)')
    .addHelpText(
      'after',
      `
The answer is printed as the server sent it (indented when stdout is a terminal). A non-2xx
answer is printed too, and the command exits 1 after saying its status on stderr.

Which server: the one \`radar-console serve\` runs for --db (without --db, for the default
database:
  ${defaultDbFile()})
found from the file \`serve\` writes beside the database and called with the key kept there;
or --url / --port with --api-key (or RADAR_API_KEY).

Examples (each calls the server of the default database; add --db FILE for another's):
  radar-console api '/data/public/api/v1/incidents?status=in,new&per_page=5'
  radar-console api POST /cruddy/v2/findings/group --data '{"group_field": "type"}'
  radar-console api POST /cruddy/v2/rules/search --data '{"include_fields": ["id", "name"], "exclude_fields": [], "filters": [], "ordering": [], "virtual_search": {"value": "", "strict": false}, "extension_params": {"chidlrens_all": false, "parents_all": false}, "relations": [], "limit": 5, "offset": 0}'
  echo '{"group_field": "status"}' | radar-console api POST /cruddy/v2/service_asset_findings/group --data @-
  radar-console api '/data/public/api/v1/findings?per_page=1' --all-instances`,
    )
    .action(async (first, second, opts) => {
      let method: Method;
      let path: string;
      if (second !== undefined) {
        const m = first.toUpperCase();
        if (!(METHODS as readonly string[]).includes(m)) throw new UsageError(`unknown method "${first}" (${METHODS.join(', ')})`);
        method = m as Method;
        path = second;
      } else {
        path = first;
        method = opts.data !== undefined ? 'POST' : 'GET';
      }
      if (!path.startsWith('/')) throw new UsageError(`the path must start with / (got "${path}")`);
      if (opts.instance !== undefined && opts.allInstances) throw new UsageError('give either --instance or --all-instances, not both');
      const body = opts.data !== undefined ? bodyOf(opts.data) : undefined;
      const target = targetOf(opts);
      const headers: Record<string, string> = {};
      if (opts.instance !== undefined) headers.PgrSelectedInstance = await instanceId(target, opts.instance);
      const routed = opts.instance !== undefined || !!opts.allInstances;
      const res = await call(target, method, routed ? `${ROUTE_PREFIX}${path}` : path, headers, body);
      const text = await res.text();
      let out = text;
      if (process.stdout.isTTY && (res.headers.get('content-type') ?? '').includes('json')) {
        try {
          out = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // printed as it came
        }
      }
      if (out) await new Promise<void>((resolve) => process.stdout.write(out.endsWith('\n') ? out : `${out}\n`, () => resolve()));
      if (!res.ok) throw new CliError(`HTTP ${res.status} ${res.statusText} (${method} ${path})`);
    });
}
