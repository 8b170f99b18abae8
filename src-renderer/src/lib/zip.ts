// Several files as one .zip (entries stored, not compressed), so that they are uploaded and
// imported as one job: all or nothing, references between the files resolved. The files are
// read once for their CRC-32 (streamed, constant memory); the archive itself is a Blob made of
// the headers and the File objects, never copied into memory.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32Update(crc: number, bytes: Uint8Array): number {
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The largest archive written without the ZIP64 extension. */
export const ZIP_MAX_BYTES = 0xffff_ffff - 1024 * 1024;

export class ZipAborted extends Error {
  constructor() {
    super('aborted');
    this.name = 'AbortError';
  }
}

async function crcOf(file: Blob, signal: AbortSignal | undefined, onBytes: (n: number) => void): Promise<number> {
  const reader = file.stream().getReader();
  let crc = 0;
  try {
    for (;;) {
      if (signal?.aborted) throw new ZipAborted();
      const { done, value } = await reader.read();
      if (done) return crc;
      crc = crc32Update(crc, value);
      onBytes(value.length);
    }
  } finally {
    reader.releaseLock();
  }
}

function dosTime(ms: number): { time: number; date: number } {
  const d = new Date(ms);
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** Entry names, unique (a second "incidents.ndjson" becomes "2-incidents.ndjson"). */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((n, i) => {
    let name = n.replace(/[\\/]/g, '_') || `file-${i + 1}.json`;
    if (seen.has(name)) name = `${i + 1}-${name}`;
    seen.add(name);
    return name;
  });
}

/**
 * A stored .zip of `files`. `onBytes` reports the bytes read for the checksums. Throws when the
 * archive would need ZIP64 (over 4 GiB).
 */
export async function zipFiles(files: readonly File[], opts: { signal?: AbortSignal; onBytes?: (n: number) => void } = {}): Promise<Blob> {
  const total = files.reduce((s, f) => s + f.size, 0);
  if (total + files.length * 200 > ZIP_MAX_BYTES) throw new Error('too large for one archive');
  const enc = new TextEncoder();
  const names = uniqueNames(files.map((f) => f.name));
  const parts: BlobPart[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    const name = enc.encode(names[i]!);
    const crc = await crcOf(file, opts.signal, (n) => opts.onBytes?.(n));
    const { time, date } = dosTime(file.lastModified || Date.now());
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, 0x0800, true);
    local.setUint16(8, 0, true);
    local.setUint16(10, time, true);
    local.setUint16(12, date, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, file.size, true);
    local.setUint32(22, file.size, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    parts.push(local.buffer, name, file);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, 20, true);
    cd.setUint16(6, 20, true);
    cd.setUint16(8, 0x0800, true);
    cd.setUint16(10, 0, true);
    cd.setUint16(12, time, true);
    cd.setUint16(14, date, true);
    cd.setUint32(16, crc, true);
    cd.setUint32(20, file.size, true);
    cd.setUint32(24, file.size, true);
    cd.setUint16(28, name.length, true);
    cd.setUint32(42, offset, true);
    central.push(new Uint8Array(cd.buffer), name);
    offset += 30 + name.length + file.size;
  }
  const cdSize = central.reduce((s, b) => s + b.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, cdSize, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...(central as BlobPart[]), end.buffer], { type: 'application/zip' });
}
