// `radar-console sync status|push|pull|resolve|discard`: a snapshot's changes back to its origin
// and the origin's changes into the snapshot, for scripts (--json, exit codes) and people (a
// progress bar, one summary line).
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { ApiError } from '../../src-shared/errors';
import { ENTRY_STATES, RESOLUTIONS } from '../../src-shared/choices';
import type { OutboxEntry, PullSummary, PushSummary, SyncCounts } from '../../src-shared/schemas/sync';
import type { SyncTarget } from '../sync/target';
import { CliError, EXIT, UsageError } from './errors';
import { intIn } from './options';
import { cancellable, fmt, Progress, secs } from './progress';
import { localTarget } from './target';

/** Exit codes of `sync` besides the common ones (0, 1, 2, 130). */
export const SYNC_EXIT = { busy: 3, conflicts: 4, failed: 8 } as const;

const EXIT_HELP = `
Exit codes: 0 done (nothing left but changes still to push; \`status\` only reports, and exits 0
whatever is left unless --check); 1 stopped or refused (the origin unreachable, silent, answering
5xx or refusing the key, not a snapshot: nothing is lost, run it again); 2 usage error;
3 another push or pull of this snapshot is running; 4 conflicts left; 8 failed changes left;
12 both; 130 cancelled (Ctrl-C).`;

/** 0, or 4 when conflicts are left, 8 when failed entries are, 12 for both. */
export function leftCode(c: SyncCounts): number {
  return (c.conflict ? SYNC_EXIT.conflicts : 0) + (c.failed ? SYNC_EXIT.failed : 0);
}

const seqList = (v: string): number[] => {
  const parts = v.split(',').map((s) => s.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) throw new InvalidArgumentError('It must be entry numbers separated by commas (as `sync status` shows them).');
  return parts.map(Number);
};

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? 'null' : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

function entryLine(e: OutboxEntry): string {
  const what = e.op === 'update' ? `${e.field}: ${show(e.before)} -> ${show(e.after)}` : e.op;
  const extra = e.state === 'conflict' ? ` (theirs: ${show(e.theirs)})` : e.state === 'failed' ? ` (${e.error})` : '';
  return `  #${e.seq} ${e.state.padEnd(8)} ${e.resource} ${e.record_id}${e.label ? ` "${e.label}"` : ''} ${what}${extra}`;
}

const countLine = (c: SyncCounts): string => `${fmt(c.pending)} pending, ${fmt(c.sending)} unconfirmed, ${fmt(c.conflict)} conflicts, ${fmt(c.failed)} failed (${fmt(c.records)} records)`;

/** Ends the command with the exit code of what is left (no message: the summary said it). */
function exitWith(code: number): void {
  if (code) throw new CliError('', code);
}

type SyncLib = typeof import('./sync-lib');

/** Opens the snapshot of --db or --instance, runs fn, closes it; sync's failures as exit codes. */
async function withSnapshot(opts: { db?: string; instance?: string }, fn: (t: SyncTarget, lib: SyncLib) => Promise<void>): Promise<void> {
  const lib = await import('./sync-lib');
  const { openSnapshot, SyncError } = lib;
  let t: SyncTarget;
  try {
    t = openSnapshot(await localTarget(opts, { create: false }));
  } catch (e) {
    if (e instanceof SyncError) throw new CliError(e.message);
    throw e;
  }
  try {
    await fn(t, lib);
  } catch (e) {
    if (e instanceof SyncError) throw new CliError(e.message, e.kind === 3 ? SYNC_EXIT.busy : EXIT.failed);
    if (e instanceof ApiError && e.status === 400) throw new UsageError(e.message);
    throw e;
  } finally {
    t.close();
  }
}

/** The time-out flag of the subcommands that call the origin. */
const TIMEOUT_FLAG = ['--timeout-ms <n>', "time-out of one call to the origin (default: the snapshot's, at least 30000)"] as const;

/** The flags every sync subcommand takes. */
function sub(name: string, description: string) {
  return new Command(name)
    .description(description)
    .option('--db <file>', 'the snapshot database (default: the main database)')
    .option('--instance <id|name>', 'a local instance of the main database --db instead')
    .option('--json', 'print the result as JSON on stdout');
}

function statusCommand() {
  return sub('status', 'the origin, the counts, and the changes waiting (oldest first)')
    .addOption(new Option('--state <state>', 'only entries in this state').choices(ENTRY_STATES))
    .option('--limit <n>', 'entries to list (default 50)', intIn(1, 100_000))
    .option('--check', 'exit 4 when conflicts are left, 8 when failed changes are, 12 for both (without it: 0, the report says what is left)')
    .action((opts) =>
      withSnapshot(opts, async (t, { counts, views, rowsOf, countOf, hasOriginKey }) => {
        const o = t.origin();
        const c = counts(t.db);
        const items = views(t.db, rowsOf(t.db, { state: opts.state, limit: opts.limit ?? 50 }));
        const total = countOf(t.db, { state: opts.state });
        if (opts.json) {
          const origin = { url: o.url, remote_instance_id: o.remote_instance_id, snapshot_at: o.snapshot_at, pulled_at: o.pulled_at, pushed_at: o.pushed_at, has_key: hasOriginKey(o) };
          process.stdout.write(`${JSON.stringify({ origin, counts: c, entries: items, total })}\n`);
        } else {
          process.stdout.write(`${t.file}: a snapshot of ${o.url} (taken ${o.snapshot_at}; last pull ${o.pulled_at ?? 'never'}; last push ${o.pushed_at ?? 'never'})\n`);
          process.stdout.write(`${c.total ? countLine(c) : 'no changes waiting'}\n`);
          for (const e of items) process.stdout.write(`${entryLine(e)}\n`);
          if (total > items.length) process.stdout.write(`  ... and ${fmt(total - items.length)} more (--limit N)\n`);
        }
        // A report: conflicts and failed changes are in it (text and --json); --check makes them the exit code.
        if (opts.check) exitWith(leftCode(c));
      }),
    );
}

function pushCommand() {
  return sub('push', "replay the changes on the origin: status and risk through its public API, the rest through v2; conflicts are not sent")
    .option('--dry-run', 'print the requests that would be sent; send and change nothing')
    .option('--entries <n,n,...>', 'only these entries (failed ones too)', seqList)
    .option('--concurrency <n>', 'requests in flight at once (default 8)', intIn(1, 64))
    .option(...TIMEOUT_FLAG, intIn(100, 3_600_000))
    .action((opts) =>
      withSnapshot(opts, async (t, { push }) => {
        const bar = new Progress('changes');
        let summary: PushSummary;
        try {
          summary = await cancellable((signal) =>
            push(t, { dryRun: !!opts.dryRun, entries: opts.entries, concurrency: opts.concurrency, timeoutMs: opts.timeoutMs, signal, onProgress: (p) => bar.update(p.done, p.total, p.done, p.phase) }),
          );
        } finally {
          bar.stop();
        }
        if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
        const url = t.origin().url;
        if (summary.dry_run) {
          if (!opts.json) {
            process.stdout.write(`would send ${summary.would_send.length} requests to ${url}:\n`);
            for (const r of summary.would_send) process.stdout.write(`  ${r.method} ${r.path}${r.body ? ` ${JSON.stringify(r.body)}` : ''}  (entries ${r.entries.join(', ')})\n`);
          }
          process.stderr.write(
            `radar-console: dry run: ${summary.would_send.length} requests would be sent; ${summary.already} changes already on the origin, ${summary.conflicts} conflicts, ${summary.failed} would fail; nothing was sent or changed\n`,
          );
          if (summary.stopped) throw new CliError(`dry run stopped: ${summary.stopped}`);
          return;
        }
        process.stderr.write(
          `radar-console: push to ${url}: ${fmt(summary.pushed)} changes pushed (${fmt(summary.requests)} requests, ${fmt(summary.already)} already there), ${fmt(summary.conflicts)} conflicts, ${fmt(summary.failed)} failed in ${secs(summary.ms)}; left: ${countLine(summary.left)}\n`,
        );
        if (summary.stopped) throw new CliError(`push stopped: ${summary.stopped}; nothing is lost, run it again`, summary.stopped === 'cancelled' ? EXIT.cancelled : EXIT.failed);
        exitWith(leftCode(summary.left));
      }),
    );
}

function pullCommand() {
  return sub('pull', "bring the origin's changes since the snapshot or the last pull; fields changed on both sides become conflicts")
    .option(...TIMEOUT_FLAG, intIn(100, 3_600_000))
    .action((opts) =>
      withSnapshot(opts, async (t, { pull }) => {
        const bar = new Progress('records');
        let summary: PullSummary;
        try {
          summary = await cancellable((signal) => pull(t, { timeoutMs: opts.timeoutMs, signal, onProgress: (p) => bar.update(p.done, p.total ?? p.done, p.done, p.phase) }));
        } finally {
          bar.stop();
        }
        if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
        const lists = Object.entries(summary.lists)
          .filter(([, c]) => c.received || c.deleted || c.kept)
          .map(([k, c]) => `${k} ${fmt(c.inserted)} new, ${fmt(c.updated)} changed${c.deleted ? `, ${fmt(c.deleted)} deleted` : ''}${c.kept ? `, ${fmt(c.kept)} deleted there but kept` : ''}`);
        process.stderr.write(
          `radar-console: pull from ${t.origin().url}: ${fmt(summary.received)} records received${lists.length ? ` (${lists.join('; ')})` : ''}, ${fmt(summary.conflicts)} new conflicts in ${secs(summary.ms)}; left: ${countLine(summary.left)}\n`,
        );
        for (const n of summary.notes) process.stderr.write(`radar-console: ${n}\n`);
        if (summary.stopped) throw new CliError(`pull stopped: ${summary.stopped}; what was received is kept, run it again`, summary.stopped.startsWith('cancelled') ? EXIT.cancelled : EXIT.failed);
        exitWith(leftCode(summary.left));
      }),
    );
}

function resolveCommand() {
  return sub('resolve', "settle conflicts: keep mine (pushed next), take theirs (the origin's value here), or edit")
    .requiredOption('--entries <n,n,...>', 'the conflicts (entry numbers)', seqList)
    .addOption(new Option('--take <side>', 'mine, theirs or edit').choices(RESOLUTIONS).makeOptionMandatory())
    .option('--value <json>', 'with --take edit (one entry): the value to keep, as JSON (\'"closed"\', 7.5)')
    .option(...TIMEOUT_FLAG, intIn(100, 3_600_000))
    .action((opts) => {
      let value: unknown;
      if (opts.take === 'edit') {
        if (opts.value === undefined || opts.entries.length !== 1) throw new UsageError('--take edit needs one entry and --value JSON');
        try {
          value = JSON.parse(opts.value);
        } catch {
          throw new UsageError(`--value must be JSON (a text in quotes: '"closed"'), got ${opts.value}`);
        }
      }
      return withSnapshot(opts, async (t, { resolve }) => {
        const res = await resolve(t, { entries: opts.entries, take: opts.take, ...(opts.take === 'edit' ? { value } : {}) }, { timeoutMs: opts.timeoutMs });
        if (opts.json) process.stdout.write(`${JSON.stringify(res)}\n`);
        process.stderr.write(`radar-console: ${res.resolved} conflicts resolved (${opts.take}); left: ${countLine(res.left)}\n`);
        if (res.note) process.stderr.write(`radar-console: ${res.note}\n`);
        exitWith(leftCode(res.left));
      });
    });
}

function discardCommand() {
  return sub('discard', 'drop changes without pushing them; the records are put back as copied')
    .option('--entries <n,n,...>', 'these entries', seqList)
    .option('--all', 'every entry')
    .option('--keep-local', 'leave the records as they are here')
    .action((opts) => {
      if (!opts.entries === !opts.all) throw new UsageError('discard needs --entries N[,N...] or --all');
      return withSnapshot(opts, async (t, { discard }) => {
        const res = discard(t, { entries: opts.entries, revert: !opts.keepLocal });
        if (opts.json) process.stdout.write(`${JSON.stringify(res)}\n`);
        process.stderr.write(`radar-console: ${res.discarded} entries discarded, ${res.reverted} records put back as copied; left: ${countLine(res.left)}\n`);
        exitWith(leftCode(res.left));
      });
    });
}

export function syncCommand() {
  return new Command('sync')
    .description("a snapshot's changes back to its platform (push), the platform's changes into it (pull), conflicts")
    .addCommand(statusCommand())
    .addCommand(pushCommand())
    .addCommand(pullCommand())
    .addCommand(resolveCommand())
    .addCommand(discardCommand())
    .addHelpText('after', EXIT_HELP);
}
