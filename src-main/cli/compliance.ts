// `radar-console compliance check|match`: software compliance rules against a local database,
// for scripts (--json, an exit code that says whether violations were found) and people (a
// progress bar on long checks, the violations and a summary line).
import { Command } from '@commander-js/extra-typings';
import { ApiError } from '../../src-shared/errors';
import { isUuid } from '../../src-shared/ids';
import type { CheckAnswer } from '../../src-shared/schemas/compliance';
import { CliError, UsageError } from './errors';
import { intIn } from './options';
import { fmt, Progress, secs } from './progress';
import { localTarget } from './target';

/** Exit codes of `compliance check` besides the common ones (0, 1, 2). */
export const COMPLIANCE_EXIT = { violations: 5 } as const;

const CHECK_HELP = `
Exit codes: 0 every rule satisfied on every asset; 5 violations found (with --create-incidents
too: their incidents were made or updated); 1 refused or failed (an unknown rule set or asset,
a missing database); 2 usage error. A script that reads the violations from --json and treats
them as its answer, not as a failure, accepts 5 (as the examples do with \`|| [ $? -eq 5 ]\`).

Examples:
  radar-console compliance check --rule-set "Контроль ПО на рабочих станциях" --json || [ $? -eq 5 ]
  radar-console compliance check --rule-set "Базовый набор: Linux" --asset "k8s-node-01 (Узел кластера Kubernetes)" --json || [ $? -eq 5 ]
  radar-console compliance check --rule-set "Контроль ПО на рабочих станциях" --create-incidents --json || [ $? -eq 5 ]`;

const MATCH_HELP = `
A query PostgreSQL refuses is a usage error (exit 2) naming the position where reading stopped.

Examples:
  radar-console compliance match "teamviewer | anydesk" --json
  radar-console compliance match "openssh-server | 'visual':*" --limit 10 --json`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

type Lib = typeof import('./compliance-lib');
type Store = InstanceType<Lib['Store']>;

/** Opens the database of --db or --instance, runs fn, closes it; the store's refusals as exit 1. */
async function withStore<T>(opts: { db?: string; instance?: string }, fn: (store: Store, lib: Lib) => T | Promise<T>): Promise<T> {
  const lib = await import('./compliance-lib');
  const file = await localTarget(opts, { create: false });
  const { db } = lib.openDatabase(file, { create: false });
  try {
    return await fn(new lib.Store(db), lib);
  } catch (e) {
    if (e instanceof ApiError) throw new CliError(e.message);
    throw e;
  } finally {
    db.close();
  }
}

/** Rule sets by id or exact name; an unknown or ambiguous one is refused. */
function ruleSetIds(store: Store, lib: Lib, refs: readonly string[]): string[] {
  return refs.map((ref) => {
    if (isUuid(ref)) {
      const [found] = lib.ruleSetsById(store, [ref]);
      if (found) return found.id;
    }
    const named = lib.ruleSetsByName(store, ref);
    if (named.length === 1) return named[0]!.id;
    if (named.length > 1) throw new CliError(`${named.length} rule sets are named "${ref}": give one of their ids (${named.map((s) => s.id).join(', ')})`);
    const some = lib.ruleSetNames(store, 20);
    throw new CliError(`no rule set "${ref}" (give its id or its exact name)${some.length ? `; rule sets here: ${some.map((n) => `"${n}"`).join(', ')}` : '; this database has no rule sets'}`);
  });
}

/** Assets by id or exact name. */
function assetIds(store: Store, lib: Lib, refs: readonly string[]): string[] {
  return refs.map((ref) => {
    if (isUuid(ref)) {
      const [found] = lib.assetsById(store, [ref]);
      if (found) return found.id;
    }
    const named = lib.assetsByName(store, ref);
    if (named.length === 1) return named[0]!.id;
    if (named.length > 1) throw new CliError(`${named.length} assets are named "${ref}": give one of their ids (${named.map((a) => a.id).join(', ')})`);
    throw new CliError(`no asset "${ref}" (give its id or its exact name)`);
  });
}

function printCheck(a: CheckAnswer): void {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const rule = new Map(a.rules.map((r) => [r.id, r]));
  const asset = new Map(a.assets.map((x) => [x.id, x.name]));
  const sw = new Map(a.software.map((s) => [s.id, s.version ? `${s.name} ${s.version}` : s.name]));
  const sets = new Map(a.rule_sets.map((s) => [s.id, s.name]));
  for (const s of a.rule_sets) {
    const rows = a.summary.by_rule.filter((b) => b.rule_set_id === s.id);
    const sat = rows.reduce((n, b) => n + b.satisfied, 0);
    const vio = rows.reduce((n, b) => n + b.violated, 0);
    out(`${s.name}: ${fmt(rows.length)} rules, ${fmt(sat)} satisfied, ${fmt(vio)} violated${s.create_service_asset_findings ? '' : ' (this set raises no incidents)'}`);
    for (const b of rows) {
      if (!b.violated) continue;
      const r = rule.get(b.rule_id)!;
      out(`  ${r.name} [${r.blacklist_entry ? 'blacklist' : 'whitelist'}: ${r.query}]: violated on ${fmt(b.violated)} of ${fmt(b.satisfied + b.violated)} assets`);
    }
  }
  const violations = a.results.filter((r) => r.verdict === 'violated');
  if (violations.length) out('violations:');
  for (const v of violations) {
    const r = rule.get(v.rule_id)!;
    const found = v.software_ids.length ? `installed: ${v.software_ids.map((id) => sw.get(id) ?? id).join('; ')}` : 'no matching software installed';
    out(`  ${asset.get(v.service_asset_id) ?? v.service_asset_id}  ${r.name}  (${found})${v.incident_id ? `  incident ${v.incident_id}` : ''}${a.rule_sets.length > 1 ? `  [${sets.get(v.rule_set_id)}]` : ''}`);
  }
  for (const x of a.summary.invalid_rules) out(`not checked: rule ${x.rule_id}: its query is refused by PostgreSQL: ${x.error}`);
}

function checkCommand() {
  return new Command('check')
    .description('check rule sets: each rule on each asset of their asset groups; violations, and optionally their incidents')
    .requiredOption('--rule-set <id|name>', 'a rule set (repeat for several)', collect)
    .option('--asset <id|name>', 'only this asset (repeat for several)', collect)
    .option('--create-incidents', 'make an incident for each violation on sets with create_service_asset_findings (once: a later check updates its occurrence)')
    .option('--json', 'print the check as JSON on stdout (the API answer: results, rules, assets, software, summary)')
    .option('--db <file>', 'the database (default: the main database)')
    .option('--instance <id|name>', 'a local instance of the main database --db instead')
    .addHelpText('after', CHECK_HELP)
    .action((opts) =>
      withStore(opts, async (store, lib) => {
        const t0 = performance.now();
        const req = {
          rule_set_ids: ruleSetIds(store, lib, opts.ruleSet),
          ...(opts.asset ? { service_asset_ids: assetIds(store, lib, opts.asset) } : {}),
          ...(opts.createIncidents ? { create_incidents: true } : {}),
        };
        const plan = lib.planCheck(store, req);
        const bar = new Progress('items');
        await bar.ready();
        let answer: CheckAnswer;
        try {
          const index = lib.softwareIndexNow(store, (p) => bar.update(p.done, p.total, p.done, 'software'));
          const run = lib.runNow(store, index, plan, (p) => bar.update(p.done, p.total, p.done, p.phase === 'software' ? 'installed' : 'rules'));
          const effects = opts.createIncidents ? lib.raiseIncidents(store, run, {}, (p) => bar.update(p.done, p.total, p.done, 'incidents')) : null;
          answer = lib.answerOf(store, run, req, effects, performance.now() - t0);
        } finally {
          bar.stop();
        }
        if (opts.json) process.stdout.write(`${JSON.stringify(answer)}\n`);
        else printCheck(answer);
        const s = answer.summary;
        const inc = s.incidents;
        const incidents = opts.createIncidents
          ? `incidents: ${fmt(inc.created)} created, ${fmt(inc.updated)} updated`
          : `incidents: ${fmt(inc.would_create)} violations have none yet (--create-incidents makes them)`;
        const open = inc.resolved.length ? `; ${fmt(inc.resolved.length)} open incidents whose violation is gone (closing them is yours to decide)` : '';
        const closed = inc.closed_but_violated.length ? `; ${fmt(inc.closed_but_violated.length)} closed incidents whose violation persists` : '';
        process.stderr.write(
          `radar-console: ${fmt(s.rules)} rules x ${fmt(s.assets)} assets: ${fmt(s.satisfied)} satisfied, ${fmt(s.violated)} violated in ${secs(performance.now() - t0)}; ${incidents}${open}${closed}\n`,
        );
        if (s.violated) throw new CliError('', COMPLIANCE_EXIT.violations);
      }),
    );
}

function matchCommand() {
  return new Command('match')
    .description("the database's software a rule query matches (to_tsquery('simple', query) @@ each record's vector)")
    .argument('<query>', 'a rule query in tsquery syntax')
    .option('--limit <n>', 'records to list (default 50)', intIn(0, 1_000_000))
    .option('--offset <n>', 'records to skip', intIn(0, 100_000_000))
    .option('--json', 'print the matches as JSON on stdout (the API answer)')
    .option('--db <file>', 'the database (default: the main database)')
    .option('--instance <id|name>', 'a local instance of the main database --db instead')
    .addHelpText('after', MATCH_HELP)
    .action((query, opts) =>
      withStore(opts, async (store, lib) => {
        const bar = new Progress('software');
        await bar.ready();
        let index;
        try {
          index = lib.softwareIndexNow(store, (p) => bar.update(p.done, p.total, p.done, 'software'));
        } finally {
          bar.stop();
        }
        let page;
        try {
          page = lib.matchPage(store, index, query, opts.limit ?? 50, opts.offset ?? 0);
        } catch (e) {
          if (e instanceof ApiError) throw new UsageError(e.message.replace(/^query: /, ''));
          throw e;
        }
        if (opts.json) process.stdout.write(`${JSON.stringify(page)}\n`);
        else for (const s of page.items) process.stdout.write(`${s.id}  ${s.version ? `${s.name} ${s.version}` : s.name}  (${fmt(s.asset_count)} asset${s.asset_count === 1 ? '' : 's'})\n`);
        const more = page.total > page.offset + page.items.length ? ` (--limit/--offset for the rest)` : '';
        process.stderr.write(`radar-console: ${page.tsquery || '(no word: matches nothing)'}: ${fmt(page.total)} of ${fmt(page.software_total)} software records match; ${fmt(page.items.length)} listed${more}\n`);
        if (page.unreadable) process.stderr.write(`radar-console: ${fmt(page.unreadable)} records have a stored tsvector PostgreSQL would refuse: they match nothing\n`);
      }),
    );
}

export function complianceCommand() {
  return new Command('compliance')
    .description('software compliance rules: check rule sets against installed software, match a query against the software')
    .addCommand(checkCommand())
    .addCommand(matchCommand());
}
