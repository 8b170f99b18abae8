// Service discovery by TCP connect: every (address, port) pair is tried in parallel, a bounded
// number at a time, each with its own time-out, the whole scan within a time budget.
import net from 'node:net';

export type PortState = 'open' | 'closed' | 'filtered' | 'skipped';

export interface ProbeOptions {
  ports: readonly number[];
  /** Per-connection time-out. */
  timeoutMs: number;
  /** Time budget of the whole scan; pairs not tried by then are `skipped`. */
  budgetMs: number;
  /** Connections in flight at once. */
  concurrency: number;
}

export const DEFAULT_SCAN_PORTS: readonly number[] = [
  21, 22, 23, 25, 53, 80, 110, 111, 135, 139, 143, 389, 443, 445, 465, 514, 587, 636, 993, 995, 1433, 1521, 2049, 3306, 3389,
  5432, 5900, 5985, 6379, 8080, 8443, 9000, 9200, 27017,
];

export const SERVICE_NAMES: Readonly<Record<number, string>> = {
  21: 'ftp', 22: 'ssh', 23: 'telnet', 25: 'smtp', 53: 'domain', 80: 'http', 110: 'pop3', 111: 'rpcbind', 135: 'msrpc',
  139: 'netbios-ssn', 143: 'imap', 389: 'ldap', 443: 'https', 445: 'microsoft-ds', 465: 'smtps', 514: 'shell', 587: 'submission',
  636: 'ldaps', 993: 'imaps', 995: 'pop3s', 1433: 'ms-sql-s', 1521: 'oracle', 2049: 'nfs', 3306: 'mysql', 3389: 'ms-wbt-server',
  5432: 'postgresql', 5900: 'vnc', 5985: 'wsman', 6379: 'redis', 8080: 'http-proxy', 8443: 'https-alt', 9000: 'cslistener',
  9200: 'elasticsearch', 27017: 'mongodb',
};

export function probePort(host: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<PortState> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve('skipped');
    const socket = net.connect({ host, port });
    let done = false;
    const finish = (state: PortState) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(state);
    };
    const onAbort = () => finish('filtered');
    const timer = setTimeout(() => finish('filtered'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish('open'));
    socket.once('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNREFUSED' ? 'closed' : 'filtered'));
  });
}

/** Probes every address on every port; answers the state of each pair, keyed `host|port`. */
export async function probeAll(hosts: readonly string[], opts: ProbeOptions): Promise<Map<string, PortState>> {
  const pairs = hosts.flatMap((h) => opts.ports.map((p) => [h, p] as const));
  const out = new Map<string, PortState>();
  const ctl = new AbortController();
  const budget = setTimeout(() => ctl.abort(), opts.budgetMs);
  let next = 0;
  const worker = async () => {
    while (next < pairs.length) {
      const [h, p] = pairs[next++]!;
      out.set(`${h}|${p}`, ctl.signal.aborted ? 'skipped' : await probePort(h, p, opts.timeoutMs, ctl.signal));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, pairs.length) }, worker));
  } finally {
    clearTimeout(budget);
  }
  return out;
}
