// `radar-console snapshot`: a remote platform's finding types, assets and incidents copied into
// a new local database for offline review; interrupted runs resume.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import type { SnapshotOptions } from '../transfer/snapshot';
import { findInstance, withCatalog } from './catalog';
import { CliError, UsageError } from './errors';
import { intIn, readKeyFile, uuidArg } from './options';
import { cancellable, fmt, Progress, secs, transferFailure } from './progress';

/** The remote to copy: --instance (a remote of the catalog, key included) or --url with its key. */
async function remoteOf(opts: {
  url?: string;
  instance?: string;
  apiKey?: string;
  apiKeyFile?: string;
  remoteInstanceId?: string;
  caFile?: string;
  pin?: string;
  db?: string;
}): Promise<Pick<SnapshotOptions, 'remote' | 'key'>> {
  if (opts.instance !== undefined) {
    const ref = opts.instance;
    return withCatalog(opts.db, (catalog, file) => {
      const found = findInstance(catalog, file, ref);
      if (found.main || found.row.kind !== 'remote') throw new CliError(`${ref} is not a remote instance (see \`radar-console instance list\`)`);
      const key = catalog.vault.get(found.row.id);
      if (!key) throw new CliError(`instance ${found.row.name} has no API key kept beside ${file}; add it again with --api-key`);
      return {
        remote: {
          url: found.row.url!,
          apiKey: key,
          remoteInstanceId: found.row.remote_instance_id,
          caFile: found.row.ca_file,
          pinnedSha256: found.row.pinned_sha256,
        },
        // The snapshot remembers where the key is (the catalog's entry), never the key itself.
        key: { store: catalog.vault.file, id: found.row.id },
      };
    });
  }
  if (!/^https?:\/\/[^/]+/i.test(opts.url!)) throw new UsageError('--url must be an http:// or https:// address');
  if (opts.apiKey && opts.apiKeyFile) throw new UsageError('give either --api-key or --api-key-file, not both');
  const key = opts.apiKeyFile ? readKeyFile(opts.apiKeyFile, '--api-key-file') : opts.apiKey;
  if (!key) throw new UsageError('snapshot needs --api-key or --api-key-file');
  if (opts.caFile && !fs.existsSync(opts.caFile)) throw new UsageError(`--ca-file ${opts.caFile}: no such file`);
  return {
    remote: {
      url: opts.url!.replace(/\/+$/, ''),
      apiKey: key,
      remoteInstanceId: opts.remoteInstanceId,
      caFile: opts.caFile ? path.resolve(opts.caFile) : undefined,
      pinnedSha256: opts.pin,
    },
  };
}

/** Whether running the same command again would resume: an unfinished checkpoint of this very source. */
function resumable(readCheckpoint: typeof import('../transfer/snapshot').readCheckpoint, target: string, remote: SnapshotOptions['remote']): number | null {
  const cp = readCheckpoint(target);
  if (!cp || cp.complete || !fs.existsSync(target)) return null;
  if (cp.source !== remote.url.replace(/\/+$/, '') || (cp.remote_instance_id ?? null) !== (remote.remoteInstanceId ?? null)) return null;
  return cp.pages;
}

export function snapshotCommand() {
  return new Command('snapshot')
    .description("copy a remote platform's finding types, assets and incidents into a new database (resumable)")
    .requiredOption('--out <file>', 'target database (an interrupted snapshot there is resumed)')
    .option('--url <url>', "the remote's main port (or its routing port with --remote-instance-id)")
    .option('--api-key <key>', "the remote's API key")
    .option('--api-key-file <file>', "a file holding the remote's API key")
    .option('--remote-instance-id <uuid>', 'an instance behind the remote routing port', uuidArg)
    .option('--ca-file <pem>', 'a CA certificate to trust for the remote')
    .option('--pin <sha256>', "the remote certificate's SHA-256 fingerprint")
    .option('--instance <id|name>', 'a remote instance of the main database --db instead of --url')
    .option('--add-instance <name>', 'then add the result as a local instance of the main database --db')
    .option('--db <file>', 'the main database, for --instance and --add-instance (default: the main database)')
    .option('--per-page <n>', 'records per page (default 500)', intIn(1, 1000))
    .action(async (opts) => {
      if (!!opts.url === !!opts.instance) throw new UsageError('snapshot needs either --url URL or --instance ID|NAME');
      const { remote, key } = await remoteOf(opts);
      const target = path.resolve(opts.out);
      const addName = opts.addInstance;
      if (addName) {
        await withCatalog(opts.db, (catalog) => {
          const taken = catalog.main().name === addName || catalog.list().some((r) => r.name === addName && !(r.kind === 'local' && r.db_file === target));
          if (taken) throw new CliError(`the instance name "${addName}" is taken (see \`radar-console instance list\`)`);
        });
      }
      const { readCheckpoint, snapshot } = await import('../transfer/snapshot');
      const bar = new Progress('records');
      let summary;
      try {
        summary = await cancellable((signal) =>
          snapshot({ remote, key, target, perPage: opts.perPage, signal, onProgress: (p) => bar.update(p.records, p.total ?? p.records, p.records, p.phase) }),
        );
      } catch (e) {
        bar.stop();
        const failure = transferFailure(e, 'snapshot');
        const pages = resumable(readCheckpoint, target, remote);
        if (pages !== null) {
          process.stderr.write(`radar-console: ${failure.message}\n`);
          throw new CliError(`the ${fmt(pages)} page${pages === 1 ? '' : 's'} copied so far are kept in ${target}; run the same command again to resume`, failure.exitCode);
        }
        throw failure;
      }
      bar.stop();
      if (addName) {
        await withCatalog(opts.db, (catalog) => {
          if (!catalog.list().some((r) => r.name === addName)) catalog.add({ kind: 'local', name: addName, db_file: target });
        });
      }
      const counts = Object.entries(summary.counts).map(([k, n]) => `${k} ${fmt(n)}`);
      process.stderr.write(
        `radar-console: snapshot of ${summary.source} ${summary.resumed ? 'resumed and ' : ''}complete in ${target} (${summary.pages} pages, ${secs(summary.ms)}): ${counts.join(', ')}; status changes: ${summary.status_changes}${addName ? `; added as instance "${addName}"` : ''}\n`,
      );
      for (const [k, n] of Object.entries(summary.cleared_references)) process.stderr.write(`radar-console: cleared ${fmt(n)} references to records outside the snapshot in ${k}\n`);
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    });
}
