// A rule query against the database's software (the rule workbench's matches as you type): every
// software record's vector from the in-memory index, the matching records counted and one page
// of them read. The matching records of the last few queries are kept while the data stays the
// same, so paging through them matches nothing again.
import { badRequest } from '../../../src-shared/errors';
import type { MatchRequest } from '../../../src-shared/schemas/compliance';
import {
  compileTsQuery,
  EMPTY_TSVECTOR,
  parseTsVector,
  softwareVector,
  type TsQuery,
  toTsQuery,
  toTsVector,
  tsqueryToString,
  tsvectorToString,
} from '../../../src-shared/textsearch';
import type { Store } from '../store';
import { softwareById, softwareByRid } from './reads';
import type { SoftwareIndex } from './software-index';

export const DEFAULT_MATCH_PAGE = 50;
const KEPT = 8;

/** The query read as PostgreSQL reads it, or 400 with PostgreSQL's message and the position. */
export function queryOrRefuse(text: string, field = 'query'): TsQuery {
  const r = toTsQuery(text);
  if (!r.ok) throw badRequest(`${field}: invalid query at position ${r.error.position}: ${r.error.message} (${r.error.reason})`);
  return r.query;
}

/** Matches the listed texts, tsvector texts or software records (one list). */
export function matchList(store: Store, req: MatchRequest): { tsquery: string; matches: boolean[] } {
  const query = queryOrRefuse(req.query);
  const compiled = compileTsQuery(query);
  const tsquery = tsqueryToString(query);
  if (req.texts) return { tsquery, matches: req.texts.map((t, i) => compiled.matches(vectorOr400(() => toTsVector(t), `texts.${i}`))) };
  if (req.tsvectors) return { tsquery, matches: req.tsvectors.map((t, i) => compiled.matches(vectorOr400(() => parseTsVector(t), `tsvectors.${i}`))) };
  const ids = (req.software_ids ?? []).map((s) => s.toLowerCase());
  const rows = softwareById(store, ids);
  const unknown = ids.filter((id) => !rows.has(id));
  if (unknown.length) throw badRequest(`software_ids: no software ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}`);
  // A record whose stored tsvector PostgreSQL would refuse matches nothing.
  const vectorOf = (id: string) => {
    try {
      return softwareVector(rows.get(id)!);
    } catch {
      return EMPTY_TSVECTOR;
    }
  };
  return { tsquery, matches: ids.map((id) => compiled.matches(vectorOf(id))) };
}

function vectorOr400<T>(make: () => T, field: string): T {
  try {
    return make();
  } catch (e) {
    throw badRequest(`${field}: ${(e as Error).message}`);
  }
}

const kept = new WeakMap<SoftwareIndex, Map<string, Int32Array>>();

/** The software _rids the query matches, ascending (kept for the index's current data). */
export function matchingRids(index: SoftwareIndex, query: TsQuery): Int32Array {
  const key = `${index.generation}|${tsqueryToString(query)}`;
  let cache = kept.get(index);
  if (!cache) kept.set(index, (cache = new Map()));
  const have = cache.get(key);
  if (have) {
    cache.delete(key);
    cache.set(key, have);
    return have;
  }
  const rids = index.ridsOf(compileTsQuery(query).bind(index.vectors).matching());
  cache.set(key, rids);
  if (cache.size > KEPT) cache.delete(cache.keys().next().value!);
  return rids;
}

/** The database's software the query matches: the count and one page. */
export function matchPage(store: Store, index: SoftwareIndex, text: string, limit = DEFAULT_MATCH_PAGE, offset = 0) {
  const query = queryOrRefuse(text);
  const t0 = performance.now();
  const rids = matchingRids(index, query);
  const took = performance.now() - t0;
  const rows = softwareByRid(store, rids.subarray(offset, offset + limit));
  return {
    tsquery: tsqueryToString(query),
    total: rids.length,
    software_total: index.live,
    unreadable: index.unreadable,
    limit,
    offset,
    items: rows.map((r) => {
      const stored = r.tsvector != null && r.tsvector !== '';
      const rec = index.recordOfRid(r.rid);
      return {
        id: r.id,
        name: r.name,
        version: r.version,
        tsvector: rec >= 0 ? tsvectorToString(index.vectors.get(rec)) : '',
        stored_tsvector: stored,
        asset_count: r.asset_count,
      };
    }),
    took_ms: Math.round(took * 10) / 10,
  };
}
