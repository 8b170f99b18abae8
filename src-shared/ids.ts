// Identifiers every layer checks, without any schema: the command line reads these to check its
// flags before any schema is built.

/** Identifiers are UUID-shaped strings (8-4-4-4-12 hex); any version is accepted. */
export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v);

/** The local analyst's uuid: Pgr-User-Id of the console and the subject of `token` by default. */
export const LOCAL_USER_ID = '00000000-0000-4000-8000-000000000001';
