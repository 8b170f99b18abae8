// `radar-console instance list|add|remove|test`: the instances the routing port serves, kept in
// the main database (a running server sees changes at once).
import fs from 'node:fs';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { ApiError } from '../../src-shared/errors';
import { K } from '../../src-shared/resources/kinds';
import type { InstanceInput } from '../../src-shared/schemas/instances';
import type { InstanceRow } from '../instances/catalog';
import { findInstance, withCatalog } from './catalog';
import { CliError, UsageError } from './errors';
import { DB_HELP, intIn, readKeyFile, uuidArg } from './options';

const MAIN_DB_HELP = `the main database, whose instances these are ${DB_HELP.replace(/^database file /, '')}`;

function describe(r: InstanceRow): string {
  return r.kind === 'local' ? `local   ${r.db_file}` : `remote  ${r.url}${r.remote_instance_id ? ` (instance ${r.remote_instance_id})` : ''}`;
}

function listCommand() {
  return new Command('list')
    .description('list the instances: the main one first, then the catalog in sort order')
    .option('--db <file>', MAIN_DB_HELP)
    .option('--json', 'print JSON (id, name, kind, sort_order, db_file, url, ...; remote keys are never printed)')
    .action((opts) =>
      withCatalog(opts.db, (catalog, file) => {
        const main = catalog.main();
        const rows = catalog.list();
        if (opts.json) {
          const list = [{ id: main.id, name: main.name, kind: 'main', sort_order: 0, db_file: file }, ...rows.map((r) => ({ ...r, has_api_key: r.kind === 'remote' && catalog.vault.has(r.id) }))];
          process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        process.stdout.write(`${main.id}  0  ${main.name}  main    ${file}\n`);
        for (const r of rows) process.stdout.write(`${r.id}  ${r.sort_order}  ${r.name}  ${describe(r)}\n`);
      }),
    );
}

function addCommand() {
  return new Command('add')
    .description('add a local database or a remote platform as an instance; prints its id')
    .requiredOption('--name <name>', 'its name (unique)')
    .option('--local <file>', 'a local SQLite database (an import or a snapshot made by this tool)')
    .option('--create', 'with --local: create the database when it does not exist yet')
    .option('--url <url>', "a remote platform's main port (or its routing port with --remote-instance-id)")
    .option('--api-key <key>', "the remote's API key (kept beside the main database, never printed)")
    .option('--api-key-file <file>', "a file holding the remote's API key")
    .option('--remote-instance-id <uuid>', 'route to this instance of the remote (PgrSelectedInstance)', uuidArg)
    .option('--ca-file <pem>', 'a CA certificate to trust for the remote')
    .option('--pin <sha256>', "the remote certificate's SHA-256 fingerprint")
    .option('--sort-order <n>', 'place in the list', intIn(0, 1_000_000))
    .option('--timeout-ms <n>', 'time-out of one call (default 10000)', intIn(100, 300_000))
    .option('--db <file>', MAIN_DB_HELP)
    .action(async (opts) => {
      if (!!opts.local === !!opts.url) throw new UsageError('instance add needs either --local FILE or --url URL');
      const common = {
        name: opts.name,
        ...(opts.sortOrder !== undefined ? { sort_order: opts.sortOrder } : {}),
        ...(opts.timeoutMs !== undefined ? { timeout_ms: opts.timeoutMs } : {}),
      };
      let input: unknown;
      if (opts.local) {
        const dbFile = path.resolve(opts.local);
        if (!fs.existsSync(dbFile) && !opts.create) {
          throw new CliError(`the database ${dbFile} does not exist (check --local; add --create to start an empty instance there)`);
        }
        input = { kind: 'local', ...common, db_file: dbFile };
      } else {
        if (opts.apiKey && opts.apiKeyFile) throw new UsageError('give either --api-key or --api-key-file, not both');
        const key = opts.apiKeyFile ? readKeyFile(opts.apiKeyFile, '--api-key-file') : opts.apiKey;
        if (!key) throw new UsageError('a remote instance needs --api-key or --api-key-file');
        if (opts.caFile && !fs.existsSync(opts.caFile)) throw new UsageError(`--ca-file ${opts.caFile}: no such file`);
        input = {
          kind: 'remote',
          ...common,
          url: opts.url,
          api_key: key,
          ...(opts.remoteInstanceId ? { remote_instance_id: opts.remoteInstanceId } : {}),
          ...(opts.caFile ? { ca_file: path.resolve(opts.caFile) } : {}),
          ...(opts.pin ? { pinned_sha256: opts.pin } : {}),
        };
      }
      const { instanceInputSchema } = await import('../../src-shared/schemas/instances');
      const parsed = instanceInputSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new UsageError(`${issue.path.join('.') || 'instance'}: ${issue.message}`);
      }
      const data: InstanceInput = parsed.data;
      const { openDatabase } = await import('../store/db');
      await withCatalog(opts.db, (catalog) => {
        let row: InstanceRow;
        try {
          row = catalog.add(data);
        } catch (e) {
          if (e instanceof ApiError) throw new CliError(e.message === 'name_already_used' ? `the name "${data.name}" is taken (see \`radar-console instance list\`)` : e.message);
          throw e;
        }
        if (row.kind === 'local') openDatabase(row.db_file!).db.close(); // created (with --create) and migrated now
        process.stdout.write(`${row.id}\n`);
      });
    });
}

function removeCommand() {
  return new Command('remove')
    .description('remove an instance from the catalog (a local database file is kept)')
    .argument('<instance>', 'its id or name')
    .option('--db <file>', MAIN_DB_HELP)
    .action((ref, opts) =>
      withCatalog(opts.db, (catalog, file) => {
        const found = findInstance(catalog, file, ref);
        if (found.main) {
          throw new CliError(
            `"${found.name}" is the main instance: the database ${file} itself, which holds the catalog of the other instances, so it cannot be removed from it. Stop serving it, or serve another database with --db.`,
          );
        }
        catalog.remove(found.row.id);
        process.stdout.write(`removed ${found.row.name} (${found.row.id})${found.row.kind === 'local' ? `; its database ${found.row.db_file} is kept` : ''}\n`);
      }),
    );
}

function testCommand() {
  return new Command('test')
    .description('check that an instance answers (exit 1 when it does not)')
    .argument('<instance>', 'its id or name')
    .option('--db <file>', MAIN_DB_HELP)
    .action(async (ref, opts) => {
      const found = await withCatalog(opts.db, (catalog, file) => {
        const f = findInstance(catalog, file, ref);
        return { found: f, key: !f.main && f.row.kind === 'remote' ? catalog.vault.get(f.row.id) : undefined };
      });
      const { found: f } = found;
      if (f.main || f.row.kind === 'local') {
        const name = f.main ? f.name : f.row.name;
        const file = f.main ? f.file : f.row.db_file!;
        if (!fs.existsSync(file)) {
          process.stdout.write(`FAIL ${name}: ${file} does not exist\n`);
          throw new CliError('', 1);
        }
        const [{ openDatabase }, { Store }, { Runner }, { getResource }] = await Promise.all([
          import('../store/db'),
          import('../store/store'),
          import('../store/query/runner'),
          import('../../src-shared/resources/index'),
        ]);
        const local = openDatabase(file, { create: false });
        try {
          const n = new Runner(new Store(local.db)).countAll(getResource(K.incident));
          process.stdout.write(`ok   ${name}: ${n} incidents in ${file}\n`);
        } finally {
          local.db.close();
        }
        return;
      }
      const row = f.row;
      // The public lists (and the resource registry they are read from) load here, not with the
      // command line: `serve` starts without them.
      const [{ RemoteClient }, { HEALTH_PROBE_PATH }] = await Promise.all([import('../instances/remote'), import('../../src-shared/public/entities')]);
      const client = new RemoteClient({
        url: row.url!,
        apiKey: found.key ?? '',
        remoteInstanceId: row.remote_instance_id,
        caFile: row.ca_file,
        pinnedSha256: row.pinned_sha256,
        timeoutMs: row.timeout_ms ?? 10_000,
        maxBytes: 16 * 1024 * 1024,
      });
      const started = performance.now();
      try {
        const res = await client.call('GET', HEALTH_PROBE_PATH, {});
        const ms = (performance.now() - started).toFixed(0);
        const ok = res.status >= 200 && res.status < 300;
        process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${row.name}: HTTP ${res.status} in ${ms} ms\n`);
        if (!ok) throw new CliError('', 1);
      } catch (e) {
        if (e instanceof CliError) throw e;
        process.stdout.write(`FAIL ${row.name}: ${(e as Error).message}\n`);
        throw new CliError('', 1);
      } finally {
        await client.close();
      }
    });
}

export function instanceCommand() {
  return new Command('instance')
    .description('manage the instances behind the routing port (kept in the main database)')
    .addCommand(listCommand())
    .addCommand(addCommand())
    .addCommand(removeCommand())
    .addCommand(testCommand());
}
