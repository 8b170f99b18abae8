// Reading the origin for push and pull: records by id, records changed since a time (oldest
// first), and the ids a list holds. The v2 search is used where the origin has it (only the
// fields needed); finding types, assets and incidents fall back to the public API's lists.
import { emptySearch } from '../../src-shared/schemas/search';
import { microsToTs, normalizeTs } from '../../src-shared/time';
import { callJson, errorText, type JsonAnswer } from '../instances/remote-json';
import { RemoteError, type RemoteClient } from '../instances/remote';
import { SyncError } from './errors';
import { PUBLIC_API, searchPath, UNAVAILABLE } from '../../src-shared/sync/lists';
import { originListOf } from '../store/kinds/index';

export type Rec = Record<string, unknown>;

const isObject = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The pause before a read whose connection failed is tried again. */
const READ_RETRY_MS = 250;

/** Ids per GET of a public list (the query string stays well under 16 KiB). */
const IDS_PER_GET = 150;

const microsOf = (ts: string): number => {
  const n = normalizeTs(ts) ?? ts;
  return Date.parse(`${n.slice(0, 23)}Z`) * 1000 + Number(n.slice(23, 26));
};

/** One microsecond before a stored timestamp (a public `gt` filter that includes it). */
export const justBefore = (ts: string): string => microsToTs(microsOf(ts) - 1);

/** One microsecond after a stored timestamp. */
export const justAfter = (ts: string): string => microsToTs(microsOf(ts) + 1);

export class OriginApi {
  /** Per resource: whether the origin has its v2 search (learnt on first use). */
  private readonly search = new Map<string, boolean>();

  constructor(
    readonly client: RemoteClient,
    readonly url: string,
  ) {}

  /**
   * A call to the origin; no answer, or the key refused, stops the run with a clear message. A
   * read whose connection failed (a kept-alive connection the origin closed as it was reused) is
   * tried once more; a write never is (it may have arrived: the next push checks it first).
   */
  async call(method: string, path: string, body?: unknown): Promise<JsonAnswer> {
    let res: JsonAnswer;
    try {
      try {
        res = await callJson(this.client, method, path, body);
      } catch (e) {
        const read = method === 'GET' || path.split('?')[0]!.endsWith('/search');
        if (!(read && e instanceof RemoteError && e.status === 502)) throw e;
        await new Promise((r) => setTimeout(r, READ_RETRY_MS));
        res = await callJson(this.client, method, path, body);
      }
    } catch (e) {
      if (e instanceof RemoteError) {
        const msg = e.status === 504 ? `the origin ${this.url} did not answer ${method} ${path}: ${e.message}` : `the origin ${this.url} is unreachable: ${e.message}`;
        throw new SyncError(msg, 1, e.status, true);
      }
      throw e;
    }
    if (res.status === 401 || res.status === 403) throw new SyncError(`the origin ${this.url} refused the key (${errorText(res)})`);
    return res;
  }

  private fail(method: string, path: string, res: JsonAnswer): never {
    throw new SyncError(`the origin ${this.url} answered ${method} ${path} with ${errorText(res)}`);
  }

  private publicPath(resource: string): string | undefined {
    return originListOf(resource)?.publicPath;
  }

  /** A v2 search; null when the origin has none for this resource. */
  private async searchItems(resource: string, body: Rec): Promise<{ items: Rec[]; total: number } | null> {
    if (this.search.get(resource) === false) return null;
    const path = searchPath(resource);
    const res = await this.call('POST', path, { ...emptySearch(0, 0), ...body });
    if (UNAVAILABLE.has(res.status)) {
      this.search.set(resource, false);
      return null;
    }
    if (res.status !== 200 || !isObject(res.body) || !Array.isArray(res.body.items)) this.fail('POST', path, res);
    this.search.set(resource, true);
    const b = res.body as { items: unknown[]; total?: unknown };
    return { items: b.items.filter(isObject), total: typeof b.total === 'number' ? b.total : b.items.length };
  }

  private async publicList(path: string): Promise<Rec[]> {
    const res = await this.call('GET', path);
    if (res.status !== 200 || !isObject(res.body) || !Array.isArray(res.body.objects)) this.fail('GET', path, res);
    return (res.body.objects as unknown[]).filter(isObject);
  }

  private unavailable(resource: string, what: string): never {
    throw new SyncError(`the origin ${this.url} has no way to ${what} ${resource} (no v2 search, no public list)`);
  }

  /** The origin's records with these ids (absent ones are not in the map). */
  async byIds(resource: string, ids: readonly string[], fields: readonly string[], relations: readonly string[] = []): Promise<Map<string, Rec>> {
    const out = new Map<string, Rec>();
    if (!ids.length) return out;
    const include = fields.length ? [...new Set(['id', 'updated_at', ...fields])] : [];
    const got = await this.searchItems(resource, {
      filters: [{ field: 'id', filter_type: 'intersection', value: ids }],
      include_fields: include,
      ...(relations.length ? { _relations: [...relations] } : {}),
      limit: ids.length,
    });
    if (got) {
      for (const rec of got.items) if (typeof rec.id === 'string') out.set(rec.id.toLowerCase(), rec);
      return out;
    }
    const list = this.publicPath(resource);
    if (!list) this.unavailable(resource, 'read');
    for (let i = 0; i < ids.length; i += IDS_PER_GET) {
      const chunk = ids.slice(i, i + IDS_PER_GET);
      for (const rec of await this.publicList(`${PUBLIC_API}/${list}?id=in,${chunk.join(',')}&per_page=${chunk.length}`)) {
        if (typeof rec.id === 'string') out.set(rec.id.toLowerCase(), rec);
      }
    }
    return out;
  }

  /** Up to `limit` records changed at or after `from`, oldest first (then by id), and how many there are. */
  async changedSince(resource: string, from: string, limit: number, load: readonly string[] = []): Promise<{ items: Rec[]; total: number | null }> {
    const got = await this.searchItems(resource, {
      filters: [{ field: 'updated_at', filter_type: 'range', value: [from, null] }],
      ordering: [
        { field: 'updated_at', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ],
      relations: [...load],
      limit,
    });
    if (got) return got;
    const list = this.publicPath(resource);
    if (!list) this.unavailable(resource, 'pull');
    const path = `${PUBLIC_API}/${list}?updated_at=gt,${encodeURIComponent(justBefore(from))}&order=updated_at,id&per_page=${limit}`;
    const res = await this.call('GET', path);
    if (res.status !== 200 || !isObject(res.body) || !Array.isArray(res.body.objects)) this.fail('GET', path, res);
    const b = res.body as { objects: unknown[]; total?: unknown };
    return { items: b.objects.filter(isObject), total: typeof b.total === 'number' ? b.total : null };
  }

  /** Records pointing at these ids through `fk` (an incident's messages, ...); null without a v2 search. */
  async byRelated(resource: string, fk: string, ids: readonly string[]): Promise<Rec[] | null> {
    const out: Rec[] = [];
    const limit = 1000;
    for (let offset = 0; ; ) {
      const got = await this.searchItems(resource, { filters: [{ field: fk, filter_type: 'related', value: ids }], limit, offset });
      if (!got) return null;
      out.push(...got.items);
      offset += got.items.length;
      if (!got.items.length || offset >= got.total) return out;
    }
  }

  /** Records changed exactly at `at`, by id, a page at a time (many records of one instant). */
  async changedAt(resource: string, at: string, offset: number, limit: number, load: readonly string[] = []): Promise<Rec[]> {
    const got = await this.searchItems(resource, {
      filters: [{ field: 'updated_at', filter_type: 'equal', value: at }],
      ordering: [{ field: 'id', direction: 'asc' }],
      relations: [...load],
      limit,
      offset,
    });
    if (got) return got.items;
    const list = this.publicPath(resource);
    if (!list) this.unavailable(resource, 'pull');
    return this.publicList(`${PUBLIC_API}/${list}?updated_at=eq,${encodeURIComponent(at)}&order=id&per_page=${limit}&page=${Math.floor(offset / limit) + 1}`);
  }

  /** A page of the ids a list holds (by id); null when the origin has no v2 search for it. */
  async ids(resource: string, offset: number, limit: number): Promise<string[] | null> {
    const got = await this.searchItems(resource, { include_fields: ['id'], ordering: [{ field: 'id', direction: 'asc' }], limit, offset });
    if (!got) return null;
    return got.items.map((x) => x.id).filter((x): x is string => typeof x === 'string').map((x) => x.toLowerCase());
  }
}
