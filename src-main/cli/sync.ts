// `radar-console sync status|push|pull|resolve|discard`: a snapshot's changes back to its origin
// and the origin's changes into the snapshot, for scripts (--json, exit codes) and people (a
// progress bar, one summary line).
import { ApiError } from '../../src-shared/errors';
import { RESOLUTIONS, type OutboxEntry, type PullSummary, type PushSummary, type SyncCounts } from '../../src-shared/schemas/sync';
import { countOf, counts, rowsOf, views } from '../sync/entries';
import { SyncError } from '../sync/errors';
import { hasOriginKey } from '../sync/origin';
import { pull } from '../sync/pull';
import { push } from '../sync/push';
import { discard, resolve } from '../sync/resolve';
import { openSnapshot, type SyncTarget } from '../sync/target';
import { intFlag, parse, UsageError } from './args';
import { cancellable, localFile, Progress } from './transfer';

export const SYNC_USAGE = `  sync      a snapshot's changes back to its platform, and the platform's changes into it
              status | push | pull | resolve | discard
              --db FILE            the snapshot database; or --instance ID|NAME, a local instance of the main database --db
              --json               print the result as JSON on stdout (entries, summary)
              status   [--state pending|sending|conflict|failed] [--limit N]   counts and the entries waiting
              push     [--dry-run] [--entries 1,2,3] [--concurrency N]        replay the changes on the origin
                       (--dry-run prints the requests that would be sent and changes nothing)
              pull                                                       bring the origin's changes
              resolve  --entries 1,2,3 --take mine|theirs|edit [--value JSON]   settle conflicts
              discard  (--entries 1,2,3 | --all) [--keep-local]          drop entries (records put back as copied unless --keep-local)
            exit codes: 0 done, nothing left but pending changes; 1 stopped (origin unreachable, key refused,
              cancelled: nothing lost, run it again); 2 bad flags or not a snapshot; 3 another push or pull of
              this snapshot is running; 4 conflicts left; 8 failed changes left; 12 both
`;

const COMMON = { db: { type: 'string' }, instance: { type: 'string' }, json: { type: 'boolean' } } as const;

/** 0, or 4 when conflicts are left, 8 when failed entries are, 12 for both. */
export function leftCode(c: SyncCounts): number {
  return (c.conflict ? 4 : 0) + (c.failed ? 8 : 0);
}

function seqList(v: string | undefined): number[] | undefined {
  if (v === undefined) return undefined;
  const parts = v.split(',').map((s) => s.trim());
  if (!parts.length || parts.some((p) => !/^\d+$/.test(p))) throw new UsageError(`--entries must be entry numbers separated by commas, got "${v}"`);
  return parts.map(Number);
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? 'null' : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

function entryLine(e: OutboxEntry): string {
  const what = e.op === 'update' ? `${e.field}: ${show(e.before)} -> ${show(e.after)}` : e.op;
  const extra = e.state === 'conflict' ? ` (theirs: ${show(e.theirs)})` : e.state === 'failed' ? ` (${e.error})` : '';
  return `  #${e.seq} ${e.state.padEnd(8)} ${e.resource} ${e.record_id}${e.label ? ` "${e.label}"` : ''} ${what}${extra}`;
}

const countLine = (c: SyncCounts): string => `${c.pending} pending, ${c.sending} unconfirmed, ${c.conflict} conflicts, ${c.failed} failed (${c.records} records)`;

function out(json: boolean, value: unknown): void {
  if (json) process.stdout.write(`${JSON.stringify(value)}\n`);
}

function withTarget<T>(v: Record<string, unknown>, fn: (t: SyncTarget) => Promise<T>): Promise<T> {
  const t = openSnapshot(localFile(v));
  return fn(t).finally(() => t.close());
}

async function status(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON, state: { type: 'string' }, limit: { type: 'string' } });
  const v = values as Record<string, string | boolean | undefined>;
  const state = v.state as string | undefined;
  if (state !== undefined && !['pending', 'sending', 'conflict', 'failed'].includes(state)) throw new UsageError(`--state must be pending, sending, conflict or failed, got "${state}"`);
  const limit = intFlag('limit', v.limit as string | undefined, 1, 100_000) ?? 50;
  return withTarget(v, async (t) => {
    const o = t.origin();
    const c = counts(t.db);
    const items = views(t.db, rowsOf(t.db, { state, limit }));
    if (v.json) {
      out(true, {
        origin: { url: o.url, remote_instance_id: o.remote_instance_id, snapshot_at: o.snapshot_at, pulled_at: o.pulled_at, pushed_at: o.pushed_at, has_key: hasOriginKey(o) },
        counts: c,
        entries: items,
        total: countOf(t.db, { state }),
      });
    } else {
      process.stdout.write(`${t.file}: a snapshot of ${o.url} (taken ${o.snapshot_at}; last pull ${o.pulled_at ?? 'never'}; last push ${o.pushed_at ?? 'never'})\n`);
      process.stdout.write(`${c.total ? countLine(c) : 'no changes waiting'}\n`);
      for (const e of items) process.stdout.write(`${entryLine(e)}\n`);
      const more = countOf(t.db, { state }) - items.length;
      if (more > 0) process.stdout.write(`  ... and ${more} more (--limit N)\n`);
    }
    return leftCode(c);
  });
}

async function pushCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON, 'dry-run': { type: 'boolean' }, entries: { type: 'string' }, concurrency: { type: 'string' } });
  const v = values as Record<string, string | boolean | undefined>;
  const entries = seqList(v.entries as string | undefined);
  const concurrency = intFlag('concurrency', v.concurrency as string | undefined, 1, 64);
  return withTarget(v, async (t) => {
    const bar = new Progress('changes');
    let summary: PushSummary;
    try {
      summary = await cancellable((signal) =>
        push(t, { dryRun: !!v['dry-run'], entries, concurrency, signal, onProgress: (p) => bar.update(p.done, p.total, p.done, p.phase) }),
      );
    } finally {
      bar.stop();
    }
    out(!!v.json, summary);
    const o = t.origin();
    if (summary.dry_run) {
      if (!v.json) {
        process.stdout.write(`would send ${summary.would_send.length} requests to ${o.url}:\n`);
        for (const r of summary.would_send) process.stdout.write(`  ${r.method} ${r.path}${r.body ? ` ${JSON.stringify(r.body)}` : ''}  (entries ${r.entries.join(', ')})\n`);
      }
      process.stderr.write(`radar-console: dry run: ${summary.would_send.length} requests would be sent; ${summary.already} changes already on the origin, ${summary.conflicts} conflicts, ${summary.failed} would fail; nothing was sent or changed\n`);
      return 0;
    }
    process.stderr.write(
      `radar-console: push to ${o.url}: ${summary.pushed} changes pushed (${summary.requests} requests, ${summary.already} already there), ${summary.conflicts} conflicts, ${summary.failed} failed in ${(summary.ms / 1000).toFixed(1)} s; left: ${countLine(summary.left)}\n`,
    );
    if (summary.stopped) {
      process.stderr.write(`radar-console: push stopped: ${summary.stopped}; nothing is lost, run it again\n`);
      return 1;
    }
    return leftCode(summary.left);
  });
}

async function pullCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON });
  const v = values as Record<string, string | boolean | undefined>;
  return withTarget(v, async (t) => {
    const bar = new Progress('records');
    let summary: PullSummary;
    try {
      summary = await cancellable((signal) => pull(t, { signal, onProgress: (p) => bar.update(p.done, p.total ?? p.done, p.done, p.phase) }));
    } finally {
      bar.stop();
    }
    out(!!v.json, summary);
    const lists = Object.entries(summary.lists)
      .filter(([, c]) => c.received || c.deleted || c.kept)
      .map(([k, c]) => `${k} ${c.inserted} new, ${c.updated} changed${c.deleted ? `, ${c.deleted} deleted` : ''}${c.kept ? `, ${c.kept} deleted there but kept` : ''}`);
    process.stderr.write(
      `radar-console: pull from ${t.origin().url}: ${summary.received} records received${lists.length ? ` (${lists.join('; ')})` : ''}, ${summary.conflicts} new conflicts in ${(summary.ms / 1000).toFixed(1)} s; left: ${countLine(summary.left)}\n`,
    );
    for (const n of summary.notes) process.stderr.write(`radar-console: ${n}\n`);
    if (summary.stopped) {
      process.stderr.write(`radar-console: pull stopped: ${summary.stopped}; what was received is kept, run it again\n`);
      return 1;
    }
    return leftCode(summary.left);
  });
}

async function resolveCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON, entries: { type: 'string' }, take: { type: 'string' }, value: { type: 'string' } });
  const v = values as Record<string, string | boolean | undefined>;
  const entries = seqList(v.entries as string | undefined);
  if (!entries) throw new UsageError('resolve needs --entries N[,N...]');
  const take = v.take as (typeof RESOLUTIONS)[number] | undefined;
  if (!take || !RESOLUTIONS.includes(take)) throw new UsageError('resolve needs --take mine, theirs or edit');
  let value: unknown;
  if (take === 'edit') {
    if (v.value === undefined || entries.length !== 1) throw new UsageError('--take edit needs one entry and --value JSON');
    try {
      value = JSON.parse(v.value as string);
    } catch {
      throw new UsageError(`--value must be JSON (a string in quotes: '"closed"'), got ${v.value as string}`);
    }
  }
  return withTarget(v, async (t) => {
    const res = await resolve(t, { entries, take, ...(take === 'edit' ? { value } : {}) });
    out(!!v.json, res);
    process.stderr.write(`radar-console: ${res.resolved} conflicts resolved (${take}); left: ${countLine(res.left)}\n`);
    if (res.note) process.stderr.write(`radar-console: ${res.note}\n`);
    return leftCode(res.left);
  });
}

async function discardCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON, entries: { type: 'string' }, all: { type: 'boolean' }, 'keep-local': { type: 'boolean' } });
  const v = values as Record<string, string | boolean | undefined>;
  const entries = seqList(v.entries as string | undefined);
  if (!entries === !v.all) throw new UsageError('discard needs --entries N[,N...] or --all');
  return withTarget(v, async (t) => {
    const res = discard(t, { entries, revert: !v['keep-local'] });
    out(!!v.json, res);
    process.stderr.write(`radar-console: ${res.discarded} entries discarded, ${res.reverted} records put back as copied; left: ${countLine(res.left)}\n`);
    return leftCode(res.left);
  });
}

export async function syncCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    switch (sub) {
      case 'status':
        return await status(rest);
      case 'push':
        return await pushCommand(rest);
      case 'pull':
        return await pullCommand(rest);
      case 'resolve':
        return await resolveCommand(rest);
      case 'discard':
        return await discardCommand(rest);
      default:
        throw new UsageError(sub === undefined ? 'sync needs status, push, pull, resolve or discard' : `unknown sync command "${sub}"`);
    }
  } catch (e) {
    if (e instanceof SyncError) {
      process.stderr.write(`radar-console: ${e.message}\n`);
      return e.kind;
    }
    if (e instanceof ApiError && e.status === 400) {
      process.stderr.write(`radar-console: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
