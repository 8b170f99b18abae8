// `radar-console serve`: the local platform server, headless (scripts, tests, the console in a
// browser). Prints one ready line on stdout once both ports listen; logs (--log) go to stderr.
import { Command, Option } from '@commander-js/extra-typings';
import { consoleAddress } from '../server/addresses';
import { UsageError } from './errors';
import { DB_HELP, dbFileOf, intIn } from './options';
import { removeReady, writeReady } from './ready';

const port = intIn(0, 65535);
const mib = intIn(1, 1024 * 1024);
const MiB = 1024 * 1024;
const scanPorts = (value: string): number[] => value.split(',').map((p) => intIn(1, 65535)(p.trim()));

export function serveCommand() {
  return new Command('serve')
    .description('start the local platform server (the main port and the instance routing port)')
    .option('--db <file>', `${DB_HELP}; created, migrated and seeded when new`)
    .option('--port <n>', 'main instance port; 0 picks a free one (default: 9000)', port)
    .option('--routing-port <n>', 'instance routing port; 0 picks a free one (default: 9009)', port)
    .option('--host <addr>', 'address to listen on (default: 127.0.0.1)')
    .option('--api-key <key>', 'API key to require (default: RADAR_API_KEY, else the one kept beside the database)')
    .addOption(new Option('--seed <mode>', 'seed the demo dataset: demo (default on a new database) or none').choices(['demo', 'none'] as const))
    .option('--scan-ports <list>', 'ports the service scan probes, comma-separated', scanPorts)
    .option('--log', 'log requests to stderr (credentials redacted)')
    .option('--readers <n>', 'reader threads for searches, lists and stats; 0 reads on the server thread (default: 2)', intIn(0, 16))
    .option('--max-body-mb <n>', 'largest JSON request body, in MiB; larger is refused with 413 (default: 32)', mib)
    .option('--max-import-mb <n>', 'largest upload to /console/v1/import, in MiB; larger is refused with 413 (default: 8192)', mib)
    .addHelpText(
      'after',
      `
When ready it prints one line on stdout:
  radar-console ready {"main":"http://127.0.0.1:9000","routing":"http://127.0.0.1:9009","db":"...","apiKey":"..."}
and on stderr the console's address with the key, on a line of its own:
  http://127.0.0.1:9000/#key=...
and keeps running until SIGINT or SIGTERM.`,
    )
    .action(async (opts) => {
      if (opts.host !== undefined && opts.host.trim() === '') throw new UsageError('--host must not be empty');
      const given = opts.apiKey ?? (process.env.RADAR_API_KEY || undefined);
      if (given !== undefined && given.length < 8) throw new UsageError('the API key must be at least 8 characters');
      const db = opts.db === ':memory:' ? ':memory:' : dbFileOf(opts.db);
      // The ready line goes out as soon as both ports listen; requests sent from then on wait for
      // the apps, which are built right after (server/gate.ts). A signal that comes from then on
      // closes the server as soon as it is up.
      let signal: Promise<NodeJS.Signals> | undefined;
      let announced = false;
      const announce = (ready: { main: string; routing: string; db: string; apiKey: string }) => {
        signal = new Promise<NodeJS.Signals>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        announced = true;
        if (db !== ':memory:') {
          writeReady(db, { main: ready.main, routing: ready.routing, pid: process.pid, started_at: new Date().toISOString(), key: given === undefined ? 'stored' : 'given' });
        }
        process.stdout.write(`radar-console ready ${JSON.stringify(ready)}\n`);
        // stdout carries the ready line alone; the console's address, signed in with this
        // server's key, goes to stderr on a line of its own (to open or copy as it is).
        process.stderr.write(`radar-console: open the console, signed in with this server's key:\n${consoleAddress(ready.main, ready.apiKey)}\n`);
      };
      const { startServer } = await import('../server/start');
      const starting = startServer({
        db,
        host: opts.host,
        port: opts.port,
        routingPort: opts.routingPort,
        apiKey: given,
        seed: opts.seed,
        log: !!opts.log,
        scan: opts.scanPorts ? { ports: opts.scanPorts } : undefined,
        readers: opts.readers,
        warmReaders: true,
        onListening: announce,
        limits: {
          bodyBytes: opts.maxBodyMb === undefined ? undefined : opts.maxBodyMb * MiB,
          bodiesInFlightBytes: opts.maxBodyMb === undefined ? undefined : opts.maxBodyMb * MiB,
          importBytes: opts.maxImportMb === undefined ? undefined : opts.maxImportMb * MiB,
        },
      });
      // Ready was announced before the apps were built: if building them fails, the ready file goes.
      const server = await starting.catch((e: unknown) => {
        if (announced && db !== ':memory:') removeReady(db);
        throw e;
      });
      process.stderr.write(`radar-console: ${await signal!}, closing\n`);
      if (db !== ':memory:') removeReady(db);
      await server.close();
    });
}
