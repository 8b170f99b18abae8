// The instance catalog of a main database, for the commands that name instances (`instance`,
// `import --instance`, `export --instance`, `snapshot --instance`, `api --instance`).
// The store and the catalog load with the first command that needs them, not with the command line.
import path from 'node:path';
import type { InstanceCatalog, InstanceRow } from '../instances/catalog';
import { CliError } from './errors';
import { existingDb } from './options';

/** Runs `fn` with the catalog of an existing main database, closing it after. */
export async function withCatalog<T>(db: string | undefined, fn: (catalog: InstanceCatalog, file: string) => T): Promise<T> {
  const file = existingDb(db);
  const [{ InstanceCatalog }, { KeyVault, vaultFileFor }, { openDatabase }, { Store }] = await Promise.all([
    import('../instances/catalog'),
    import('../instances/vault'),
    import('../store/db'),
    import('../store/store'),
  ]);
  const opened = openDatabase(file, { create: false });
  try {
    return fn(new InstanceCatalog(new Store(opened.db), new KeyVault(vaultFileFor(file)), path.dirname(file)), file);
  } finally {
    opened.db.close();
  }
}

export type FoundInstance = { main: true; id: string; name: string; file: string } | { main: false; row: InstanceRow };

/** An instance by id or name: the main one (the database itself) or a row of the catalog. */
export function findInstance(catalog: InstanceCatalog, file: string, ref: string): FoundInstance {
  const main = catalog.main();
  if (ref.toLowerCase() === main.id || ref === main.name) return { main: true, id: main.id, name: main.name, file };
  const row = catalog.get(ref) ?? catalog.list().find((r) => r.name === ref);
  if (!row) throw new CliError(`no instance "${ref}" in ${file} (see \`radar-console instance list --db ${file}\`)`);
  return { main: false, row };
}
