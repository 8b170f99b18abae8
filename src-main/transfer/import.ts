// `import`: files, folders and .zip archives into a local database, in one transaction.
// Each record stream's kind comes from --kind, else from its fields (the file name breaks
// ties); every record is checked against the registry before anything is committed, and any
// error rolls everything back: the database is left exactly as it was (a database created
// for the import is removed).
import fs from 'node:fs';
import type { CsvEncoding } from '../../src-shared/choices';
import type { ImportSummary } from '../../src-shared/schemas/transfer';
import { isCsvFileName, readCsv } from './csv';
import { TransferError } from './errors';
import { detectKind, kindByName, kindFromFileName } from './kinds';
import { readEntry, type Loc, type RecordSink } from './reader';
import { RecordImport } from './records';
import { openSources, type Entry } from './sources';
import { planOf, type ImportInvocation, type KindPlan } from './validate';

export interface ImportProgress {
  phase: 'reading' | 'indexing' | 'checking' | 'committing';
  records: number;
  bytes: number;
  totalBytes: number | null;
  file: string | null;
}

export interface ImportOptions {
  /** Resource of every record (overrides detection). */
  kind?: string;
  ignoreUnknown?: boolean;
  /** Refuse optional references that resolve nowhere instead of clearing them. */
  strictReferences?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
  /** Names of the paths in messages (an upload's file name instead of its temporary path). */
  labels?: (string | undefined)[];
  /** SQLite page cache of the import connection, in KiB. */
  cacheKiB?: number;
  /** Into a snapshot: the records created or changed are changes to push (recorded in its outbox). */
  recordChanges?: boolean;
  /** CSV files: the delimiter (`,` `;` tab) and the encoding, when detection is not what is wanted. */
  delimiter?: string;
  encoding?: CsvEncoding;
  /** How the import was asked for on the command line (its refusals then suggest commands to run as printed). */
  invocation?: ImportInvocation;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

export function resolveKind(name: string | undefined): KindPlan | undefined {
  if (name === undefined) return undefined;
  const r = kindByName(name);
  if (!r) throw new TransferError(`unknown resource "${name}"`);
  return planOf(r);
}

export function removeDbFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

/** Reads every entry into an open session (inside its transaction); answers per-file facts. */
export async function readInto(
  session: RecordImport,
  entries: readonly Entry[],
  opts: ImportOptions & { onBytes?: (n: number) => void; onFile?: (name: string) => void },
  notes: string[],
): Promise<ImportSummary['files']> {
  const override = resolveKind(opts.kind);
  const files: ImportSummary['files'] = [];
  for (const entry of entries) {
    opts.onFile?.(entry.name);
    const hint = kindFromFileName(entry.name);
    const kinds = new Map<number, KindPlan>();
    const used = new Set<string>();
    let last: KindPlan | undefined;
    const sink: RecordSink = {
      record(value: unknown, loc: Loc) {
        if (!isPlainObject(value)) throw new TransferError(`expected an object (a record), got ${describe(value)}`, loc.where());
        let plan = kinds.get(loc.stream);
        if (!plan) {
          if (override) plan = override;
          else if (loc.resource) plan = planOf(loc.resource);
          else {
            const d = detectKind(value, hint ?? last?.r, !!opts.ignoreUnknown);
            if ('error' in d) throw new TransferError(d.error, loc.where());
            plan = planOf(d.r);
          }
          kinds.set(loc.stream, plan);
          used.add(plan.r.name);
          last = plan;
        }
        session.add(plan, value, loc);
      },
      note: (message: string) => notes.push(message),
    };
    const before = session.records;
    if (isCsvFileName(entry.name)) {
      const res = await readCsv(entry, sink, {
        delimiter: opts.delimiter,
        encoding: opts.encoding,
        kind: override?.r,
        hint,
        ignoreUnknown: opts.ignoreUnknown,
        signal: opts.signal,
        onBytes: opts.onBytes,
      });
      files.push({ file: entry.name, shape: res.shape, kinds: [...used], records: session.records - before, delimiter: res.delimiter, encoding: res.encoding });
      continue;
    }
    const res = await readEntry(entry, sink, { ndjson: /\.(ndjson|jsonl)$/i.test(entry.name), signal: opts.signal, onBytes: opts.onBytes });
    files.push({ file: entry.name, shape: res.shape, kinds: [...used], records: session.records - before });
  }
  return files;
}

/**
 * Imports `paths` (files, folders, .zip archives) into the database `target` (created and
 * migrated when missing). All or nothing.
 */
export async function importFiles(target: string, paths: readonly string[], opts: ImportOptions = {}): Promise<ImportSummary> {
  const started = performance.now();
  resolveKind(opts.kind);
  const sources = await openSources(paths, opts.labels);
  let session: RecordImport | undefined;
  let created = false;
  const notes: string[] = [];
  try {
    session = new RecordImport(target, {
      source: 'import',
      ignoreUnknown: opts.ignoreUnknown,
      strictReferences: opts.strictReferences,
      cacheKiB: opts.cacheKiB,
      recordChanges: opts.recordChanges,
      invocation: opts.invocation,
    });
    created = session.created;
    session.begin();
    let bytes = 0;
    let file: string | null = null;
    let lastReport = 0;
    let lastPhase = '';
    const s = session;
    const report = (phase: ImportProgress['phase'], force = false) => {
      const now = performance.now();
      if (!force && phase === lastPhase && now - lastReport < 200) return;
      lastReport = now;
      lastPhase = phase;
      opts.onProgress?.({ phase, records: s.records, bytes, totalBytes: sources.totalBytes, file });
    };
    const files = await readInto(session, sources.entries, {
      ...opts,
      onBytes: (n) => {
        bytes += n;
        report('reading');
      },
      onFile: (name) => {
        file = name;
        report('reading', true);
      },
    }, notes);
    report('reading', true);
    await session.commit({
      signal: opts.signal,
      onPhase: (phase) => report(phase as ImportProgress['phase'], phase === 'committing'),
    });
    session.store.checkpoint();
    return {
      target,
      files,
      resources: session.counts,
      records: session.records,
      links: session.linkLists,
      generated_ids: session.generatedIds,
      ignored_fields: session.ignoredFields,
      cleared_references: session.clearedReferences,
      notes,
      ...(session.outboxEntries === null ? {} : { outbox_entries: session.outboxEntries }),
      ms: Math.round(performance.now() - started),
    };
  } catch (e) {
    session?.rollback();
    throw e;
  } finally {
    session?.close();
    await sources.close();
    if (created && session && !session.committed) removeDbFiles(target);
  }
}
