// The Host names this server answers to (DNS rebinding): the loopback ones and those it is
// configured for. A light module: the port's own answers (console-files.ts) check it before the
// app and its security hooks (security.ts) are loaded.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The host part of a Host header value (IPv6 brackets kept off). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

export function isAllowedHost(header: string | undefined, extra: readonly string[] = []): boolean {
  if (header === undefined) return true; // not a browser: HTTP/1.1 browsers always send Host
  const name = hostName(header);
  if (name.endsWith('.localhost') || LOOPBACK.has(name)) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(name)) return true;
  return extra.some((h) => h.toLowerCase() === name);
}
