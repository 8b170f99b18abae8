// What the long commands (import, export, snapshot) share: a progress bar on stderr when it is a
// terminal, Ctrl-C as cancellation, and the way a refused or cancelled transfer is reported.
import type cliProgress from 'cli-progress';
import { CancelledError, TransferError } from '../transfer/errors';
import { CliError, EXIT } from './errors';

export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
export const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The progress bar on a terminal; nothing otherwise (the summary line is printed anyway). */
export class Progress {
  private bar: cliProgress.SingleBar | null = null;
  private readonly t0 = performance.now();

  /** The bar's library, loaded on a terminal only (the first updates before it is loaded draw nothing). */
  private lib: typeof cliProgress | null = null;
  private readonly loading: Promise<unknown> | null = null;

  constructor(private readonly unit: string) {
    if (process.stderr.isTTY) this.loading = import('cli-progress').then((m) => (this.lib = (m as { default?: typeof cliProgress }).default ?? m));
  }

  /** Resolves once the bar can draw (for work that runs to its end without yielding). */
  async ready(): Promise<void> {
    await this.loading;
  }

  update(value: number, total: number, count: number, phase: string): void {
    const lib = this.lib;
    if (!process.stderr.isTTY || !lib) return;
    const rate = count / Math.max(0.001, (performance.now() - this.t0) / 1000);
    const payload = { phase: phase.padEnd(10), count: fmt(count), rate: fmt(rate), unit: this.unit };
    if (!this.bar) {
      this.bar = new lib.SingleBar(
        {
          stream: process.stderr,
          format: '{phase} [{bar}] {percentage}% | {count} {unit} | {rate} {unit}/s | ETA {eta_formatted}',
          hideCursor: true,
          etaBuffer: 40,
          fps: 5,
          barsize: 30,
        },
        lib.Presets.shades_classic,
      );
      this.bar.start(Math.max(total, 1), Math.min(value, total), payload);
      return;
    }
    this.bar.setTotal(Math.max(total, 1));
    this.bar.update(Math.min(value, total), payload);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

/** Runs `fn` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts. */
export async function cancellable<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await fn(controller.signal);
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
}

/** A cancelled transfer exits 130, a refused one 1; anything else is not a transfer's failure. */
export function transferFailure(e: unknown, what: string, cancelledNote = ''): CliError {
  if (e instanceof CancelledError) return new CliError(`${what} cancelled${cancelledNote}`, EXIT.cancelled);
  if (e instanceof TransferError) return new CliError(`${what} refused: ${e.message}`);
  throw e;
}
