// The compliance check over a database: the rules of the rule sets against the software
// installed on the assets of the sets' asset groups (src-shared/compliance/check.ts evaluates,
// the software index holds the vectors), answered per (rule set, rule, asset) with the software
// that decided each verdict, and the incidents of the checked rules and assets.
import { badRequest } from '../../../src-shared/errors';
import { checkSteps, installedFrom, type CheckOutcome, type CheckRule, type CheckTask } from '../../../src-shared/compliance/check';
import { FINAL_STATUSES, type IncidentStatus } from '../../../src-shared/resources/fields';
import type { CheckAnswer, CheckRequest, CheckResult, ComplianceVerdict } from '../../../src-shared/schemas/compliance';
import { compileTsQuery, toTsQuery, tsqueryToString } from '../../../src-shared/textsearch';
import type { Store } from '../store';
import {
  assetsById,
  assetsOfSets,
  eachInstalled,
  incidentsOfFindingTypes,
  ruleFindingTypes,
  rulesOfSets,
  ruleSetsById,
  softwareByRid,
  type IncidentRow,
  type RuleSetRow,
} from './reads';
import type { SoftwareIndex } from './software-index';

export interface PlannedRule {
  id: string;
  name: string;
  query: string;
  tsquery: string;
  blacklist_entry: boolean;
  draft: boolean;
}

export interface CheckPlan {
  sets: RuleSetRow[];
  /** Distinct rules that can be checked, in the order of the first set naming them. */
  rules: PlannedRule[];
  compiled: CheckRule[];
  invalid: { rule_id: string; error: string; position: number }[];
  /** Distinct assets, by name. */
  assets: { rid: number; id: string; name: string }[];
  /** (set, rule) tasks, in set order then rule name; each over the set's assets. */
  tasks: CheckTask[];
  taskSet: number[];
}

const uniq = <T>(list: readonly T[]) => [...new Set(list)];

/** Reads the sets, their rules and assets; refuses unknown ids (400) with the list of them. */
export function planCheck(store: Store, req: CheckRequest): CheckPlan {
  const setIds = uniq(req.rule_set_ids.map((s) => s.toLowerCase()));
  const sets = ruleSetsById(store, setIds);
  const found = new Set(sets.map((s) => s.id));
  const missing = setIds.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`rule_set_ids: no rule set ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
  const order = new Map(setIds.map((id, i) => [id, i]));
  sets.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  if (req.queries && req.create_incidents) throw badRequest('queries: draft queries are checked only; save the rules before creating incidents');

  let ruleRows = rulesOfSets(store, setIds);
  if (req.rule_ids) {
    const wanted = new Set(req.rule_ids.map((s) => s.toLowerCase()));
    const inSets = new Set(ruleRows.map((r) => r.id));
    const stray = [...wanted].filter((id) => !inSets.has(id));
    if (stray.length) throw badRequest(`rule_ids: ${stray.slice(0, 5).join(', ')} ${stray.length === 1 ? 'is' : 'are'} in none of the rule sets`);
    ruleRows = ruleRows.filter((r) => wanted.has(r.id));
  }
  const drafts = new Map(Object.entries(req.queries ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const inSets = new Set(ruleRows.map((r) => r.id));
  const strayDrafts = [...drafts.keys()].filter((id) => !inSets.has(id));
  if (strayDrafts.length) throw badRequest(`queries: ${strayDrafts.slice(0, 5).join(', ')} ${strayDrafts.length === 1 ? 'is' : 'are'} not a rule of the rule sets checked`);

  const rules: PlannedRule[] = [];
  const compiled: CheckRule[] = [];
  const invalid: CheckPlan['invalid'] = [];
  const ruleIndex = new Map<string, number>();
  for (const r of ruleRows) {
    if (ruleIndex.has(r.id) || invalid.some((x) => x.rule_id === r.id)) continue;
    const draft = drafts.get(r.id);
    const text = draft ?? r.query;
    const parsed = toTsQuery(text);
    if (!parsed.ok) {
      if (draft !== undefined) throw badRequest(`queries.${r.id}: invalid query: ${parsed.error.message} (${parsed.error.reason})`);
      invalid.push({ rule_id: r.id, error: parsed.error.message, position: parsed.error.position });
      continue;
    }
    ruleIndex.set(r.id, rules.length);
    rules.push({ id: r.id, name: r.name, query: text, tsquery: tsqueryToString(parsed.query), blacklist_entry: r.blacklist_entry, draft: draft !== undefined });
    compiled.push({ query: compileTsQuery(parsed.query), blacklist: r.blacklist_entry });
  }

  let assetRows = assetsOfSets(store, setIds);
  if (req.service_asset_ids) {
    const wanted = uniq(req.service_asset_ids.map((s) => s.toLowerCase()));
    const existing = new Set(assetsById(store, wanted).map((a) => a.id));
    const unknown = wanted.filter((id) => !existing.has(id));
    if (unknown.length) throw badRequest(`service_asset_ids: no asset ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}`);
    const covered = new Set(assetRows.map((a) => a.id));
    const outside = wanted.filter((id) => !covered.has(id));
    if (outside.length) {
      throw badRequest(`service_asset_ids: ${outside.slice(0, 5).join(', ')} ${outside.length === 1 ? 'is' : 'are'} in none of the asset groups of the rule sets`);
    }
    const keep = new Set(wanted);
    assetRows = assetRows.filter((a) => keep.has(a.id));
  }
  const assets: CheckPlan['assets'] = [];
  const assetIndex = new Map<string, number>();
  const assetsBySet = new Map<string, number[]>();
  for (const a of assetRows) {
    let i = assetIndex.get(a.id);
    if (i === undefined) {
      i = assets.length;
      assetIndex.set(a.id, i);
      assets.push({ rid: a.rid, id: a.id, name: a.name });
    }
    let list = assetsBySet.get(a.rule_set_id);
    if (!list) assetsBySet.set(a.rule_set_id, (list = []));
    list.push(i);
  }
  const tasks: CheckTask[] = [];
  const taskSet: number[] = [];
  sets.forEach((s, si) => {
    const setAssets = Int32Array.from(assetsBySet.get(s.id) ?? []);
    for (const r of ruleRows) {
      if (r.rule_set_id !== s.id) continue;
      const ri = ruleIndex.get(r.id);
      if (ri === undefined) continue;
      tasks.push({ rule: ri, assets: setAssets });
      taskSet.push(si);
    }
  });
  return { sets, rules, compiled, invalid, assets, tasks, taskSet };
}

export interface CheckProgress {
  phase: 'software' | 'rules';
  done: number;
  total: number;
}

/** What a check found, before it is answered: the plan, the outcome and the software _rids of its records. */
export interface CheckRun {
  plan: CheckPlan;
  outcome: CheckOutcome;
  /** record → software _rid, as it was when the installed software was read. */
  ridOf: (record: number) => number;
}

const ASSET_CHUNK = 1000;

/**
 * The check, one step at a time: the installed software of the assets (a chunk of assets per
 * step), then the rules (one per step). The software index must be fresh when this starts; the
 * records the check names are kept as they were then.
 */
export function* runSteps(store: Store, index: SoftwareIndex, plan: CheckPlan): Generator<CheckProgress, CheckRun> {
  let pairAsset = new Int32Array(1 << 16);
  let pairRecord = new Int32Array(1 << 16);
  let pairs = 0;
  const ridByRecord = new Int32Array(index.vectors.size).fill(-1);
  for (let i = 0; i < plan.assets.length; i += ASSET_CHUNK) {
    const chunk = plan.assets.slice(i, i + ASSET_CHUNK);
    eachInstalled(
      store,
      chunk.map((a) => a.id),
      (inChunk, softwareRid) => {
        const rec = index.recordOfRid(softwareRid);
        if (rec < 0) return;
        if (pairs === pairAsset.length) {
          const a = new Int32Array(pairs * 2);
          a.set(pairAsset);
          pairAsset = a;
          const r = new Int32Array(pairs * 2);
          r.set(pairRecord);
          pairRecord = r;
        }
        pairAsset[pairs] = i + inChunk;
        pairRecord[pairs] = rec;
        pairs++;
        ridByRecord[rec] = softwareRid;
      },
    );
    yield { phase: 'software', done: Math.min(i + ASSET_CHUNK, plan.assets.length), total: plan.assets.length };
  }
  const installed = installedFrom(plan.assets.length, pairAsset, pairRecord, pairs);
  const steps = checkSteps(index.vectors, plan.compiled, plan.tasks, installed);
  for (;;) {
    const s = steps.next();
    if (s.done) return { plan, outcome: s.value, ridOf: (rec) => ridByRecord[rec] ?? -1 };
    yield { phase: 'rules', done: s.value.done, total: s.value.total };
  }
}

/** Runs the check at once. */
export function runNow(store: Store, index: SoftwareIndex, plan: CheckPlan, onProgress?: (p: CheckProgress) => void): CheckRun {
  const steps = runSteps(store, index, plan);
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
    onProgress?.(s.value);
  }
}

/** Runs the check a step at a time, letting other work run between steps. */
export async function runInTurns(store: Store, index: SoftwareIndex, plan: CheckPlan): Promise<CheckRun> {
  const steps = runSteps(store, index, plan);
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The key of an (asset, rule) pair. */
export const pairKey = (assetId: string, ruleId: string): string => `${assetId}|${ruleId}`;

export interface Violation {
  asset: { id: string; name: string };
  rule: PlannedRule;
  /** The deciding software's _rids. */
  software: number[];
}

/** The incidents of the checked rules (through their finding types), per (asset, rule): the newest. */
export function incidentsOf(store: Store, plan: CheckPlan): { findingOf: ReturnType<typeof ruleFindingTypes>; byPair: Map<string, IncidentRow> } {
  const findingOf = ruleFindingTypes(
    store,
    plan.rules.map((r) => r.id),
  );
  const ruleOfFinding = new Map([...findingOf].map(([rule, f]) => [f.id, rule]));
  const byPair = new Map<string, IncidentRow>();
  for (const inc of incidentsOfFindingTypes(store, [...ruleOfFinding.keys()])) {
    const key = pairKey(inc.service_asset_id, ruleOfFinding.get(inc.finding_id)!);
    if (!byPair.has(key)) byPair.set(key, inc);
  }
  return { findingOf, byPair };
}

/** The violations on sets that create findings, once per (asset, rule), in result order. */
export function violationsToRaise(run: CheckRun): Violation[] {
  const { plan, outcome } = run;
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (let k = 0; k < outcome.size; k++) {
    if (!outcome.violated[k]) continue;
    const ti = outcome.task[k]!;
    if (!plan.sets[plan.taskSet[ti]!]!.create_service_asset_findings) continue;
    const asset = plan.assets[outcome.asset[k]!]!;
    const rule = plan.rules[plan.tasks[ti]!.rule]!;
    const key = pairKey(asset.id, rule.id);
    if (seen.has(key)) continue;
    seen.add(key);
    const software: number[] = [];
    for (let j = outcome.matchStart[k]!; j < outcome.matchStart[k + 1]!; j++) software.push(run.ridOf(outcome.matches[j]!));
    out.push({ asset: { id: asset.id, name: asset.name }, rule, software });
  }
  return out;
}

export interface IncidentEffects {
  created: number;
  updated: number;
}

/**
 * The answer: the summary of the whole check, and the results of one page of assets (by name),
 * with the software they name and the incidents of their (asset, rule) pairs.
 */
export function answerOf(store: Store, run: CheckRun, req: CheckRequest, effects: IncidentEffects | null, tookMs: number): CheckAnswer {
  const { plan, outcome } = run;
  const { byPair } = incidentsOf(store, plan);
  const setRows = plan.sets;
  const nAssets = plan.assets.length;
  // Results per asset, in task order (set order, then rule name).
  const perAsset = new Int32Array(nAssets + 1);
  for (let k = 0; k < outcome.size; k++) perAsset[outcome.asset[k]! + 1]!++;
  for (let a = 0; a < nAssets; a++) perAsset[a + 1]! += perAsset[a]!;
  const cursor = perAsset.slice(0, nAssets);
  const byAsset = new Int32Array(outcome.size);
  for (let k = 0; k < outcome.size; k++) byAsset[cursor[outcome.asset[k]!]!++] = k;

  let satisfied = 0;
  const byTask = plan.tasks.map(() => ({ satisfied: 0, violated: 0 }));
  for (let k = 0; k < outcome.size; k++) {
    const t = byTask[outcome.task[k]!]!;
    if (outcome.violated[k]) t.violated++;
    else {
      t.satisfied++;
      satisfied++;
    }
  }
  const wanted = req.verdict === undefined ? -1 : req.verdict === 'violated' ? 1 : 0;
  const keep = (k: number) => wanted < 0 || outcome.violated[k] === wanted;
  // Assets with results after the verdict filter, in name order.
  const shown: number[] = [];
  for (let a = 0; a < nAssets; a++) {
    for (let j = perAsset[a]!; j < perAsset[a + 1]!; j++) {
      if (keep(byAsset[j]!)) {
        shown.push(a);
        break;
      }
    }
  }
  const offset = req.offset ?? 0;
  const page = req.limit === undefined ? shown.slice(offset) : shown.slice(offset, offset + req.limit);
  const results: CheckResult[] = [];
  const named = new Set<number>();
  for (const a of page) {
    const asset = plan.assets[a]!;
    for (let j = perAsset[a]!; j < perAsset[a + 1]!; j++) {
      const k = byAsset[j]!;
      if (!keep(k)) continue;
      const ti = outcome.task[k]!;
      const rule = plan.rules[plan.tasks[ti]!.rule]!;
      const rids: number[] = [];
      for (let m = outcome.matchStart[k]!; m < outcome.matchStart[k + 1]!; m++) {
        const rid = run.ridOf(outcome.matches[m]!);
        rids.push(rid);
        named.add(rid);
      }
      results.push({
        rule_set_id: setRows[plan.taskSet[ti]!]!.id,
        rule_id: rule.id,
        service_asset_id: asset.id,
        verdict: (outcome.violated[k] ? 'violated' : 'satisfied') as ComplianceVerdict,
        software_ids: rids as unknown as string[],
        incident_id: byPair.get(pairKey(asset.id, rule.id))?.id ?? null,
      });
    }
  }
  const software = softwareByRid(store, [...named].sort((x, y) => x - y));
  const idOf = new Map(software.map((s) => [s.rid, s.id]));
  for (const r of results) r.software_ids = (r.software_ids as unknown as number[]).map((rid) => idOf.get(rid)).filter((x): x is string => !!x);

  // Incidents: violations without one (would be created), open ones whose violation is gone,
  // closed ones whose violation persists.
  const violatedPairs = new Set<string>();
  const satisfiedPairs = new Set<string>();
  const raising = new Set<string>();
  for (let k = 0; k < outcome.size; k++) {
    const ti = outcome.task[k]!;
    const key = pairKey(plan.assets[outcome.asset[k]!]!.id, plan.rules[plan.tasks[ti]!.rule]!.id);
    if (outcome.violated[k]) {
      violatedPairs.add(key);
      if (setRows[plan.taskSet[ti]!]!.create_service_asset_findings) raising.add(key);
    } else satisfiedPairs.add(key);
  }
  let wouldCreate = 0;
  for (const key of raising) if (!byPair.has(key)) wouldCreate++;
  const ref = (inc: IncidentRow, key: string) => {
    const [service_asset_id, rule_id] = key.split('|') as [string, string];
    return { incident_id: inc.id, display_id: inc.display_id, rule_id, service_asset_id, status: inc.status };
  };
  const resolved = [];
  const closedButViolated = [];
  for (const [key, inc] of byPair) {
    const final = FINAL_STATUSES.includes(inc.status as IncidentStatus);
    if (!final && satisfiedPairs.has(key) && !violatedPairs.has(key)) resolved.push(ref(inc, key));
    if (final && violatedPairs.has(key)) closedButViolated.push(ref(inc, key));
  }
  const pageAssets = page.map((a) => ({ id: plan.assets[a]!.id, name: plan.assets[a]!.name }));
  return {
    results,
    total_assets: shown.length,
    limit: req.limit ?? null,
    offset,
    rule_sets: setRows.map((s) => ({ id: s.id, name: s.name, create_service_asset_findings: s.create_service_asset_findings })),
    rules: plan.rules.map((r) => ({ ...r })),
    assets: pageAssets,
    software: software.map((s) => ({ id: s.id, name: s.name, version: s.version })),
    summary: {
      rule_sets: setRows.length,
      rules: plan.rules.length,
      assets: nAssets,
      results: outcome.size,
      satisfied,
      violated: outcome.size - satisfied,
      by_rule: plan.tasks.map((t, i) => ({ rule_set_id: setRows[plan.taskSet[i]!]!.id, rule_id: plan.rules[t.rule]!.id, ...byTask[i]! })),
      invalid_rules: plan.invalid,
      incidents: {
        would_create: wouldCreate,
        created: effects?.created ?? 0,
        updated: effects?.updated ?? 0,
        not_created_for: setRows.filter((s) => !s.create_service_asset_findings).map((s) => s.id),
        resolved,
        closed_but_violated: closedButViolated,
      },
    },
    took_ms: Math.round(tookMs * 10) / 10,
  };
}
