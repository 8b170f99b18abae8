// The local database an import or export works on: --db itself, or --instance of the main --db.
import fs from 'node:fs';
import { findInstance, withCatalog } from './catalog';
import { CliError } from './errors';
import { dbFileOf, existingDb } from './options';

export async function localTarget(opts: { db?: string; instance?: string }, { create }: { create: boolean }): Promise<string> {
  if (opts.instance === undefined) return create ? dbFileOf(opts.db) : existingDb(opts.db);
  const ref = opts.instance;
  return withCatalog(opts.db, (catalog, file) => {
    const found = findInstance(catalog, file, ref);
    if (found.main) return found.file;
    if (found.row.kind !== 'local') throw new CliError(`${found.row.name} is a remote instance; take a snapshot of it first (radar-console snapshot --instance ${found.row.name} --out FILE)`);
    const dbFile = found.row.db_file!;
    if (!create && !fs.existsSync(dbFile)) throw new CliError(`the database ${dbFile} of instance ${found.row.name} does not exist`);
    return dbFile;
  });
}
