// `radar-console instance list|add|remove|test`: the instances the routing port serves, kept in
// the main database (a running server sees changes at once).
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../src-shared/errors';
import { instanceInputSchema, type InstanceInput } from '../../src-shared/schemas/instances';
import { defaultDbFile } from '../config/paths';
import { InstanceCatalog, type InstanceRow } from '../instances/catalog';
import { RemoteClient } from '../instances/remote';
import { KeyVault, vaultFileFor } from '../instances/vault';
import { openDatabase } from '../store/db';
import { Store } from '../store/store';
import { intFlag, parse, UsageError } from './args';

export const INSTANCE_USAGE = `  instance  manage the instances behind the routing port (in the database of --db)
              list [--json]
              add --name NAME --local FILE
              add --name NAME --url URL (--api-key KEY | --api-key-file FILE)
                  [--remote-instance-id UUID] [--ca-file PEM] [--pin SHA256]
                  [--sort-order N] [--timeout-ms N]
              remove ID|NAME
              test ID|NAME
`;

function open(dbFile: string) {
  const { db } = openDatabase(dbFile);
  const store = new Store(db);
  const catalog = new InstanceCatalog(store, new KeyVault(vaultFileFor(dbFile)), path.dirname(path.resolve(dbFile)));
  return { db, catalog };
}

function find(catalog: InstanceCatalog, ref: string): InstanceRow {
  const row = catalog.get(ref) ?? catalog.list().find((r) => r.name === ref);
  if (!row) throw new UsageError(`no instance "${ref}" (see \`radar-console instance list\`)`);
  return row;
}

function describe(r: InstanceRow): string {
  return r.kind === 'local' ? `local   ${r.db_file}` : `remote  ${r.url}${r.remote_instance_id ? ` (instance ${r.remote_instance_id})` : ''}`;
}

export async function instanceCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parse(
    rest,
    {
      db: { type: 'string' },
      json: { type: 'boolean' },
      name: { type: 'string' },
      local: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'api-key-file': { type: 'string' },
      'remote-instance-id': { type: 'string' },
      'ca-file': { type: 'string' },
      pin: { type: 'string' },
      'sort-order': { type: 'string' },
      'timeout-ms': { type: 'string' },
    },
    true,
  );
  const v = values as Record<string, string | boolean | undefined>;
  const dbFile = (v.db as string | undefined) ?? defaultDbFile();
  switch (sub) {
    case 'list': {
      const { db, catalog } = open(dbFile);
      try {
        const main = catalog.main();
        const rows = catalog.list();
        if (v.json) {
          process.stdout.write(`${JSON.stringify([{ id: main.id, name: main.name, kind: 'main', sort_order: 0 }, ...rows.map((r) => ({ ...r, has_api_key: r.kind === 'remote' && catalog.vault.has(r.id) }))], null, 2)}\n`);
        } else {
          process.stdout.write(`${main.id}  0  ${main.name}  main    ${dbFile}\n`);
          for (const r of rows) process.stdout.write(`${r.id}  ${r.sort_order}  ${r.name}  ${describe(r)}\n`);
        }
      } finally {
        db.close();
      }
      return 0;
    }
    case 'add': {
      if (!v.name) throw new UsageError('instance add needs --name');
      if (!!v.local === !!v.url) throw new UsageError('instance add needs either --local FILE or --url URL');
      let input: unknown;
      const common = {
        name: v.name,
        ...(v['sort-order'] !== undefined ? { sort_order: intFlag('sort-order', v['sort-order'] as string, 0, 1_000_000) } : {}),
        ...(v['timeout-ms'] !== undefined ? { timeout_ms: intFlag('timeout-ms', v['timeout-ms'] as string, 100, 300_000) } : {}),
      };
      if (v.local) {
        input = { kind: 'local', ...common, db_file: path.resolve(v.local as string) };
      } else {
        let key = v['api-key'] as string | undefined;
        if (v['api-key-file']) key = fs.readFileSync(v['api-key-file'] as string, 'utf8').trim();
        if (!key) throw new UsageError('a remote instance needs --api-key or --api-key-file');
        input = {
          kind: 'remote',
          ...common,
          url: v.url,
          api_key: key,
          ...(v['remote-instance-id'] ? { remote_instance_id: v['remote-instance-id'] } : {}),
          ...(v['ca-file'] ? { ca_file: path.resolve(v['ca-file'] as string) } : {}),
          ...(v.pin ? { pinned_sha256: v.pin } : {}),
        };
      }
      const parsed = instanceInputSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new UsageError(`${issue.path.join('.') || 'instance'}: ${issue.message}`);
      }
      const data: InstanceInput = parsed.data;
      if (data.kind === 'remote' && data.ca_file && !fs.existsSync(data.ca_file)) throw new UsageError(`--ca-file ${data.ca_file} does not exist`);
      const { db, catalog } = open(dbFile);
      try {
        const row = catalog.add(data);
        if (row.kind === 'local') openDatabase(row.db_file!).db.close(); // created and migrated now
        process.stdout.write(`${row.id}\n`);
      } catch (e) {
        if (e instanceof ApiError) throw new UsageError(e.message === 'name_already_used' ? `the name "${data.name}" is taken` : e.message);
        throw e;
      } finally {
        db.close();
      }
      return 0;
    }
    case 'remove': {
      const ref = positionals[0];
      if (!ref) throw new UsageError('instance remove needs an id or a name');
      const { db, catalog } = open(dbFile);
      try {
        const row = find(catalog, ref);
        catalog.remove(row.id);
        process.stdout.write(`removed ${row.name} (${row.id})${row.kind === 'local' ? `; its database ${row.db_file} is kept` : ''}\n`);
      } finally {
        db.close();
      }
      return 0;
    }
    case 'test': {
      const ref = positionals[0];
      if (!ref) throw new UsageError('instance test needs an id or a name');
      const { db, catalog } = open(dbFile);
      try {
        const row = find(catalog, ref);
        if (row.kind === 'local') {
          const local = openDatabase(row.db_file!, { create: false });
          const n = new Store(local.db).get1<{ n: number }>('SELECT COUNT(*) AS n FROM service_asset_findings')!.n;
          local.db.close();
          process.stdout.write(`ok  ${row.name}: ${n} incidents in ${row.db_file}\n`);
          return 0;
        }
        const client = new RemoteClient({
          url: row.url!,
          apiKey: catalog.vault.get(row.id) ?? '',
          remoteInstanceId: row.remote_instance_id,
          caFile: row.ca_file,
          pinnedSha256: row.pinned_sha256,
          timeoutMs: row.timeout_ms ?? 10_000,
          maxBytes: 16 * 1024 * 1024,
        });
        const started = performance.now();
        try {
          const res = await client.call('GET', '/data/public/api/v1/findings?per_page=1', {});
          const ms = (performance.now() - started).toFixed(0);
          const ok = res.status >= 200 && res.status < 300;
          process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${row.name}: HTTP ${res.status} in ${ms} ms\n`);
          return ok ? 0 : 1;
        } catch (e) {
          process.stdout.write(`FAIL ${row.name}: ${(e as Error).message}\n`);
          return 1;
        } finally {
          await client.close();
        }
      } finally {
        db.close();
      }
    }
    default:
      throw new UsageError(sub ? `unknown instance command "${sub}"` : 'instance needs list, add, remove or test');
  }
}
