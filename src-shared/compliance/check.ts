// The software compliance check, in memory: rules (compiled tsqueries) against the software
// installed on assets. A whitelist rule (`blacklist_entry` false) is satisfied on an asset when
// some installed software matches its query, a blacklist rule when none does; the matching
// software decides either way. Software records are numbered as in a TsVectorStore; each asset's
// installed software is a list of those numbers. Each rule's query is evaluated once per
// software record (never per link): candidates come from the store's inverted index, or, for a
// query that can match without any of its words (`!x`), every installed record is tested; the
// matching records are then followed to their assets through a reverse index, so a rule costs
// the links of the software it matches.
import type { BoundTsQuery, CompiledTsQuery, TsVectorStore } from '../textsearch';

export interface CheckRule {
  /** The compiled query (`to_tsquery('simple', rule.query)`). */
  readonly query: CompiledTsQuery;
  /** true: the software must not be installed; false: some matching software must be. */
  readonly blacklist: boolean;
}

/** One rule over a list of assets (a rule of a rule set over the assets of the set's groups). */
export interface CheckTask {
  /** Index into the rules. */
  readonly rule: number;
  /** Asset indexes (into the installed software lists). */
  readonly assets: Int32Array;
}

/** Installed software per asset: asset i has records[start[i] .. start[i + 1]), ascending. */
export interface InstalledSoftware {
  readonly start: Int32Array;
  readonly records: Int32Array;
}

/**
 * The results, one per (task, asset) in task order then the task's asset order: result k is
 * task `task[k]` on asset `asset[k]`; `violated[k]` 1 or 0; the software that decided it (the
 * installed records matching the rule's query, ascending) is matches[matchStart[k] .. matchStart[k + 1]).
 */
export interface CheckOutcome {
  readonly size: number;
  readonly task: Int32Array;
  readonly asset: Int32Array;
  readonly violated: Uint8Array;
  readonly matchStart: Int32Array;
  readonly matches: Int32Array;
}

/** Growable Int32 list. */
class IntList {
  data: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const d = new Int32Array(this.data.length * 2);
      d.set(this.data);
      this.data = d;
    }
    this.data[this.length++] = v;
  }
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Runs the check one rule at a time, yielding after each (the caller may report progress or let
 * other work run); the generator's return value is the outcome.
 */
export function* checkSteps(
  vectors: TsVectorStore,
  rules: readonly CheckRule[],
  tasks: readonly CheckTask[],
  installed: InstalledSoftware,
): Generator<{ rule: number; done: number; total: number }, CheckOutcome> {
  const records = vectors.size;
  // The software installed on any asset of the check, once each.
  const used = new Uint8Array(records);
  const inTasks = new Uint8Array(installed.start.length);
  for (const t of tasks) for (let i = 0; i < t.assets.length; i++) inTasks[t.assets[i]!] = 1;
  const usedList = new IntList();
  for (let a = 0; a < inTasks.length - 1; a++) {
    if (!inTasks[a]) continue;
    for (let j = installed.start[a]!, end = installed.start[a + 1]!; j < end; j++) {
      const r = installed.records[j]!;
      if (!used[r]) {
        used[r] = 1;
        usedList.push(r);
      }
    }
  }
  const usedRecords = usedList.view().sort();

  let size = 0;
  for (const t of tasks) size += t.assets.length;
  const task = new Int32Array(size);
  const asset = new Int32Array(size);
  const violated = new Uint8Array(size);
  const matchStart = new Int32Array(size + 1);
  const matches = new IntList(Math.max(1024, size));

  const byRule = new Map<number, number[]>();
  tasks.forEach((t, i) => {
    const list = byRule.get(t.rule);
    if (list) list.push(i);
    else byRule.set(t.rule, [i]);
  });
  // Result positions: tasks in their order.
  const firstOf = new Int32Array(tasks.length);
  for (let i = 0, k = 0; i < tasks.length; i++) {
    firstOf[i] = k;
    k += tasks[i]!.assets.length;
  }

  // Reverse index: record → the assets of the check it is installed on (ascending), so that a
  // rule costs the links of the software it matches, not every link of every asset.
  const nAssets = installed.start.length - 1;
  const revStart = new Int32Array(records + 1);
  for (let a = 0; a < nAssets; a++) {
    if (!inTasks[a]) continue;
    for (let j = installed.start[a]!, end = installed.start[a + 1]!; j < end; j++) revStart[installed.records[j]! + 1]!++;
  }
  for (let r = 0; r < records; r++) revStart[r + 1]! += revStart[r]!;
  const revAssets = new Int32Array(revStart[records]!);
  {
    const cursor = revStart.slice(0, records);
    for (let a = 0; a < nAssets; a++) {
      if (!inTasks[a]) continue;
      for (let j = installed.start[a]!, end = installed.start[a + 1]!; j < end; j++) revAssets[cursor[installed.records[j]!]!++] = a;
    }
  }

  const marked = new IntList();
  // Per rule: the matching records of each asset, ascending: buf[first[a] .. first[a] + count[a]).
  const count = new Int32Array(nAssets);
  const first = new Int32Array(nAssets);
  const fill = new Int32Array(nAssets);
  const touched = new IntList();
  let buf = new Int32Array(1024);
  let done = 0;
  for (const [ruleIndex, taskIndexes] of byRule) {
    const rule = rules[ruleIndex]!;
    const bound: BoundTsQuery = rule.query.bind(vectors);
    const candidates = bound.candidates();
    marked.length = 0;
    // Both lists are ascending, so the marked records are too.
    if (candidates) {
      for (let i = 0; i < candidates.length; i++) {
        const r = candidates[i]!;
        if (used[r] && bound.test(r)) marked.push(r);
      }
    } else {
      for (let i = 0; i < usedRecords.length; i++) {
        const r = usedRecords[i]!;
        if (bound.test(r)) marked.push(r);
      }
    }
    touched.length = 0;
    for (let i = 0; i < marked.length; i++) {
      const r = marked.data[i]!;
      for (let p = revStart[r]!, end = revStart[r + 1]!; p < end; p++) {
        const a = revAssets[p]!;
        if (count[a] === 0) touched.push(a);
        count[a]!++;
      }
    }
    let total = 0;
    for (let i = 0; i < touched.length; i++) {
      const a = touched.data[i]!;
      first[a] = total;
      fill[a] = total;
      total += count[a]!;
    }
    if (total > buf.length) buf = new Int32Array(Math.max(total, buf.length * 2));
    for (let i = 0; i < marked.length; i++) {
      const r = marked.data[i]!;
      for (let p = revStart[r]!, end = revStart[r + 1]!; p < end; p++) buf[fill[revAssets[p]!]!++] = r;
    }
    for (const ti of taskIndexes) {
      const t = tasks[ti]!;
      let k = firstOf[ti]!;
      for (let i = 0; i < t.assets.length; i++, k++) {
        const a = t.assets[i]!;
        task[k] = ti;
        asset[k] = a;
        const found = count[a]!;
        for (let q = first[a]!, end = q + found; q < end; q++) matches.push(buf[q]!);
        violated[k] = rule.blacklist ? (found > 0 ? 1 : 0) : found > 0 ? 0 : 1;
        // matchStart is filled below, once every result's matches are known.
        matchStart[k + 1] = found;
      }
    }
    for (let i = 0; i < touched.length; i++) count[touched.data[i]!] = 0;
    done++;
    yield { rule: ruleIndex, done, total: byRule.size };
  }
  // Matches were appended rule by rule; lay them out in result order.
  const counts = matchStart;
  const ordered = new Int32Array(matches.length);
  const offsets = new Int32Array(size + 1);
  for (let k = 0; k < size; k++) offsets[k + 1] = offsets[k]! + counts[k + 1]!;
  // Walk the appended matches in the order they were written (rule by rule, task by task).
  let src = 0;
  for (const [, taskIndexes] of byRule) {
    for (const ti of taskIndexes) {
      const first = firstOf[ti]!;
      const n = tasks[ti]!.assets.length;
      for (let k = first; k < first + n; k++) {
        const c = counts[k + 1]!;
        ordered.set(matches.data.subarray(src, src + c), offsets[k]!);
        src += c;
      }
    }
  }
  return { size, task, asset, violated, matchStart: offsets, matches: ordered };
}

/** Runs the whole check at once. */
export function runCheck(vectors: TsVectorStore, rules: readonly CheckRule[], tasks: readonly CheckTask[], installed: InstalledSoftware): CheckOutcome {
  const steps = checkSteps(vectors, rules, tasks, installed);
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
  }
}

/** Builds the installed-software lists from (asset, record) pairs; each list ascending, without repeats. */
export function installedFrom(assets: number, pairAsset: ArrayLike<number>, pairRecord: ArrayLike<number>, pairs = pairAsset.length): InstalledSoftware {
  const start = new Int32Array(assets + 1);
  for (let i = 0; i < pairs; i++) start[pairAsset[i]! + 1]!++;
  for (let a = 0; a < assets; a++) start[a + 1]! += start[a]!;
  const cursor = start.slice(0, assets);
  const records = new Int32Array(pairs);
  for (let i = 0; i < pairs; i++) records[cursor[pairAsset[i]!]!++] = pairRecord[i]!;
  // Sort each asset's list and drop repeats (compacting in place).
  let w = 0;
  const compact = new Int32Array(assets + 1);
  for (let a = 0; a < assets; a++) {
    const list = records.subarray(start[a]!, start[a + 1]!).sort();
    compact[a] = w;
    for (let i = 0; i < list.length; i++) if (i === 0 || list[i] !== list[i - 1]) records[w++] = list[i]!;
  }
  compact[assets] = w;
  return { start: compact, records: records.subarray(0, w) };
}
