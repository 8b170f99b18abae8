// What an import reads: a file, every data file (JSON, NDJSON, CSV) of a folder, or every data file of a .zip
// (entries streamed by yauzl, never extracted to disk). Each entry can be opened more than once
// (the syntax-error locator reads a file again).
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { TransferError } from './errors';

export interface Entry {
  /** Name shown in messages: the path given, or `archive.zip:inner/name.json`. */
  name: string;
  /** Uncompressed size when known. */
  size: number | null;
  open(): Promise<Readable>;
}

export interface SourceSet {
  entries: Entry[];
  totalBytes: number | null;
  close(): Promise<void>;
}

const DATA_FILE = /\.(json|ndjson|jsonl|csv|tsv)$/i;
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

export const isDataFileName = (name: string): boolean => DATA_FILE.test(name);

/**
 * Read size. Small pieces keep the decoded text short-lived, so it dies young instead of filling
 * the old generation: measured on 200,000 incidents, peak RSS 155 MiB with 64 KiB against 236 MiB
 * with 1 MiB, at the same speed.
 */
const READ_CHUNK = 64 * 1024;

function fileEntry(file: string, name = file): Entry {
  const size = fs.statSync(file).size;
  return { name, size, open: async () => fs.createReadStream(file, { highWaterMark: READ_CHUNK }) };
}

function isZipFile(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const n = fs.readSync(fd, head, 0, 4, 0);
    return n === 4 && (head.equals(ZIP_MAGIC) || head.equals(EMPTY_ZIP_MAGIC));
  } finally {
    fs.closeSync(fd);
  }
}

function walk(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    const items = fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const it of items) {
      if (it.name.startsWith('.')) continue;
      const p = path.join(d, it.name);
      if (it.isDirectory()) visit(p);
      else if (it.isFile() && DATA_FILE.test(it.name)) out.push(p);
    }
  };
  visit(dir);
  return out;
}

async function zipEntries(file: string, label: string): Promise<{ entries: Entry[]; close: () => void }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { autoClose: false, lazyEntries: true, strictFileNames: false, validateEntrySizes: true });
  } catch (e) {
    throw new TransferError(`not a readable .zip archive: ${(e as Error).message}`, { file: label });
  }
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      const base = name.split('/').pop() ?? '';
      if (name.endsWith('/') || name.startsWith('__MACOSX/') || base.startsWith('.') || !DATA_FILE.test(base)) continue;
      if (entry.isEncrypted()) throw new TransferError('encrypted entries are not supported', { file: `${label}:${name}` });
      if (!entry.canDecodeFileData()) throw new TransferError(`unsupported compression method ${entry.compressionMethod}`, { file: `${label}:${name}` });
      entries.push({ name: `${label}:${name}`, size: entry.uncompressedSize, open: () => zip.openReadStreamPromise(entry) });
    }
  } catch (e) {
    zip.close();
    if (e instanceof TransferError) throw e;
    throw new TransferError(`not a readable .zip archive: ${(e as Error).message}`, { file: label });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { entries, close: () => zip.close() };
}

/**
 * The data files behind the paths given: a file as it is (a .zip is recognised by its
 * signature, whatever its name), a folder's *.json / *.ndjson / *.jsonl / *.csv / *.tsv
 * (recursively, in name order), a .zip's entries of those types. `labels` names the paths in messages (uploads).
 */
export async function openSources(paths: readonly string[], labels: readonly (string | undefined)[] = []): Promise<SourceSet> {
  const entries: Entry[] = [];
  const closers: (() => void)[] = [];
  const closeAll = async () => {
    for (const c of closers.splice(0)) c();
  };
  try {
    for (let i = 0; i < paths.length; i++) {
      const p = paths[i]!;
      const label = labels[i] ?? p;
      let st: fs.Stats;
      try {
        st = fs.statSync(p);
      } catch {
        throw new TransferError('no such file or folder', { file: label });
      }
      if (st.isDirectory()) {
        const files = walk(p);
        if (!files.length) throw new TransferError('the folder holds no .json, .ndjson, .jsonl or .csv files', { file: label });
        for (const f of files) entries.push(fileEntry(f, labels[i] ? path.join(label, path.relative(p, f)) : f));
      } else if (st.isFile()) {
        if (st.size >= 4 && isZipFile(p)) {
          const z = await zipEntries(p, label);
          closers.push(z.close);
          if (!z.entries.length) throw new TransferError('the archive holds no .json, .ndjson, .jsonl or .csv files', { file: label });
          entries.push(...z.entries);
        } else {
          entries.push(fileEntry(p, label));
        }
      } else {
        throw new TransferError('not a file or a folder', { file: label });
      }
    }
  } catch (e) {
    await closeAll();
    throw e;
  }
  const sizes = entries.map((e) => e.size);
  return {
    entries,
    totalBytes: sizes.every((s): s is number => s !== null) ? sizes.reduce((a, b) => a + b, 0) : null,
    close: closeAll,
  };
}
