// `snapshot`: a remote platform's finding types, assets and incidents (with their occurrences
// and status changes) copied into a new local database through the remote's public API, so it
// can be reviewed offline as an instance of its own.
//
//   GET  /data/public/api/v1/findings | serviceAssets | incidents ?page=P&per_page=N   until total
//   POST /cruddy/v2/service_asset_finding_status_changes/search                          per incident page
//
// Each page is written in its own transaction (with the status changes of its incidents), then
// a checkpoint beside the target (`<target>.snapshot.json`) records the next page of each list.
// A run that finds an unfinished checkpoint for the same source resumes from it; a page met
// again after an interruption is upserted (records are keyed by id), so an interrupted and
// resumed snapshot ends with the same data as an uninterrupted one. Without the status-change
// search on the remote the snapshot goes on and says so in its summary. Optional references
// to records a snapshot does not copy (an asset's responsible group) are cleared and counted.
import fs from 'node:fs';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import type { SnapshotSummary } from '../../src-shared/schemas/transfer';
import { RemoteClient, RemoteError, type RemoteConfig } from '../instances/remote';
import { CancelledError, TransferError } from './errors';
import { removeDbFiles } from './import';
import { at, ImportSession } from './session';
import { planOf } from './validate';

export const PUBLIC_API = '/data/public/api/v1';
export const STATUS_SEARCH = '/cruddy/v2/service_asset_finding_status_changes/search';

/** The lists copied, in reference order (incidents point at finding types and assets). */
const LISTS = [
  { key: 'findings', path: 'findings', resource: 'findings' },
  { key: 'service_assets', path: 'serviceAssets', resource: 'service_assets' },
  { key: 'incidents', path: 'incidents', resource: 'service_asset_findings' },
] as const;

/** What a finished snapshot reports: the records it holds. */
const COUNTED = ['findings', 'service_assets', 'service_asset_findings', 'occurrences', 'service_asset_finding_status_changes'] as const;

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

/** The body of an answer, unwrapped from the routing port's envelope when there is one. */
function unwrap(status: number, body: unknown): { status: number; body: unknown } {
  if (Array.isArray(body) && body.length === 1 && isObject(body[0]) && 'data' in body[0] && 'status_code' in body[0]) {
    const env = body[0];
    return { status: typeof env.status_code === 'number' ? env.status_code : status, body: env.data };
  }
  return { status, body };
}

class Remote {
  readonly client: RemoteClient;
  constructor(
    cfg: SnapshotOptions['remote'],
    readonly label: string,
  ) {
    this.client = new RemoteClient({ timeoutMs: 60_000, maxBytes: 512 * 1024 * 1024, ...cfg });
  }

  async json(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    let res;
    try {
      res = await this.client.call(method, path, { 'content-type': 'application/json' }, body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
    } catch (e) {
      if (e instanceof RemoteError) throw new TransferError(`${this.label}${path}: ${e.message}`);
      throw e;
    }
    let parsed: unknown;
    const text = res.body.toString('utf8');
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    const out = unwrap(res.status, parsed);
    if (out.status === 401 || out.status === 403) throw new TransferError(`${this.label} refused the API key (HTTP ${out.status})`);
    return out;
  }
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
      pages: 0,
      counts: {},
      cleared_references: {},
      ignored_fields: {},
    };
  }
  const perPage = cp.per_page;
  const remote = new Remote(opts.remote, label);
  let session: ImportSession | undefined;
  try {
    session = new ImportSession(opts.target, { ignoreUnknown: true });
    session.clearedReferences = { ...cp.cleared_references };
    session.ignoredFields = { ...cp.ignored_fields };
    if (!resumed) writeCheckpoint(opts.target, cp);
    const statusPlan = planOf(getResource('service_asset_finding_status_changes'));
    for (const list of LISTS) {
      const st = (cp.lists[list.key] ??= { page: 1, total: null, done: false });
      const plan = planOf(getResource(list.resource));
      while (!st.done) {
        if (opts.signal?.aborted) throw new CancelledError();
        const path = `${PUBLIC_API}/${list.path}?page=${st.page}&per_page=${perPage}`;
        const res = await remote.json('GET', path);
        if (res.status !== 200) throw new TransferError(`${label}${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        const body = res.body;
        if (!isObject(body) || !Array.isArray(body.objects) || typeof body.total !== 'number') {
          throw new TransferError(`${label}${path}: expected {objects, total}, got ${JSON.stringify(body).slice(0, 200)}`);
        }
        const objects = body.objects as unknown[];
        let changes: Record<string, unknown>[] = [];
        if (list.key === 'incidents' && objects.length && !cp.status_changes.startsWith('unavailable')) {
          const ids = objects.filter(isObject).map((o) => o.id).filter((id): id is string => typeof id === 'string');
          const got = await statusChanges(remote, ids);
          if (typeof got === 'string') cp.status_changes = got;
          else changes = got;
        }
        session.begin();
        const file = `${label}${path}`;
        objects.forEach((o, i) => {
          if (!isObject(o)) throw new TransferError(`expected an object (a record)`, { file, record: `objects[${i}]` });
          session!.add(plan, o, at({ file, record: `objects[${i}]` }));
        });
        changes.forEach((o, i) => session!.add(statusPlan, o, at({ file: `${label}${STATUS_SEARCH}`, record: `items[${i}]` })));
        await session.commit({ signal: opts.signal });
        st.total = body.total;
        const seen = (st.page - 1) * perPage + objects.length;
        st.done = objects.length === 0 || seen >= body.total;
        st.page++;
        cp.pages++;
        for (const [name, c] of Object.entries(session.counts)) cp.counts[name] = (cp.counts[name] ?? 0) + c.inserted;
        session.counts = {};
        cp.cleared_references = session.clearedReferences;
        cp.ignored_fields = session.ignoredFields;
        writeCheckpoint(opts.target, cp);
        opts.onProgress?.({ phase: list.key, page: st.page - 1, records: Math.min(seen, body.total), total: body.total });
      }
    }
    cp.complete = true;
    cp.counts = {};
    for (const name of COUNTED) {
      cp.counts[name] = (session.db.prepare(`SELECT COUNT(*) AS n FROM "${getResource(name).table}"`).get() as { n: number }).n;
    }
    writeCheckpoint(opts.target, cp);
    session.db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (e) {
    session?.rollback();
    throw e;
  } finally {
    session?.close();
    await remote.client.close();
    if (!resumed && cp.pages === 0 && !cp.complete) {
      removeDbFiles(opts.target);
      fs.rmSync(checkpointFileOf(opts.target), { force: true });
    }
  }
  return {
    source,
    target: opts.target,
    resumed,
    pages: cp.pages,
    counts: cp.counts,
    status_changes: cp.status_changes,
    cleared_references: cp.cleared_references,
    ignored_fields: cp.ignored_fields,
    ms: Math.round(performance.now() - started),
  };
}

/** Status changes of the given incidents through the remote's v2 search, paged; a string when unavailable. */
async function statusChanges(remote: Remote, ids: string[]): Promise<Record<string, unknown>[] | string> {
  const out: Record<string, unknown>[] = [];
  const limit = 1000;
  for (let offset = 0; ; ) {
    const body = { ...emptySearch(limit, offset), filters: [{ field: 'service_asset_finding_id', filter_type: 'related', value: ids }] };
    const res = await remote.json('POST', STATUS_SEARCH, body);
    if (res.status === 404 || res.status === 405 || res.status === 501) {
      return `unavailable: ${STATUS_SEARCH} answered HTTP ${res.status} on ${remote.label}`;
    }
    if (res.status !== 200 || !isObject(res.body) || !Array.isArray(res.body.items)) {
      throw new TransferError(`${remote.label}${STATUS_SEARCH}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const items = res.body.items.filter(isObject);
    out.push(...items);
    offset += items.length;
    const total = typeof res.body.total === 'number' ? res.body.total : offset;
    if (!items.length || offset >= total) return out;
  }
}
