// Imports and exports in progress. An import: the files chosen or dropped, the options, then the
// upload (the file itself as the request body; several files bundled into one .zip so they are
// imported together, all or nothing), the job's progress polled until it ends, and the summary
// or the refusal. Cancel aborts an upload in flight and cancels the job (the import rolls back).
// Exports: each a download the browser writes to disk under the server's file name (through a
// single-use link), its progress (rows, bytes) read from the server, cancellable.
import { create } from 'zustand';
import type { ExportRequest, ImportSummary, JobView, TransferErrorView } from '../../../src-shared/schemas/transfer';
import { ApiFailure, isAbort } from '../api/client';
import { cancelDownload, cancelJob, exportDownload, exportTicket, followDownload, getJob, startImport, type ImportParams } from '../api/transfer';
import { i18n } from '../i18n';
import { zipFiles, ZIP_MAX_BYTES } from '../lib/zip';
import { useChanges } from './changes';
import { useInstances } from './instances';
import { checkAuth, useSession } from './session';
import { useUi } from './ui';

/** Files the importer reads: JSON, NDJSON / JSON Lines, CSV, and .zip archives of them. */
export const IMPORT_EXTENSIONS = ['.json', '.ndjson', '.jsonl', '.csv', '.tsv', '.zip'] as const;
export const IMPORT_ACCEPT = [...IMPORT_EXTENSIONS, 'application/json', 'application/x-ndjson', 'text/csv', 'text/tab-separated-values', 'application/zip'].join(',');

export const importable = (name: string): boolean => IMPORT_EXTENSIONS.some((x) => name.toLowerCase().endsWith(x));
const isZip = (name: string): boolean => name.toLowerCase().endsWith('.zip');

/** How often a running job is asked for its progress. */
export const POLL_MS = 300;

export type ImportStage = 'options' | 'preparing' | 'uploading' | 'running' | 'cancelling' | 'done' | 'failed' | 'cancelled';
export const FINISHED: readonly ImportStage[] = ['done', 'failed', 'cancelled'];

export interface ImportOptions {
  target: 'new' | 'existing';
  /** The existing instance: 'main' or an instance id. */
  instance: string;
  /** Name of the new instance. */
  name: string;
  /** Resource of the records ('' = told from their fields). */
  kind: string;
  ignoreUnknown: boolean;
}

export interface ImportFailure extends TransferErrorView {
  /** HTTP status when the server refused the request itself (a taken name, an empty file). */
  status?: number;
}

export interface ImportTask {
  files: File[];
  /** Dropped or chosen files the importer does not read (their names). */
  rejected: string[];
  options: ImportOptions;
  stage: ImportStage;
  /** Uploads this import makes (one unless a .zip was given beside other files). */
  parts: number;
  part: number;
  /** Name of the upload being sent or imported. */
  label: string;
  uploadBytes: number;
  /** Bytes read so far to bundle several files (their checksums). */
  prepared: number;
  preparing: number;
  job: JobView | null;
  /** Jobs finished in this import, in order. */
  results: JobView[];
  error: ImportFailure | null;
  /** The instance written to, once known (a new one: after it was created). */
  instance: { id: string; name: string } | null;
  /** The job had already finished when the cancel reached it. */
  lateCancel: boolean;
  started: number;
}

export interface ExportTask {
  id: number;
  /** What is exported ("Incidents"), for the progress line. */
  title: string;
  format: ExportRequest['format'];
  instanceName: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  bytes: number;
  rows: number;
  total: number | null;
  expected: number | null;
  filename: string | null;
  error: string | null;
}

interface TransfersState {
  task: ImportTask | null;
  exports: ExportTask[];
  /** Opens the import dialog with these files (added to those already chosen, before it starts). */
  offerFiles(files: readonly File[]): void;
  /** Opens the import dialog (with no files yet when none were chosen). */
  openImport(): void;
  setOptions(patch: Partial<ImportOptions>): void;
  removeFile(index: number): void;
  startImport(): Promise<void>;
  cancelImport(): Promise<void>;
  /** Forgets a finished import (closing its dialog). */
  clearImport(): void;
  startExport(req: ExportRequest, meta: { title: string; instanceName: string }): Promise<void>;
  cancelExport(id: number): void;
  dismissExport(id: number): void;
}

/** The existing instance an import offers first: the selected one when it is local, else the main one. */
export function defaultImportInstance(): string {
  const { selected, list } = useInstances.getState();
  if (selected === 'main' || selected === 'all') return 'main';
  const inst = list.find((i) => i.id === selected);
  return inst && inst.kind !== 'remote' ? inst.id : 'main';
}

/** A name for a new instance from the first file's name ("incidents-2026…", less the extension). */
export function suggestName(files: readonly File[]): string {
  const names = useInstances.getState().list.map((i) => i.name);
  const base = (files[0]?.name ?? 'import').replace(/\.(json|ndjson|jsonl|csv|tsv|zip)$/i, '').slice(0, 100) || 'import';
  let name = base;
  for (let n = 2; names.includes(name); n++) name = `${base} (${n})`;
  return name;
}

function newTask(files: File[], rejected: string[]): ImportTask {
  return {
    files,
    rejected,
    options: { target: 'new', instance: defaultImportInstance(), name: suggestName(files), kind: '', ignoreUnknown: false },
    stage: 'options',
    parts: 0,
    part: 0,
    label: '',
    uploadBytes: 0,
    prepared: 0,
    preparing: 0,
    job: null,
    results: [],
    error: null,
    instance: null,
    lateCancel: false,
    started: 0,
  };
}

// The running import's handles (not state: nothing renders from them).
let uploadCtl: AbortController | null = null;
let prepareCtl: AbortController | null = null;
let jobId: string | null = null;
let cancelRequested = false;

/** Lists and counts read again after data was written (instances, tables, charts). */
function refreshData(): void {
  void useInstances.getState().load();
  useChanges.setState((s) => ({ seq: s.seq + 1 }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sums the summaries of several import jobs (per resource and overall). */
export function mergeSummaries(results: readonly JobView[]): ImportSummary | null {
  const sums = results.map((j) => j.summary).filter((s): s is ImportSummary => !!s && 'resources' in s);
  if (!sums.length) return null;
  const out: ImportSummary = { target: sums[0]!.target, files: [], resources: {}, records: 0, links: 0, generated_ids: 0, ignored_fields: {}, cleared_references: {}, notes: [], ms: 0 };
  for (const s of sums) {
    out.files.push(...s.files);
    for (const [k, c] of Object.entries(s.resources)) {
      const o = (out.resources[k] ??= { inserted: 0, updated: 0, unchanged: 0, repeated: 0 });
      o.inserted += c.inserted;
      o.updated += c.updated;
      o.unchanged += c.unchanged;
      o.repeated += c.repeated;
    }
    out.records += s.records;
    out.links += s.links;
    out.generated_ids += s.generated_ids;
    for (const [k, n] of Object.entries(s.ignored_fields)) out.ignored_fields[k] = (out.ignored_fields[k] ?? 0) + n;
    for (const [k, n] of Object.entries(s.cleared_references)) out.cleared_references[k] = (out.cleared_references[k] ?? 0) + n;
    out.notes.push(...s.notes);
    out.ms += s.ms;
  }
  return out;
}

let exportSeq = 0;
const exportCtl = new Map<number, AbortController>();
/** The server's download id of each export in progress. */
const exportDownloads = new Map<number, string>();
/** How often a download's progress is asked for. */
const DOWNLOAD_POLL_MS = 250;

export const useTransfers = create<TransfersState>((set, get) => {
  const patch = (p: Partial<ImportTask>) => {
    const t = get().task;
    if (t) set({ task: { ...t, ...p } });
  };

  /** Watches a job until it ends (cancelling it when asked); answers its last view. */
  async function watch(id: string): Promise<JobView> {
    const api = useSession.getState().api!;
    let cancelSent = false;
    for (;;) {
      if (cancelRequested && !cancelSent) {
        cancelSent = true;
        try {
          const v = await cancelJob(api, id);
          if (v.state !== 'running') return v;
        } catch (e) {
          checkAuth(e);
        }
      }
      let v: JobView;
      try {
        v = await getJob(api, id);
      } catch (e) {
        checkAuth(e);
        throw e;
      }
      patch({ job: v });
      if (v.state !== 'running') return v;
      await sleep(POLL_MS);
    }
  }

  return {
    task: null,
    exports: [],

    offerFiles(files) {
      const ok = files.filter((f) => importable(f.name));
      const rejected = files.filter((f) => !importable(f.name)).map((f) => f.name);
      const t = get().task;
      if (t && !FINISHED.includes(t.stage) && t.stage !== 'options') {
        useUi.getState().notify('info', i18n.t('import.busy'));
        useUi.getState().openDialog({ kind: 'import' });
        return;
      }
      if (t && t.stage === 'options') {
        const have = new Set(t.files.map((f) => `${f.name}|${f.size}`));
        const files2 = [...t.files, ...ok.filter((f) => !have.has(`${f.name}|${f.size}`))];
        const name = t.files.length === 0 ? suggestName(files2) : t.options.name;
        set({ task: { ...t, files: files2, rejected: [...new Set([...t.rejected, ...rejected])], options: { ...t.options, name } } });
      } else {
        set({ task: newTask(ok, rejected) });
      }
      useUi.getState().openDialog({ kind: 'import' });
    },

    openImport() {
      const t = get().task;
      if (!t || t.stage === 'done' || t.stage === 'failed' || t.stage === 'cancelled') set({ task: newTask([], []) });
      useUi.getState().openDialog({ kind: 'import' });
    },

    setOptions(p) {
      const t = get().task;
      if (t && t.stage === 'options') set({ task: { ...t, options: { ...t.options, ...p } } });
    },

    removeFile(index) {
      const t = get().task;
      if (t && t.stage === 'options') set({ task: { ...t, files: t.files.filter((_, i) => i !== index) } });
    },

    async startImport() {
      const t = get().task;
      const api = useSession.getState().api;
      if (!t || t.stage !== 'options' || !t.files.length || !api) return;
      cancelRequested = false;
      jobId = null;
      const o = t.options;
      const files = t.files;
      patch({ stage: 'preparing', started: Date.now(), results: [], error: null, instance: null, job: null, lateCancel: false });
      const fail = (error: ImportFailure) => patch({ stage: 'failed', error });
      const cancelled = () => patch({ stage: 'cancelled' });

      // What is sent: one file as it is; several as one stored .zip (imported together); when a
      // .zip is among them (archives are not nested) or the bundle would be too big, one by one.
      let uploads: { blob: Blob; label: string }[];
      const total = files.reduce((s, f) => s + f.size, 0);
      if (files.length > 1 && !files.some((f) => isZip(f.name)) && total < ZIP_MAX_BYTES) {
        prepareCtl = new AbortController();
        patch({ preparing: total, prepared: 0 });
        let done = 0;
        let last = 0;
        try {
          const blob = await zipFiles(files, {
            signal: prepareCtl.signal,
            onBytes: (n) => {
              done += n;
              const now = performance.now();
              if (now - last > 100) {
                last = now;
                patch({ prepared: done });
              }
            },
          });
          uploads = [{ blob, label: `${files.length}-files.zip` }];
        } catch (e) {
          if (isAbort(e) || cancelRequested) return cancelled();
          return fail({ message: e instanceof Error ? e.message : String(e) });
        } finally {
          prepareCtl = null;
        }
      } else {
        uploads = files.map((f) => ({ blob: f, label: f.name }));
      }
      patch({ parts: uploads.length });

      let target: Pick<ImportParams, 'instance' | 'newInstance'> = o.target === 'new' ? { newInstance: o.name.trim() } : { instance: o.instance === 'main' ? undefined : o.instance };
      const results: JobView[] = [];
      for (let i = 0; i < uploads.length; i++) {
        const u = uploads[i]!;
        if (cancelRequested) return cancelled();
        jobId = null;
        uploadCtl = new AbortController();
        patch({ stage: 'uploading', part: i, label: u.label, uploadBytes: u.blob.size, job: null });
        let job: JobView | null = null;
        try {
          job = await startImport(api, u.blob, { ...target, kind: o.kind || undefined, filename: u.label, ignoreUnknown: o.ignoreUnknown }, uploadCtl.signal, (id) => (jobId = id));
        } catch (e) {
          uploadCtl = null;
          if (isAbort(e) || cancelRequested) {
            // The answer may have named the job before the abort: cancel it too.
            if (jobId) {
              const v = await watch(jobId).catch(() => null);
              if (v?.state === 'done') {
                results.push(v);
                patch({ results: [...results], instance: v.instance, lateCancel: true });
                refreshData();
                if (i === uploads.length - 1) return patch({ stage: 'done' });
              }
            }
            return cancelled();
          }
          checkAuth(e);
          return fail({ message: e instanceof Error ? e.message : String(e), status: e instanceof ApiFailure ? e.status : undefined, file: u.label });
        }
        uploadCtl = null;
        patch({ stage: cancelRequested ? 'cancelling' : 'running', job });
        let end: JobView;
        try {
          end = await watch(job.id);
        } catch (e) {
          return fail({ message: e instanceof Error ? e.message : String(e) });
        }
        patch({ job: end });
        if (end.state === 'done') {
          results.push(end);
          patch({ results: [...results], instance: end.instance ?? get().task?.instance ?? null, lateCancel: cancelRequested });
          refreshData();
          // The next upload goes to the instance this one created.
          if (target.newInstance && end.instance) target = { instance: end.instance.id };
          // Finished before the cancel reached it: the last one ends as done, else the rest is not sent.
          if (cancelRequested) return i === uploads.length - 1 ? patch({ stage: 'done' }) : cancelled();
        } else if (end.state === 'cancelled') {
          return cancelled();
        } else {
          return fail(end.error ?? { message: end.state });
        }
      }
      patch({ stage: 'done' });
    },

    async cancelImport() {
      const t = get().task;
      if (!t || FINISHED.includes(t.stage) || t.stage === 'options') return;
      cancelRequested = true;
      patch({ stage: 'cancelling' });
      prepareCtl?.abort();
      uploadCtl?.abort();
    },

    clearImport() {
      const t = get().task;
      if (t && !FINISHED.includes(t.stage) && t.stage !== 'options') return;
      set({ task: null });
    },

    async startExport(req, meta) {
      const api = useSession.getState().api;
      if (!api) return;
      const id = ++exportSeq;
      const ctl = new AbortController();
      exportCtl.set(id, ctl);
      const entry: ExportTask = {
        id,
        title: meta.title,
        format: req.format,
        instanceName: meta.instanceName,
        state: 'running',
        bytes: 0,
        rows: 0,
        total: null,
        expected: null,
        filename: null,
        error: null,
      };
      const prev = get().exports;
      set({ exports: [...prev.filter((x) => x.state === 'running'), ...prev.filter((x) => x.state !== 'running').slice(-2), entry] });
      const update = (p: Partial<ExportTask>) => set({ exports: get().exports.map((x) => (x.id === id ? { ...x, ...p } : x)) });
      let download: string | null = null;
      try {
        const ticket = await exportTicket(api, req, ctl.signal);
        download = ticket.id;
        exportDownloads.set(id, ticket.id);
        if (ctl.signal.aborted) throw new DOMException('aborted', 'AbortError');
        followDownload(ticket.url);
        // The browser writes the file; the server says how far it has sent it.
        for (;;) {
          await sleep(DOWNLOAD_POLL_MS);
          const v = await exportDownload(api, ticket.id);
          update({ rows: v.rows, bytes: v.bytes, total: v.total, expected: v.expected, filename: v.filename });
          if (v.state === 'waiting' || v.state === 'running') continue;
          if (v.state === 'done') {
            update({ state: 'done' });
            setTimeout(() => get().dismissExport(id), 10_000);
          } else if (v.state === 'cancelled') {
            update({ state: 'cancelled' });
            setTimeout(() => get().dismissExport(id), 6_000);
          } else {
            update({ state: 'failed', error: v.error ?? i18n.t(v.state === 'expired' ? 'exports.notStarted' : 'exports.failedUnknown') });
          }
          return;
        }
      } catch (e) {
        if (isAbort(e) || ctl.signal.aborted) {
          if (download) void cancelDownload(api, download).catch(() => undefined);
          update({ state: 'cancelled' });
          setTimeout(() => get().dismissExport(id), 6_000);
        } else {
          checkAuth(e);
          update({ state: 'failed', error: e instanceof ApiFailure ? `${e.status} ${e.message}` : e instanceof Error ? e.message : String(e) });
        }
      } finally {
        exportCtl.delete(id);
        exportDownloads.delete(id);
      }
    },

    cancelExport(id) {
      const api = useSession.getState().api;
      const download = exportDownloads.get(id);
      exportCtl.get(id)?.abort();
      // The server ends the stream; the watch above then reads "cancelled".
      if (api && download) void cancelDownload(api, download).catch(() => undefined);
    },

    dismissExport(id) {
      const x = get().exports.find((e) => e.id === id);
      if (x?.state === 'running') return;
      set({ exports: get().exports.filter((e) => e.id !== id) });
    },
  };
});
