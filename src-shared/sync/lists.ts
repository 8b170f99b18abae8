import { K } from '../resources/kinds';
// The records a snapshot copies from its origin and a pull keeps up to date, in reference order
// (incidents point at finding types and assets; status changes, messages and custom field
// values at incidents).
export const PUBLIC_API = '/data/public/api/v1';
export const V2 = '/cruddy/v2';

export interface OriginList {
  /** Key of the list in the snapshot's checkpoint and in sync_cursors. */
  key: string;
  resource: string;
  /** The public API list the snapshot pages through (with its nested records). */
  publicPath?: string;
  /** Copied by the snapshot for each page of incidents, through this reference. */
  relatedBy?: string;
  /** Relations a pull loads with each record (nested records, as the public list has them). */
  load?: readonly string[];
}

export const ORIGIN_LISTS: readonly OriginList[] = [
  { key: K.finding, resource: K.finding, publicPath: 'findings' },
  { key: K.serviceAsset, resource: K.serviceAsset, publicPath: 'serviceAssets' },
  { key: K.customField, resource: K.customField },
  { key: 'incidents', resource: K.incident, publicPath: 'incidents', load: [K.occurrence] },
  { key: 'status_changes', resource: K.statusChange, relatedBy: 'service_asset_finding_id' },
  { key: K.message, resource: K.message, relatedBy: 'service_asset_finding_id' },
  { key: K.customFieldValue, resource: K.customFieldValue, relatedBy: 'service_asset_finding_id' },
];

/**
 * Where the cursor of a list starts when the origin had nothing in it at the snapshot: before
 * any record (a timestamp every platform accepts in a filter; year 1 is not one).
 */
export const BEFORE_ANY = '1970-01-01T00:00:00.000000Z';

export const searchPath = (resource: string): string => `${V2}/${resource}/search`;

/** Answers of a remote that has no such operation: the list is skipped and the summary says so. */
export const UNAVAILABLE = new Set([404, 405, 501]);
