// Paths other layers name without loading the server (the command line's `api --instance`).

/** The routing port's behaviour on the main origin (for the console page and `api --instance`). */
export const ROUTE_PREFIX = '/console/v1/route';

/**
 * The console's address that signs in at once: the key in the fragment (never sent to a server;
 * the page drops it from the address bar when it reads it).
 */
export const consoleAddress = (main: string, apiKey: string): string => `${main}/#key=${encodeURIComponent(apiKey)}`;
