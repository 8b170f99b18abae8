import type { Reads } from '../store/reader/pool';
import type { Store } from '../store/store';

/** What API routes need; `store` is a function so the instance can be chosen per app. */
export interface ApiDeps {
  store: () => Store;
  /** Searches, lists and stats of the same database, run by reader threads (or here). */
  reads: () => Reads;
  /** Ports the service scan probes, and its time budget. */
  scan: { ports: readonly number[]; timeoutMs: number; budgetMs: number; concurrency: number };
  /** Platform version this server reports. */
  version: string;
  /** The master host's instance list (GET /tenancy/instance/list). */
  instanceList: () => { id: string; name: string; url: string; sort_order: number }[];
}
