// `radar-console export`: a list or a search result to a file or stdout (JSON, NDJSON, CSV).
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import { ApiError } from '../../src-shared/errors';
import { CSV_HEADERS, EXPORT_FORMATS } from '../../src-shared/choices';
import type { ExportSearch } from '../../src-shared/schemas/transfer';
import { UsageError } from './errors';
import { delimiterOf } from './options';
import { localTarget } from './target';
import { cancellable, fmt, Progress, secs, transferFailure } from './progress';

function searchFlag(raw: string, exportSearchSchema: typeof import('../../src-shared/schemas/transfer').exportSearchSchema): ExportSearch {
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

export function exportCommand() {
  return new Command('export')
    .description('export a list or a search result')
    .requiredOption('--resource <name>', 'a resource (service_asset_findings, ...) or a public list (incidents, findings, serviceAssets)')
    .addOption(new Option('--format <format>', 'json, ndjson or csv').choices(EXPORT_FORMATS).makeOptionMandatory())
    .requiredOption('--out <file>', 'the file to write (- for stdout); written whole or not at all')
    .option('--db <file>', 'database (default: the main database)')
    .option('--instance <id|name>', 'a local instance of the main database --db instead')
    .option('--filter <json|@file>', 'v2 search request (filters, ordering, relations, ...): JSON {items,total}')
    .option('--query <string>', 'public standard filters (status=in,new,closed&order=-risklevel): JSON {objects,total}')
    .option('--columns <a,b,c>', 'fields to export, in this order (default: all)')
    .option('--delimiter <c>', 'CSV separator: , ; or tab (default ,)')
    .option('--no-bom', 'CSV without the UTF-8 byte-order mark')
    .addOption(
      new Option('--headers <names>', "CSV header row: the fields' API names (fields), or the console's column names in English (en) or Russian (ru); import reads each back (default: fields)").choices(
        CSV_HEADERS,
      ),
    )
    .option(
      '--with-references',
      'each record carries the records it refers to (an incident its finding type, asset and last occurrence), so the file imports into a fresh database; records that refer to it (its other occurrences, status changes, messages) are not references: the summary says how many it leaves out',
    )
    .option('--with-names', 'beside each id shown as a name (asset, finding type, group, owner), a column with that name (service_asset_name, finding_title, group_name, user_short_name)')
    .action(async (opts) => {
      const [{ prepareExport }, { exportSearchSchema }] = await Promise.all([import('../transfer/export'), import('../../src-shared/schemas/transfer')]);
      if (opts.filter !== undefined && opts.query !== undefined) throw new UsageError('give either --filter or --query, not both');
      const delimiter = opts.delimiter === undefined ? undefined : delimiterOf(opts.delimiter);
      const search = opts.filter !== undefined ? searchFlag(opts.filter, exportSearchSchema) : undefined;
      const file = await localTarget(opts, { create: false });
      let ex;
      try {
        ex = prepareExport(file, {
          resource: opts.resource,
          format: opts.format,
          search,
          query: opts.query,
          columns: opts.columns
            ?.split(',')
            .map((c) => c.trim())
            .filter(Boolean),
          delimiter,
          bom: opts.bom,
          headers: opts.headers,
          withReferences: !!opts.withReferences,
          withNames: !!opts.withNames,
        });
      } catch (e) {
        if (e instanceof ApiError) throw new UsageError(e.message);
        throw e;
      }
      const toStdout = opts.out === '-';
      const outFile = toStdout ? null : path.resolve(opts.out);
      // A file is written with plain synchronous writes: this process does nothing else meanwhile,
      // and reading rows and writing them then never wait on each other through the event loop.
      const fd = outFile === null ? null : fs.openSync(`${outFile}.part`, 'w');
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
      } catch (e) {
        ex.close();
        if (fd !== null) {
          fs.closeSync(fd);
          fs.rmSync(`${outFile}.part`, { force: true });
        }
        throw transferFailure(e, 'export');
      } finally {
        bar.stop();
      }
      const ms = performance.now() - t0;
      process.stderr.write(
        `radar-console: exported ${fmt(rows)} ${ex.name} (of ${fmt(ex.total)} matching) as ${opts.format} to ${toStdout ? 'stdout' : outFile} in ${secs(ms)} (${fmt(rows / Math.max(0.001, ms / 1000))} rows/s)\n`,
      );
      if (ex.references) for (const line of referenceLines(ex.name, ex.references, opts.filter !== undefined || opts.query !== undefined)) process.stderr.write(`radar-console: ${line}\n`);
    });
}

/** What --with-references brought and what it left out, and why. */
function referenceLines(name: string, refs: import('../transfer/export').ReferenceReport, filtered: boolean): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines: string[] = [];
  if (refs.carried.length) {
    // Two relations to one kind (occurrences and last_occurrence) may name the same records: each is counted per relation.
    const shared = [...new Set(refs.carried.map((c) => c.resource).filter((r, i, all) => all.indexOf(r) !== i))];
    const note = shared.length ? ` (counted per relation: ${shared.join(', ')} named by two relations are in each count, and imported once)` : '';
    lines.push(`with references: along with these ${name} came ${refs.carried.map((c) => `${n(c.records)} ${c.resource} (${c.relation})`).join(', ')}${note}`);
  }
  if (refs.left.length) {
    const kinds = [...new Set(refs.left.map((l) => l.resource))];
    const fields = [...new Set(refs.left.map((l) => l.field))];
    const what = refs.left.map((l) => `${n(l.records)} ${refs.carried.some((c) => c.resource === l.resource) ? 'more ' : ''}${l.resource}`).join(', ');
    lines.push(
      `left out: ${what}: they refer to these ${name} (${fields.join(', ')}) rather than being referred to, so they are not references; to have them too, ` +
        (filtered
          ? `export ${kinds.join(', ')} with a search of their own on ${fields.join(', ')} and import the files together`
          : `export them as well (${kinds.map((k) => `--resource ${k}`).join(', ')}) and import the files together`),
    );
  }
  return lines;
}
