// A request as text: JSON, the URL, and a curl command (with the real base URL; the key as an
// environment variable unless the user asks for it in clear).
export const KEY_VARIABLE = 'RADAR_API_KEY';

/** Quotes a string for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface CurlOptions {
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  /** PgrSelectedInstance, when the call goes through the routing port. */
  instanceId?: string;
  /** The key itself; without it the command reads $RADAR_API_KEY. */
  apiKey?: string | null;
}

export function curlCommand(o: CurlOptions): string {
  const lines = [`curl -sS${o.method === 'POST' ? ' -X POST' : ''} ${shellQuote(o.url)}`];
  lines.push(o.apiKey ? `-H ${shellQuote(`PgrApiKey: ${o.apiKey}`)}` : `-H "PgrApiKey: $${KEY_VARIABLE}"`);
  if (o.instanceId) lines.push(`-H ${shellQuote(`PgrSelectedInstance: ${o.instanceId}`)}`);
  if (o.method === 'POST') {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`--data-raw ${shellQuote(JSON.stringify(o.body))}`);
  }
  return lines.join(' \\\n  ');
}

/** Copies text, with the legacy path where the clipboard API is refused. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    if (!ok) throw new Error('copy refused');
  }
}
