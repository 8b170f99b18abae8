// `radar-console import | export | snapshot`: files in, files out, a remote platform copied for
// offline review. A progress bar on stderr (count, rate, ETA) when stderr is a terminal, one
// summary line in any case; bad flags exit 2, refused data exits 1 with file, position and
// reason; Ctrl-C cancels (an import rolls back, a snapshot keeps its pages for a resume).
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { ApiError } from '../../src-shared/errors';
import { CSV_DELIMITERS, EXPORT_FORMATS, exportSearchSchema, type ExportFormat, type ExportSearch } from '../../src-shared/schemas/transfer';
import { defaultDbFile } from '../config/paths';
import { InstanceCatalog, type InstanceRow } from '../instances/catalog';
import { KeyVault, vaultFileFor } from '../instances/vault';
import { openDatabase } from '../store/db';
import { Store } from '../store/store';
import { CancelledError, TransferError } from '../transfer/errors';
import { prepareExport } from '../transfer/export';
import { importFiles, resolveKind } from '../transfer/import';
import { snapshot, type SnapshotOptions } from '../transfer/snapshot';
import { intFlag, parse, UsageError } from './args';

export const TRANSFER_USAGE = `  import    import files into a local database (all or nothing)
              PATH...              .json (public page, v2 search answer, routing envelope, array), .ndjson/.jsonl, a folder of them, or a .zip
              --db FILE            target database, created when missing (default: the main database)
              --instance ID|NAME   a local instance of the main database --db instead
              --kind RESOURCE      resource of the records, when their fields cannot tell it
              --ignore-unknown     skip fields the registry does not know instead of refusing the file
              --strict-references  refuse optional references to missing records instead of clearing them
  export    export a list or a search result
              --resource NAME      a resource (service_asset_findings, ...) or a public list (incidents, findings, serviceAssets)
              --format json|ndjson|csv
              --out FILE           the file to write (- for stdout)
              --db FILE            database (default: the main database); or --instance ID|NAME of it
              --filter JSON|@FILE  v2 search request (filters, ordering, relations, ...): JSON {items,total}
              --query STRING       public standard filters (status=in,new,closed&order=-risklevel): JSON {objects,total}
              --columns a,b,c      fields to export, in this order (default: all)
              --delimiter C        CSV separator: , ; or tab (default ,)
              --no-bom             CSV without the UTF-8 byte-order mark
  snapshot  copy a remote platform's finding types, assets and incidents into a new database (resumable)
              --url URL (--api-key KEY | --api-key-file FILE) [--remote-instance-id UUID] [--ca-file PEM] [--pin SHA256]
              --instance ID|NAME   a remote instance of the main database --db instead of --url
              --out FILE           target database (an interrupted snapshot there is resumed)
              --add-instance NAME  then add it as a local instance of the main database --db
              --per-page N         records per page (default 500, at most 1000)
`;

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The progress bar on a terminal; nothing otherwise (the summary line is printed anyway). */
export class Progress {
  private bar: cliProgress.SingleBar | null = null;
  private readonly t0 = performance.now();

  constructor(private readonly unit: string) {}

  update(value: number, total: number, count: number, phase: string): void {
    if (!process.stderr.isTTY) return;
    const rate = count / Math.max(0.001, (performance.now() - this.t0) / 1000);
    const payload = { phase: phase.padEnd(10), count: fmt(count), rate: fmt(rate), unit: this.unit };
    if (!this.bar) {
      this.bar = new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: '{phase} [{bar}] {percentage}% | {count} {unit} | {rate} {unit}/s | ETA {eta_formatted}',
          hideCursor: true,
          etaBuffer: 40,
          fps: 5,
          barsize: 30,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(Math.max(total, 1), Math.min(value, total), payload);
      return;
    }
    this.bar.setTotal(Math.max(total, 1));
    this.bar.update(Math.min(value, total), payload);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

/** Runs `fn` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts. */
export async function cancellable<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await fn(controller.signal);
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
}

function openCatalog(mainDb: string) {
  if (!fs.existsSync(mainDb)) throw new UsageError(`the main database ${mainDb} does not exist`);
  const { db } = openDatabase(mainDb);
  const catalog = new InstanceCatalog(new Store(db), new KeyVault(vaultFileFor(mainDb)), path.dirname(path.resolve(mainDb)));
  return { db, catalog };
}

/** An instance of the main database by id or name: the main one or a catalog row. */
function findInstance(mainDb: string, ref: string): { main: true; file: string } | { main: false; row: InstanceRow; vaultKey: string | undefined } {
  const { db, catalog } = openCatalog(mainDb);
  try {
    const main = catalog.main();
    if (ref.toLowerCase() === main.id || ref === main.name) return { main: true, file: path.resolve(mainDb) };
    const row = catalog.get(ref) ?? catalog.list().find((r) => r.name === ref);
    if (!row) throw new UsageError(`no instance "${ref}" in ${mainDb} (see \`radar-console instance list\`)`);
    return { main: false, row, vaultKey: row.kind === 'remote' ? catalog.vault.get(row.id) : undefined };
  } finally {
    db.close();
  }
}

/** The database of `--db FILE`, or of the local instance `--instance ID|NAME` of the main database `--db`. */
export function localFile(v: Record<string, unknown>): string {
  const mainDb = (v.db as string | undefined) ?? defaultDbFile();
  if (v.instance === undefined) return path.resolve(mainDb);
  const found = findInstance(mainDb, v.instance as string);
  if (found.main) return found.file;
  if (found.row.kind !== 'local') throw new UsageError(`${found.row.name} is a remote instance; take a snapshot of it first (radar-console snapshot --instance ...)`);
  return found.row.db_file!;
}

function reportFailure(e: unknown, what: string): number {
  if (e instanceof CancelledError) {
    process.stderr.write(`radar-console: ${what} cancelled${what === 'import' ? '; the database is unchanged' : ''}\n`);
    return 130;
  }
  if (e instanceof TransferError) {
    process.stderr.write(`radar-console: ${what} refused: ${e.message}\n`);
    return 1;
  }
  throw e;
}

// ---------------------------------------------------------------------------------------- import

export async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      db: { type: 'string' },
      instance: { type: 'string' },
      kind: { type: 'string' },
      'ignore-unknown': { type: 'boolean' },
      'strict-references': { type: 'boolean' },
    },
    true,
  );
  const v = values as Record<string, string | boolean | undefined>;
  if (!positionals.length) throw new UsageError('import needs a file, a folder or a .zip');
  try {
    resolveKind(v.kind as string | undefined);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  for (const p of positionals) if (!fs.existsSync(p)) throw new UsageError(`${p}: no such file or folder`);
  const target = localFile(v);
  const bar = new Progress('records');
  try {
    const summary = await cancellable((signal) =>
      importFiles(target, positionals, {
        kind: v.kind as string | undefined,
        ignoreUnknown: !!v['ignore-unknown'],
        strictReferences: !!v['strict-references'],
        signal,
        onProgress: (p) => {
          const total = p.totalBytes ?? Math.max(p.bytes, 1);
          bar.update(p.phase === 'reading' ? p.bytes : total, total, p.records, p.phase);
        },
      }),
    );
    bar.stop();
    const parts = Object.entries(summary.resources).map(
      ([name, c]) => `${name} ${fmt(c.inserted)} new${c.updated ? `, ${fmt(c.updated)} updated` : ''}${c.unchanged ? `, ${fmt(c.unchanged)} unchanged` : ''}${c.repeated ? `, ${fmt(c.repeated)} repeated` : ''}`,
    );
    const rate = summary.records / Math.max(0.001, summary.ms / 1000);
    process.stderr.write(
      `radar-console: imported ${fmt(summary.records)} records from ${summary.files.length} file${summary.files.length === 1 ? '' : 's'} into ${target} in ${secs(summary.ms)} (${fmt(rate)} records/s): ${parts.join('; ') || 'nothing'}\n`,
    );
    for (const [k, n] of Object.entries(summary.cleared_references)) process.stderr.write(`radar-console: cleared ${fmt(n)} references to missing records in ${k}\n`);
    for (const [k, n] of Object.entries(summary.ignored_fields)) process.stderr.write(`radar-console: skipped unknown field ${k} in ${fmt(n)} records\n`);
    if (summary.generated_ids) process.stderr.write(`radar-console: ${fmt(summary.generated_ids)} records had no id and got a new one\n`);
    for (const n of summary.notes) process.stderr.write(`radar-console: ${n}\n`);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  } catch (e) {
    bar.stop();
    return reportFailure(e, 'import');
  }
}

// ---------------------------------------------------------------------------------------- export

function searchFlag(raw: string): ExportSearch {
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = fs.readFileSync(raw.slice(1), 'utf8');
    } catch (e) {
      throw new UsageError(`--filter ${raw}: ${(e as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--filter must be a JSON search request (or @file holding one)');
  }
  const res = exportSearchSchema.safeParse(parsed);
  if (!res.success) {
    const issue = res.error.issues[0]!;
    throw new UsageError(`--filter: ${issue.path.join('.') || 'request'}: ${issue.message}`);
  }
  return res.data;
}

export async function exportCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    db: { type: 'string' },
    instance: { type: 'string' },
    resource: { type: 'string' },
    format: { type: 'string' },
    filter: { type: 'string' },
    query: { type: 'string' },
    columns: { type: 'string' },
    delimiter: { type: 'string' },
    'no-bom': { type: 'boolean' },
    out: { type: 'string' },
  });
  const v = values as Record<string, string | boolean | undefined>;
  if (!v.resource) throw new UsageError('export needs --resource');
  const format = v.format as string | undefined;
  if (!format || !(EXPORT_FORMATS as readonly string[]).includes(format)) throw new UsageError('export needs --format json, ndjson or csv');
  if (!v.out) throw new UsageError('export needs --out FILE (- for stdout)');
  if (v.filter !== undefined && v.query !== undefined) throw new UsageError('give either --filter or --query, not both');
  let delimiter = v.delimiter as string | undefined;
  if (delimiter === 'tab' || delimiter === '\\t') delimiter = '\t';
  if (delimiter !== undefined && !(CSV_DELIMITERS as readonly string[]).includes(delimiter)) throw new UsageError('--delimiter must be , ; or tab');
  const search = v.filter !== undefined ? searchFlag(v.filter as string) : undefined;
  const file = localFile(v);
  if (!fs.existsSync(file)) throw new UsageError(`the database ${file} does not exist`);
  let ex;
  try {
    ex = prepareExport(file, {
      resource: v.resource as string,
      format: format as ExportFormat,
      search,
      query: v.query as string | undefined,
      columns: (v.columns as string | undefined)
        ?.split(',')
        .map((c) => c.trim())
        .filter(Boolean),
      delimiter,
      bom: !v['no-bom'],
    });
  } catch (e) {
    if (e instanceof ApiError) throw new UsageError(e.message);
    throw e;
  }
  const toStdout = v.out === '-';
  const outFile = toStdout ? null : path.resolve(v.out as string);
  // A file is written with plain synchronous writes: this process does nothing else meanwhile,
  // and reading rows and writing them then never wait on each other through the event loop.
  const fd = toStdout ? null : fs.openSync(`${outFile}.part`, 'w');
  const bar = new Progress('rows');
  const t0 = performance.now();
  let rows = 0;
  try {
    await cancellable(async (signal) => {
      for await (const chunk of ex.chunks(signal, (n) => {
        rows = n;
        bar.update(n, ex.rows, n, 'exporting');
      })) {
        if (fd !== null) fs.writeSync(fd, chunk);
        else if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
      }
    });
    if (fd !== null) {
      fs.closeSync(fd);
      fs.renameSync(`${outFile}.part`, outFile!);
    } else {
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    }
    bar.stop();
    const ms = performance.now() - t0;
    process.stderr.write(
      `radar-console: exported ${fmt(rows)} ${ex.resource} records (of ${fmt(ex.total)} matching) as ${format} to ${toStdout ? 'stdout' : outFile} in ${secs(ms)} (${fmt(rows / Math.max(0.001, ms / 1000))} rows/s)\n`,
    );
    return 0;
  } catch (e) {
    bar.stop();
    ex.close();
    if (fd !== null) {
      fs.closeSync(fd);
      fs.rmSync(`${outFile}.part`, { force: true });
    }
    return reportFailure(e, 'export');
  }
}

// ---------------------------------------------------------------------------------------- snapshot

export async function snapshotCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    url: { type: 'string' },
    'api-key': { type: 'string' },
    'api-key-file': { type: 'string' },
    'remote-instance-id': { type: 'string' },
    'ca-file': { type: 'string' },
    pin: { type: 'string' },
    instance: { type: 'string' },
    out: { type: 'string' },
    'add-instance': { type: 'string' },
    db: { type: 'string' },
    'per-page': { type: 'string' },
  });
  const v = values as Record<string, string | undefined>;
  if (!v.out) throw new UsageError('snapshot needs --out TARGET.sqlite');
  if (!!v.url === !!v.instance) throw new UsageError('snapshot needs either --url URL or --instance ID|NAME');
  const perPage = intFlag('per-page', v['per-page'], 1, 1000);
  const mainDb = v.db ?? defaultDbFile();
  let remote: SnapshotOptions['remote'];
  let key: SnapshotOptions['key'];
  if (v.instance) {
    const found = findInstance(mainDb, v.instance);
    if (found.main || found.row.kind !== 'remote') throw new UsageError(`${v.instance} is not a remote instance`);
    if (!found.vaultKey) throw new UsageError(`instance ${found.row.name} has no API key`);
    remote = {
      url: found.row.url!,
      apiKey: found.vaultKey,
      remoteInstanceId: found.row.remote_instance_id,
      caFile: found.row.ca_file,
      pinnedSha256: found.row.pinned_sha256,
    };
    key = { store: vaultFileFor(mainDb), id: found.row.id };
  } else {
    if (!/^https?:\/\/[^/]+/i.test(v.url!)) throw new UsageError('--url must be an http:// or https:// address');
    let key = v['api-key'];
    if (v['api-key-file']) {
      try {
        key = fs.readFileSync(v['api-key-file'], 'utf8').trim();
      } catch (e) {
        throw new UsageError(`--api-key-file: ${(e as Error).message}`);
      }
    }
    if (!key) throw new UsageError('snapshot needs --api-key or --api-key-file');
    if (v['ca-file'] && !fs.existsSync(v['ca-file'])) throw new UsageError(`--ca-file ${v['ca-file']} does not exist`);
    if (v['remote-instance-id'] && !/^[0-9a-f-]{36}$/i.test(v['remote-instance-id'])) throw new UsageError('--remote-instance-id must be a uuid');
    remote = {
      url: v.url!.replace(/\/+$/, ''),
      apiKey: key,
      remoteInstanceId: v['remote-instance-id'],
      caFile: v['ca-file'] ? path.resolve(v['ca-file']) : undefined,
      pinnedSha256: v.pin,
    };
  }
  const target = path.resolve(v.out);
  const addName = v['add-instance'];
  if (addName) {
    const { db, catalog } = openCatalog(mainDb);
    try {
      const taken = catalog.main().name === addName || catalog.list().some((r) => r.name === addName && !(r.kind === 'local' && r.db_file === target));
      if (taken) throw new UsageError(`the instance name "${addName}" is taken`);
    } finally {
      db.close();
    }
  }
  const bar = new Progress('records');
  try {
    const summary = await cancellable((signal) =>
      snapshot({
        remote,
        target,
        perPage,
        key,
        signal,
        onProgress: (p) => bar.update(p.records, p.total ?? p.records, p.records, p.phase),
      }),
    );
    bar.stop();
    if (addName) {
      const { db, catalog } = openCatalog(mainDb);
      try {
        if (!catalog.list().some((r) => r.name === addName)) catalog.add({ kind: 'local', name: addName, db_file: target });
      } finally {
        db.close();
      }
    }
    const counts = Object.entries(summary.counts).map(([k, n]) => `${k} ${fmt(n)}`);
    process.stderr.write(
      `radar-console: snapshot of ${summary.source} ${summary.resumed ? 'resumed and ' : ''}complete in ${target} (${summary.pages} pages, ${secs(summary.ms)}): ${counts.join(', ')}; status changes: ${summary.status_changes}${addName ? `; added as instance "${addName}"` : ''}\n`,
    );
    for (const [k, n] of Object.entries(summary.cleared_references)) process.stderr.write(`radar-console: cleared ${fmt(n)} references to records outside the snapshot in ${k}\n`);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  } catch (e) {
    bar.stop();
    if (e instanceof CancelledError || e instanceof TransferError) {
      const resumable = fs.existsSync(target);
      const code = reportFailure(e, 'snapshot');
      if (resumable) process.stderr.write(`radar-console: the pages copied so far are kept in ${target}; run the same command again to resume\n`);
      return code;
    }
    throw e;
  }
}
