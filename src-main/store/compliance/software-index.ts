// The database's software vectors in memory, for compliance rules: one TsVectorStore (typed
// arrays over an interned lexicon with an inverted index) holding every software record's
// vector (its stored `tsvector`, else to_tsvector('simple', name || ' ' || version)), built once
// per database and kept in step with the data.
//
// Keeping in step: the store's data version (data-version.ts) moves with every write by any
// connection. When it has moved, one aggregate over the software table (its row count, highest
// _rid and two sums of a key per row made from updated_at and the lengths of name, version and
// tsvector) tells whether software changed at all; only then are the rows' keys compared one by
// one and the changed rows read again (a changed record gets a new number; the old one is marked
// dead). Every write path sets updated_at, so a change is seen unless it keeps updated_at and the
// lengths of all three texts (an imported file edited by hand could).
import { EMPTY_TSVECTOR, softwareVector, TsVectorStore, type TsVector } from '../../../src-shared/textsearch';
import type { Store } from '../store';

/**
 * A key of a software row's state: its updated_at's digits and the lengths of the texts its
 * vector is made from, mixed into 31 bits. SQL written here, never from input.
 */
const ROW_KEY =
  `((abs(CAST(substr(updated_at, 3, 2) || substr(updated_at, 6, 2) || substr(updated_at, 9, 2) || substr(updated_at, 12, 2) || ` +
  `substr(updated_at, 15, 2) || substr(updated_at, 18, 2) || substr(updated_at, 21, 6) AS INTEGER)) % 2147483629) + ` +
  `length(name) * 65599 + ifnull(length(version), 0) * 131 + ifnull(length(tsvector), 0)) % 2147483629`;
const P1 = 65521;
const P2 = 65519;
const FINGERPRINT_SQL = `SELECT count(*) AS n, ifnull(max(_rid), 0) AS m, ifnull(sum((k % ${P1} + 1) * (_rid % ${P1} + 1)), 0) AS h1, ifnull(sum(k % ${P2}), 0) AS h2 FROM (SELECT _rid, ${ROW_KEY} AS k FROM software)`;
const CHUNK_SQL = `SELECT _rid, name, version, tsvector, ${ROW_KEY} AS k FROM software WHERE _rid > ? ORDER BY _rid LIMIT ?`;
const KEYS_SQL = `SELECT _rid, ${ROW_KEY} AS k FROM software`;
const ROWS_SQL = `SELECT _rid, name, version, tsvector, ${ROW_KEY} AS k FROM software WHERE _rid IN (SELECT value FROM json_each(?))`;

const CHUNK = 20_000;

interface Fingerprint {
  n: number;
  m: number;
  h1: bigint;
  h2: bigint;
}

type Row = [rid: number, name: string | null, version: string | null, tsvector: string | null, key: number];

function growInt(a: Int32Array<ArrayBuffer>, need: number, fill = 0): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  let size = Math.max(1024, a.length * 2);
  while (size < need) size *= 2;
  const b = new Int32Array(size);
  if (fill) b.fill(fill);
  b.set(a);
  return b;
}

export interface IndexProgress {
  done: number;
  total: number;
}

export class SoftwareIndex {
  vectors = new TsVectorStore();
  /** record → software _rid, or -1 when the record was replaced or deleted. */
  private ridOf = new Int32Array(0);
  /** software _rid → record, or -1. */
  private recOf = new Int32Array(0).fill(-1);
  private keyOf = new Int32Array(0);
  private unreadableOf = new Uint8Array(0);
  // The fingerprint's sums: BigInt totals plus Number parts added since (each term < 2^32).
  private sum1 = 0n;
  private sum2 = 0n;
  private part1 = 0;
  private part2 = 0;
  private maxRid = 0;
  /** Live records (software rows). */
  live = 0;
  /** Records whose stored tsvector text could not be read (they match nothing). */
  unreadable = 0;
  /** Records replaced or deleted since the store was built. */
  dead = 0;
  /** Moves whenever the indexed data changes (for caches of results). */
  generation = 0;
  /** Whether records were added after the first build (record order is then not _rid order). */
  private appended = false;
  private checkedAt: string | null = null;

  /** The records and their count (live). */
  get size(): number {
    return this.live;
  }

  private add(row: Row): void {
    const [rid, name, version, tsvector, key] = row;
    let v: TsVector;
    let bad = 0;
    try {
      v = softwareVector({ name, version, tsvector });
    } catch {
      v = EMPTY_TSVECTOR;
      bad = 1;
    }
    const rec = this.vectors.add(v);
    this.ridOf = growInt(this.ridOf, rec + 1);
    this.keyOf = growInt(this.keyOf, rec + 1);
    if (rec + 1 > this.unreadableOf.length) {
      const u = new Uint8Array(Math.max(1024, this.unreadableOf.length * 2, rec + 1));
      u.set(this.unreadableOf);
      this.unreadableOf = u;
    }
    if (rid + 1 > this.recOf.length) this.recOf = growInt(this.recOf, rid + 1, -1);
    this.ridOf[rec] = rid;
    this.recOf[rid] = rec;
    this.keyOf[rec] = key;
    this.unreadableOf[rec] = bad;
    this.unreadable += bad;
    this.live++;
    if (rid > this.maxRid) this.maxRid = rid;
    this.addSums(((key % P1) + 1) * ((rid % P1) + 1), key % P2);
  }

  private addSums(d1: number, d2: number): void {
    this.part1 += d1;
    this.part2 += d2;
    if (Math.abs(this.part1) > 2 ** 50) this.flushSums();
  }

  private flushSums(): void {
    this.sum1 += BigInt(this.part1);
    this.sum2 += BigInt(this.part2);
    this.part1 = 0;
    this.part2 = 0;
  }

  private remove(rec: number): void {
    const rid = this.ridOf[rec]!;
    if (rid < 0) return;
    const key = this.keyOf[rec]!;
    this.addSums(-(((key % P1) + 1) * ((rid % P1) + 1)), -(key % P2));
    this.recOf[rid] = -1;
    this.ridOf[rec] = -1;
    this.unreadable -= this.unreadableOf[rec]!;
    this.live--;
    this.dead++;
  }

  /** Reads every software row, a chunk per step (the caller may let other work run between them). */
  static *build(store: Store): Generator<IndexProgress, SoftwareIndex> {
    const index = new SoftwareIndex();
    const total = (store.get1<{ n: number }>('SELECT count(*) AS n FROM software')?.n ?? 0) as number;
    const chunk = store.stmt(CHUNK_SQL).raw(true);
    let last = 0;
    for (;;) {
      const rows = chunk.all(last, CHUNK) as Row[];
      for (const row of rows) index.add(row);
      if (rows.length) last = rows[rows.length - 1]![0];
      yield { done: index.live, total: Math.max(total, index.live) };
      if (rows.length < CHUNK) break;
    }
    index.generation = 1;
    return index;
  }

  /** Builds the index at once. */
  static buildNow(store: Store, onProgress?: (p: IndexProgress) => void): SoftwareIndex {
    const steps = SoftwareIndex.build(store);
    for (;;) {
      const s = steps.next();
      if (s.done) return s.value.refresh(store);
      onProgress?.(s.value);
    }
  }

  /** Builds the index a chunk at a time, letting other work run between chunks. */
  static async buildInTurns(store: Store, onProgress?: (p: IndexProgress) => void): Promise<SoftwareIndex> {
    const steps = SoftwareIndex.build(store);
    for (;;) {
      const s = steps.next();
      if (s.done) return s.value.refresh(store);
      onProgress?.(s.value);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private fingerprintMatches(store: Store): boolean {
    const row = store.stmt(FINGERPRINT_SQL).safeIntegers(true).get() as { n: bigint; m: bigint; h1: bigint; h2: bigint };
    const fp: Fingerprint = { n: Number(row.n), m: Number(row.m), h1: row.h1, h2: row.h2 };
    this.flushSums();
    return fp.n === this.live && fp.m === this.maxRid && fp.h1 === this.sum1 && fp.h2 === this.sum2;
  }

  /**
   * Brings the index up to the data: nothing to do while the data version has not moved; else
   * the fingerprint, and the rows that changed. Answers the index to use (itself, or a new one
   * when most of it changed).
   */
  refresh(store: Store): SoftwareIndex {
    const version = store.version();
    if (version !== null && version === this.checkedAt) return this;
    if (this.fingerprintMatches(store)) {
      this.checkedAt = version;
      return this;
    }
    const rows = store.stmt(KEYS_SQL).raw(true).all() as [number, number][];
    const seen = new Uint8Array(this.vectors.size);
    const changed: number[] = [];
    for (const [rid, key] of rows) {
      const rec = rid < this.recOf.length ? this.recOf[rid]! : -1;
      if (rec >= 0 && this.keyOf[rec] === key) {
        seen[rec] = 1;
        continue;
      }
      if (rec >= 0) seen[rec] = 1;
      changed.push(rid);
    }
    // Records whose row is gone.
    for (let rec = 0; rec < seen.length; rec++) if (!seen[rec] && this.ridOf[rec]! >= 0) this.remove(rec);
    if ((this.dead + changed.length) * 4 > Math.max(rows.length, 1024)) {
      // Most of it changed: a new index is cheaper than patching this one.
      return SoftwareIndex.buildNow(store);
    }
    const read = store.stmt(ROWS_SQL).raw(true);
    for (let i = 0; i < changed.length; i += 10_000) {
      for (const row of read.all(JSON.stringify(changed.slice(i, i + 10_000))) as Row[]) {
        const rec = row[0] < this.recOf.length ? this.recOf[row[0]]! : -1;
        if (rec >= 0) this.remove(rec);
        this.add(row);
        this.appended = true;
      }
    }
    this.generation++;
    // Rows written while this ran are caught by the next refresh (the version moved again).
    this.checkedAt = this.fingerprintMatches(store) ? version : null;
    return this;
  }

  /** The software _rid of a record (-1 for a replaced or deleted one). */
  ridOfRecord(rec: number): number {
    return rec >= 0 && rec < this.ridOf.length ? this.ridOf[rec]! : -1;
  }

  /** The record of a software _rid, or -1. */
  recordOfRid(rid: number): number {
    return rid >= 0 && rid < this.recOf.length ? this.recOf[rid]! : -1;
  }

  /** The _rids of matching records, ascending (dead records left out). */
  ridsOf(records: ArrayLike<number>): Int32Array {
    const out = new Int32Array(records.length);
    let n = 0;
    for (let i = 0; i < records.length; i++) {
      const rid = this.ridOf[records[i]!]!;
      if (rid >= 0) out[n++] = rid;
    }
    const rids = out.subarray(0, n);
    return this.appended ? rids.sort() : rids;
  }
}

const indexes = new WeakMap<Store, { index: SoftwareIndex | null; building: Promise<SoftwareIndex> | null; progress: IndexProgress | null }>();

function slotOf(store: Store) {
  let slot = indexes.get(store);
  if (!slot) indexes.set(store, (slot = { index: null, building: null, progress: null }));
  return slot;
}

/**
 * The store's software index, up to date: built on first use a chunk at a time (other requests
 * are served meanwhile; concurrent callers share the build), then refreshed on each use.
 */
export async function softwareIndex(store: Store): Promise<SoftwareIndex> {
  const slot = slotOf(store);
  if (slot.index) return (slot.index = slot.index.refresh(store));
  if (!slot.building) {
    slot.building = SoftwareIndex.buildInTurns(store, (p) => (slot.progress = p)).then(
      (index) => {
        slot.index = index;
        slot.building = null;
        slot.progress = null;
        return index;
      },
      (e: unknown) => {
        slot.building = null;
        slot.progress = null;
        throw e;
      },
    );
  }
  const built = await slot.building;
  return (slot.index = built.refresh(store));
}

/** The store's software index, built at once when missing (the command line). */
export function softwareIndexNow(store: Store, onProgress?: (p: IndexProgress) => void): SoftwareIndex {
  const slot = slotOf(store);
  slot.index = slot.index ? slot.index.refresh(store) : SoftwareIndex.buildNow(store, onProgress);
  return slot.index;
}

/** How far the first build of the store's index has come (null when none is running). */
export function softwareIndexProgress(store: Store): IndexProgress | null {
  return indexes.get(store)?.progress ?? null;
}
