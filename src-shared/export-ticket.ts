// How long a download ticket of an export can be used after it was issued (the server's
// default; its limits can shorten or lengthen it).
export const EXPORT_TICKET_TTL_MS = 60_000;
