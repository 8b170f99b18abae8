// `snapshot`: a remote platform's finding types, assets, custom fields and incidents (with
// their occurrences, status changes, messages and custom field values) copied into a new local
// database through the remote's APIs, so it can be reviewed offline as an instance of its own
// and its changes pushed back later (src-main/sync).
//
//   GET  /data/public/api/v1/findings | serviceAssets | incidents ?page=P&per_page=N   until total
//   POST /cruddy/v2/custom_fields/search                                               paged
//   POST /cruddy/v2/{service_asset_finding_status_changes,messages,custom_field_values}/search
//                                                                      per incident page
//
// Each page is written in its own transaction (with the records related to its incidents),
// then a checkpoint beside the target (`<target>.snapshot.json`) records the next page of each
// list. A run that finds an unfinished checkpoint for the same source resumes from it; a page
// met again after an interruption is upserted (records are keyed by id), so an interrupted and
// resumed snapshot ends with the same data as an uninterrupted one. Without one of the v2
// searches on the remote the snapshot goes on without those records and says so in its
// summary. Optional references to records a snapshot does not copy (an asset's responsible
// group) are cleared and counted.
//
// The snapshot remembers its origin (sync_origin: the URL, the remote instance, the key's entry
// in a key store; never the key itself), the origin's updated_at of every record it copied
// (sync_remote) and, per list, the origin's newest updated_at when the list was started
// (sync_cursors: the first pull starts there).
import fs from 'node:fs';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import type { SnapshotSummary } from '../../src-shared/schemas/transfer';
import { nowTs } from '../../src-shared/time';
import { callJson, type JsonAnswer } from '../instances/remote-json';
import { RemoteClient, RemoteError, type RemoteConfig } from '../instances/remote';
import { Runner } from '../store/query/runner';
import { KeyVault, vaultFileFor, type KeyCipher } from '../instances/vault';
import { BEFORE_ANY, PUBLIC_API, searchPath, UNAVAILABLE, type OriginList } from '../../src-shared/sync/lists';
import { originLists } from '../store/kinds/index';
import { K } from '../../src-shared/resources/kinds';
import { RemoteVersions, remoteTs, setOrigin } from '../store/origin';
import { CancelledError, TransferError } from './errors';
import { removeDbFiles } from './import';
import { at, RecordImport } from './records';
import { planOf } from './validate';

export { PUBLIC_API };
export const STATUS_SEARCH = searchPath(K.statusChange);

/** What a finished snapshot reports: the records it holds. */
const COUNTED = [K.finding, K.serviceAsset, K.incident, K.occurrence, K.statusChange, K.customField, K.customFieldValue, K.message] as const;

/** Lists paged on their own (the others come with each page of incidents). */
const PAGED = originLists().filter((l) => !l.relatedBy);
const RELATED = originLists().filter((l) => l.relatedBy);

interface ListState {
  page: number;
  total: number | null;
  done: boolean;
}

export interface Checkpoint {
  version: 1;
  source: string;
  remote_instance_id: string | null;
  per_page: number;
  started_at: string;
  updated_at: string;
  complete: boolean;
  lists: Record<string, ListState>;
  status_changes: string;
  /** messages, custom_field_values, custom_fields: copied, or why not. */
  related?: Record<string, string>;
  pages: number;
  counts: Record<string, number>;
  cleared_references: Record<string, number>;
  ignored_fields: Record<string, number>;
}

export interface SnapshotProgress {
  phase: string;
  page: number;
  records: number;
  total: number | null;
}

export interface SnapshotOptions {
  remote: Omit<RemoteConfig, 'timeoutMs' | 'maxBytes'> & { timeoutMs?: number; maxBytes?: number };
  target: string;
  perPage?: number;
  signal?: AbortSignal;
  onProgress?: (p: SnapshotProgress) => void;
  /**
   * Where the origin's key is kept: an entry already in a key store (a remote instance of the
   * catalog). Without it the key is written to the key store beside the target
   * (`<target>.instance-keys.json`), encrypted with `cipher` when given.
   */
  key?: { store: string; id: string };
  cipher?: KeyCipher;
}

export const checkpointFileOf = (target: string): string => `${target}.snapshot.json`;

export function readCheckpoint(target: string): Checkpoint | null {
  try {
    return JSON.parse(fs.readFileSync(checkpointFileOf(target), 'utf8')) as Checkpoint;
  } catch {
    return null;
  }
}

function writeCheckpoint(target: string, cp: Checkpoint): void {
  cp.updated_at = new Date().toISOString();
  const file = checkpointFileOf(target);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(cp, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

class Remote {
  readonly client: RemoteClient;
  constructor(
    cfg: SnapshotOptions['remote'],
    readonly label: string,
  ) {
    this.client = new RemoteClient({ timeoutMs: 60_000, maxBytes: 512 * 1024 * 1024, ...cfg });
  }

  async json(method: 'GET' | 'POST', path: string, body?: unknown): Promise<JsonAnswer> {
    let out: JsonAnswer;
    try {
      out = await callJson(this.client, method, path, body);
    } catch (e) {
      if (e instanceof RemoteError) throw new TransferError(`${this.label}${path}: ${e.message}`);
      throw e;
    }
    if (out.status === 401 || out.status === 403) throw new TransferError(`${this.label} refused the API key (HTTP ${out.status})`);
    return out;
  }
}

/** The origin's newest updated_at in a list, before it is read (the first pull starts there). */
async function newestOf(remote: Remote, list: OriginList): Promise<string> {
  let res: JsonAnswer;
  let rec: unknown;
  if (list.publicPath) {
    res = await remote.json('GET', `${PUBLIC_API}/${list.publicPath}?per_page=1&order=-updated_at`);
    rec = isObject(res.body) && Array.isArray(res.body.objects) ? res.body.objects[0] : undefined;
  } else {
    res = await remote.json('POST', searchPath(list.resource), { ...emptySearch(1, 0), include_fields: ['id', 'updated_at'], ordering: [{ field: 'updated_at', direction: 'desc' }] });
    rec = isObject(res.body) && Array.isArray(res.body.items) ? res.body.items[0] : undefined;
  }
  if (res.status !== 200) return BEFORE_ANY;
  return (isObject(rec) && remoteTs(rec.updated_at)) || BEFORE_ANY;
}

/** Copies the remote's lists into `target`, resuming an interrupted run. */
export async function snapshot(opts: SnapshotOptions): Promise<SnapshotSummary> {
  const started = performance.now();
  const perPageWanted = opts.perPage ?? 500;
  const source = opts.remote.url.replace(/\/+$/, '');
  const label = source;
  const existing = readCheckpoint(opts.target);
  const targetExists = fs.existsSync(opts.target);
  let cp: Checkpoint;
  let resumed = false;
  if (targetExists) {
    if (!existing) throw new TransferError(`${opts.target} exists and is not an interrupted snapshot; choose another target`);
    if (existing.complete) throw new TransferError(`${opts.target} is already a complete snapshot of ${existing.source}; choose another target`);
    if (existing.source !== source || (existing.remote_instance_id ?? null) !== (opts.remote.remoteInstanceId ?? null)) {
      throw new TransferError(`${opts.target} is an interrupted snapshot of ${existing.source}, not of ${source}`);
    }
    cp = existing;
    resumed = true;
  } else {
    if (existing) fs.rmSync(checkpointFileOf(opts.target), { force: true });
    const now = new Date().toISOString();
    cp = {
      version: 1,
      source,
      remote_instance_id: opts.remote.remoteInstanceId ?? null,
      per_page: perPageWanted,
      started_at: now,
      updated_at: now,
      complete: false,
      lists: {},
      status_changes: 'copied',
      related: {},
      pages: 0,
      counts: {},
      cleared_references: {},
      ignored_fields: {},
    };
  }
  const related = (cp.related ??= {});
  const perPage = cp.per_page;
  const remote = new Remote(opts.remote, label);
  // The origin's key: an entry of a key store, never the database.
  const ownVault = opts.key ? null : new KeyVault(vaultFileFor(opts.target), opts.cipher);
  const key = opts.key ?? { store: ownVault!.file, id: 'origin' };
  const origin = {
    url: source,
    remote_instance_id: opts.remote.remoteInstanceId ?? null,
    ca_file: opts.remote.caFile ?? null,
    pinned_sha256: opts.remote.pinnedSha256 ?? null,
    timeout_ms: opts.remote.timeoutMs ?? null,
    key_store: key.store,
    key_id: key.id,
    snapshot_at: nowTs(),
  };
  let session: RecordImport | undefined;
  try {
    session = new RecordImport(opts.target, { source: 'origin', ignoreUnknown: true });
    session.clearedReferences = { ...cp.cleared_references };
    session.ignoredFields = { ...cp.ignored_fields };
    if (!resumed) writeCheckpoint(opts.target, cp);
    ownVault?.set(key.id, opts.remote.apiKey);
    const versions = () => new RemoteVersions(session!.db);
    for (const list of PAGED) {
      const st = (cp.lists[list.key] ??= { page: 1, total: null, done: false });
      const plan = planOf(getResource(list.resource));
      if (!list.publicPath && related[list.key]?.startsWith('unavailable')) st.done = true;
      while (!st.done) {
        if (opts.signal?.aborted) throw new CancelledError();
        // Where the first pull starts: the newest change before the list (and those read with it) is read.
        const cursors: [string, string][] = [];
        if (st.page === 1) {
          cursors.push([list.key, await newestOf(remote, list)]);
          if (list.key === 'incidents') for (const rl of RELATED) cursors.push([rl.key, await newestOf(remote, rl)]);
        }
        const page = list.publicPath ? await publicPage(remote, list, st.page, perPage) : await searchPage(remote, list, st.page, perPage);
        if (typeof page === 'string') {
          related[list.key] = page;
          st.done = true;
          break;
        }
        const { objects, total, file } = page;
        const extra: { list: OriginList; items: Record<string, unknown>[] }[] = [];
        if (list.key === 'incidents' && objects.length) {
          const ids = objects.filter(isObject).map((o) => o.id).filter((id): id is string => typeof id === 'string');
          for (const rl of RELATED) {
            const note = rl.key === 'status_changes' ? cp.status_changes : related[rl.key];
            if (note?.startsWith('unavailable')) continue;
            // records naming a list that could not be copied (values of custom fields) are not copied either
            const missing = originLists().find((l) => related[l.key]?.startsWith('unavailable') && Object.values(getResource(rl.resource).fields).some((f) => f.ref === l.resource));
            if (missing) {
              related[rl.key] = `unavailable: ${missing.key.replace(/_/g, ' ')} could not be copied`;
              continue;
            }
            const got = await relatedRecords(remote, rl, ids);
            if (typeof got === 'string') {
              if (rl.key === 'status_changes') cp.status_changes = got;
              else related[rl.key] = got;
            } else {
              extra.push({ list: rl, items: got });
            }
          }
        }
        session.begin();
        const v = versions();
        setOrigin(session.db, origin);
        for (const [k, ts] of cursors) v.startCursor(k, ts);
        objects.forEach((o, i) => {
          if (!isObject(o)) throw new TransferError(`expected an object (a record)`, { file, record: `objects[${i}]` });
          // The origin's versions of the record and those nested in it are noted by the write path.
          session!.add(plan, o, at({ file, record: `objects[${i}]` }));
        });
        for (const x of extra) {
          const xplan = planOf(getResource(x.list.resource));
          x.items.forEach((o, i) => {
            session!.add(xplan, o, at({ file: `${label}${searchPath(x.list.resource)}`, record: `items[${i}]` }));
          });
        }
        await session.commit({ signal: opts.signal });
        st.total = total;
        const seen = (st.page - 1) * perPage + objects.length;
        st.done = objects.length === 0 || seen >= total;
        st.page++;
        cp.pages++;
        for (const [name, c] of Object.entries(session.counts)) cp.counts[name] = (cp.counts[name] ?? 0) + c.inserted;
        session.counts = {};
        cp.cleared_references = session.clearedReferences;
        cp.ignored_fields = session.ignoredFields;
        writeCheckpoint(opts.target, cp);
        opts.onProgress?.({ phase: list.key, page: st.page - 1, records: Math.min(seen, total), total });
      }
    }
    for (const rl of [...PAGED, ...RELATED]) if (rl.key !== 'status_changes' && !rl.publicPath) related[rl.key] ??= 'copied';
    cp.complete = true;
    cp.counts = {};
    for (const name of COUNTED) {
      cp.counts[name] = new Runner(session.store).countAll(getResource(name));
    }
    writeCheckpoint(opts.target, cp);
    session.store.checkpoint();
  } catch (e) {
    session?.rollback();
    throw e;
  } finally {
    session?.close();
    await remote.client.close();
    if (!resumed && cp.pages === 0 && !cp.complete) {
      removeDbFiles(opts.target);
      fs.rmSync(checkpointFileOf(opts.target), { force: true });
      if (ownVault) fs.rmSync(ownVault.file, { force: true });
    }
  }
  return {
    source,
    target: opts.target,
    resumed,
    pages: cp.pages,
    counts: cp.counts,
    status_changes: cp.status_changes,
    related,
    cleared_references: cp.cleared_references,
    ignored_fields: cp.ignored_fields,
    ms: Math.round(performance.now() - started),
  };
}

interface Page {
  objects: unknown[];
  total: number;
  file: string;
}

/** A page of a public API list. */
async function publicPage(remote: Remote, list: OriginList, page: number, perPage: number): Promise<Page> {
  const path = `${PUBLIC_API}/${list.publicPath}?page=${page}&per_page=${perPage}`;
  const res = await remote.json('GET', path);
  if (res.status !== 200) throw new TransferError(`${remote.label}${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  const body = res.body;
  if (!isObject(body) || !Array.isArray(body.objects) || typeof body.total !== 'number') {
    throw new TransferError(`${remote.label}${path}: expected {objects, total}, got ${JSON.stringify(body).slice(0, 200)}`);
  }
  return { objects: body.objects, total: body.total, file: `${remote.label}${path}` };
}

/** A page of a v2 search (oldest first); a string when the remote has no such search. */
async function searchPage(remote: Remote, list: OriginList, page: number, perPage: number): Promise<Page | string> {
  const path = searchPath(list.resource);
  const body = { ...emptySearch(perPage, (page - 1) * perPage), ordering: [{ field: 'created_at', direction: 'asc' }, { field: 'id', direction: 'asc' }] };
  const res = await remote.json('POST', path, body);
  if (UNAVAILABLE.has(res.status)) return `unavailable: ${path} answered HTTP ${res.status} on ${remote.label}`;
  if (res.status !== 200 || !isObject(res.body) || !Array.isArray(res.body.items)) {
    throw new TransferError(`${remote.label}${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  return { objects: res.body.items, total: typeof res.body.total === 'number' ? res.body.total : res.body.items.length, file: `${remote.label}${path}` };
}

/** Records of the given incidents through the remote's v2 search, paged; a string when unavailable. */
async function relatedRecords(remote: Remote, list: OriginList, ids: string[]): Promise<Record<string, unknown>[] | string> {
  const path = searchPath(list.resource);
  const out: Record<string, unknown>[] = [];
  const limit = 1000;
  for (let offset = 0; ; ) {
    const body = { ...emptySearch(limit, offset), filters: [{ field: list.relatedBy!, filter_type: 'related', value: ids }] };
    const res = await remote.json('POST', path, body);
    if (UNAVAILABLE.has(res.status)) return `unavailable: ${path} answered HTTP ${res.status} on ${remote.label}`;
    if (res.status !== 200 || !isObject(res.body) || !Array.isArray(res.body.items)) {
      throw new TransferError(`${remote.label}${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const items = res.body.items.filter(isObject);
    out.push(...items);
    offset += items.length;
    const total = typeof res.body.total === 'number' ? res.body.total : offset;
    if (!items.length || offset >= total) return out;
  }
}
