// `radar-console import`: files into a local database, all or nothing.
import fs from 'node:fs';
import { Command, Option } from '@commander-js/extra-typings';
import { CSV_ENCODINGS } from '../../src-shared/choices';
import { dbFileOf, delimiterOf } from './options';
import { localTarget } from './target';
import { UsageError } from './errors';
import { cancellable, fmt, Progress, secs, transferFailure } from './progress';

export function importCommand() {
  return new Command('import')
    .description('import files into a local database (all or nothing); prints the summary as JSON')
    .argument('<path...>', '.json (public page, v2 search answer, routing envelope, array, export bundle), .ndjson/.jsonl, .csv (header row of field names or the console\'s column names), a folder of them, or a .zip')
    .option('--db <file>', 'target database, created when missing (default: the main database)')
    .option('--instance <id|name>', 'a local instance of the main database --db instead')
    .option('--kind <resource>', 'resource of the records, when their fields cannot tell it')
    .option('--ignore-unknown', 'skip fields (and CSV columns) the registry does not know, counted in the summary, instead of refusing the file')
    .option('--delimiter <c>', 'CSV separator: , ; or tab (default: the one the header row holds most of)')
    .addOption(new Option('--encoding <name>', 'CSV text encoding (default: UTF-8 with a byte-order mark or when the text is UTF-8, else windows-1251)').choices(CSV_ENCODINGS))
    .option('--strict-references', 'refuse optional references to missing records instead of clearing them')
    .option('--as-changes', 'into a snapshot of a platform: the records created or changed are changes to push (sync push)')
    .action(async (paths, opts) => {
      const { importFiles, resolveKind } = await import('../transfer/import');
      try {
        resolveKind(opts.kind);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      for (const p of paths) if (!fs.existsSync(p)) throw new UsageError(`${p}: no such file or folder`);
      const delimiter = opts.delimiter === undefined ? undefined : delimiterOf(opts.delimiter);
      const target = await localTarget(opts, { create: true });
      // The import's own flags, for the commands a refusal suggests (they run as printed).
      const flags = [
        ...(opts.instance !== undefined ? ['--instance', opts.instance, '--db', dbFileOf(opts.db)] : ['--db', target]),
        ...(opts.kind !== undefined ? ['--kind', opts.kind] : []),
        ...(opts.ignoreUnknown ? ['--ignore-unknown'] : []),
        ...(opts.strictReferences ? ['--strict-references'] : []),
        ...(opts.asChanges ? ['--as-changes'] : []),
        ...(opts.delimiter !== undefined ? ['--delimiter', opts.delimiter] : []),
        ...(opts.encoding !== undefined ? ['--encoding', opts.encoding] : []),
      ];
      const bar = new Progress('records');
      let summary;
      try {
        summary = await cancellable((signal) =>
          importFiles(target, paths, {
            kind: opts.kind,
            ignoreUnknown: !!opts.ignoreUnknown,
            strictReferences: !!opts.strictReferences,
            recordChanges: !!opts.asChanges,
            delimiter,
            encoding: opts.encoding,
            invocation: { flags, paths },
            signal,
            onProgress: (p) => {
              const total = p.totalBytes ?? Math.max(p.bytes, 1);
              bar.update(p.phase === 'reading' ? p.bytes : total, total, p.records, p.phase);
            },
          }),
        );
      } catch (e) {
        throw transferFailure(e, 'import', '; the database is unchanged');
      } finally {
        bar.stop();
      }
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
      if (summary.outbox_entries !== undefined) process.stderr.write(`radar-console: recorded as changes to push: ${fmt(summary.outbox_entries)} entries waiting (sync status, sync push)\n`);
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    });
}
