// The command line: `radar-console serve` runs the server headless (scripts, tests, the
// console in a browser); `token` issues a Bearer JWT for the local server.
import { intFlag, parse, UsageError } from './cli/args';
import { instanceCommand, INSTANCE_USAGE } from './cli/instance';
import { syncCommand, SYNC_USAGE } from './cli/sync';
import { exportCommand, importCommand, snapshotCommand, TRANSFER_USAGE } from './cli/transfer';
import { isUuid } from '../src-shared/schemas/common';
import { defaultDbFile } from './config/paths';
import { loadSecrets } from './config/secrets';
import { issueToken } from './server/security';
import { startServer } from './server/start';

const USAGE = `Usage: radar-console <command> [flags]

Commands:
  serve     start the local platform server
              --db FILE            database (default: ${defaultDbFile()})
              --port N             main instance port (default 9000; 0 = a free port)
              --routing-port N     instance routing port (default 9009; 0 = a free port)
              --host ADDR          address to listen on (default 127.0.0.1)
              --api-key KEY        API key to require (default: RADAR_API_KEY, else the one kept beside the database)
              --seed demo|none     seed a demo dataset (default: demo on a new database)
              --scan-ports LIST    ports the service scan probes, comma-separated
              --log                log requests to stderr (credentials redacted)
  token     print a Bearer token (JWT) for the server of a database
              --db FILE            database (default as above)
              --user UUID          the token's user id (default: a fixed local user)
              --ttl SECONDS        lifetime (default 86400)
${INSTANCE_USAGE}${TRANSFER_USAGE}${SYNC_USAGE}  help      this text
`;


export const LOCAL_USER_ID = '00000000-0000-4000-8000-000000000001';

async function serve(args: string[]): Promise<void> {
  const { values } = parse(args, {
    db: { type: 'string' },
    port: { type: 'string' },
    'routing-port': { type: 'string' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    seed: { type: 'string' },
    'scan-ports': { type: 'string' },
    log: { type: 'boolean' },
  });
  const v = values as Record<string, string | boolean | undefined>;
  const seed = v.seed as string | undefined;
  if (seed !== undefined && seed !== 'demo' && seed !== 'none') throw new UsageError(`--seed must be demo or none, got "${seed}"`);
  const host = v.host as string | undefined;
  if (host !== undefined && host.trim() === '') throw new UsageError('--host must not be empty');
  const apiKey = (v['api-key'] as string | undefined) ?? (process.env.RADAR_API_KEY || undefined);
  if (apiKey !== undefined && apiKey.length < 8) throw new UsageError('the API key must be at least 8 characters');
  let ports: number[] | undefined;
  if (v['scan-ports'] !== undefined) {
    ports = String(v['scan-ports'])
      .split(',')
      .map((p) => intFlag('scan-ports', p.trim(), 1, 65535)!);
  }
  const db = (v.db as string | undefined) ?? defaultDbFile();
  const server = await startServer({
    db,
    host,
    port: intFlag('port', v.port as string | undefined, 0, 65535),
    routingPort: intFlag('routing-port', v['routing-port'] as string | undefined, 0, 65535),
    apiKey,
    seed: seed as 'demo' | 'none' | undefined,
    log: !!v.log,
    scan: ports ? { ports } : undefined,
  });
  const ready = { main: server.main, routing: server.routing, db: server.db, apiKey: server.apiKey };
  process.stdout.write(`radar-console ready ${JSON.stringify(ready)}\n`);
  process.stderr.write(`radar-console: the console is at ${server.main}/ (open ${server.main}/#key=<apiKey> to sign in at once)\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`radar-console: ${signal}, closing\n`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function token(args: string[]): void {
  const { values } = parse(args, { db: { type: 'string' }, user: { type: 'string' }, ttl: { type: 'string' } });
  const v = values as Record<string, string | undefined>;
  const user = v.user ?? LOCAL_USER_ID;
  if (!isUuid(user)) throw new UsageError(`--user must be a uuid, got "${user}"`);
  const ttl = intFlag('ttl', v.ttl, 1, 10 * 365 * 86400) ?? 86400;
  const secrets = loadSecrets(v.db ?? defaultDbFile());
  process.stdout.write(`${issueToken(secrets.jwtSecret, user, ttl)}\n`);
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        await serve(rest);
        return -1; // keeps running
      case 'token':
        token(rest);
        return 0;
      case 'instance':
        return await instanceCommand(rest);
      case 'import':
        return await importCommand(rest);
      case 'export':
        return await exportCommand(rest);
      case 'snapshot':
        return await snapshotCommand(rest);
      case 'sync':
        return await syncCommand(rest);
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return 0;
      case undefined:
        process.stderr.write(USAGE);
        return 2;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`radar-console: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`radar-console: ${(e as Error).message}\n`);
    return 1;
  }
}

if (typeof require !== 'undefined' && require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    if (code >= 0) process.exit(code);
  });
}
