// Addresses and answers of an origin the snapshot and the sync read from.
export const PUBLIC_API = '/data/public/api/v1';
export const V2 = '/cruddy/v2';

/**
 * A list the snapshot copies from its origin and a pull keeps up to date: one record kind's, as its
 * module declares it (src-main/store/kinds: `sync.list`); the lists run in reference order
 * (incidents point at finding types and assets; status changes, messages and custom field values
 * at incidents).
 */
export interface OriginList {
  /** Key of the list in the snapshot's checkpoint and in sync_cursors. */
  key: string;
  resource: string;
  /** Position in reference order. */
  order: number;
  /** The public API list the snapshot pages through (with its nested records). */
  publicPath?: string;
  /** Copied by the snapshot for each page of incidents, through this reference. */
  relatedBy?: string;
  /** Relations a pull loads with each record (nested records, as the public list has them). */
  load?: readonly string[];
}

/**
 * Where the cursor of a list starts when the origin had nothing in it at the snapshot: before
 * any record (a timestamp every platform accepts in a filter; year 1 is not one).
 */
export const BEFORE_ANY = '1970-01-01T00:00:00.000000Z';

export const searchPath = (resource: string): string => `${V2}/${resource}/search`;

/** Answers of a remote that has no such operation: the list is skipped and the summary says so. */
export const UNAVAILABLE = new Set([404, 405, 501]);
