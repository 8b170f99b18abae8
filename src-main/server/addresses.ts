// Paths other layers name without loading the server (the command line's `api --instance`).

/** The routing port's behaviour on the main origin (for the console page and `api --instance`). */
export const ROUTE_PREFIX = '/console/v1/route';
