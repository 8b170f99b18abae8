#!/usr/bin/env node
// Reads the JSON reports of vitest and Playwright and prints one plain closing line,
// `N passed, N failed`; exits 1 on any failure, a missing report, or no tests at all.
// `node scripts/summary.mjs [failures] [runner...]`: the first argument adds failures counted
// elsewhere (failed build steps); the runners read (vitest, playwright) are both by default.
import fs from 'node:fs';

const all = { vitest: 'reports/vitest.json', playwright: 'reports/playwright.json' };
const named = process.argv.slice(3);
for (const n of named) if (!(n in all)) throw new Error(`summary: no runner ${n} (${Object.keys(all).join(', ')})`);
const reports = Object.fromEntries(Object.entries(all).filter(([n]) => !named.length || named.includes(n)));
let passed = 0;
let skipped = 0;
const flaky = [];

/** The titles of the Playwright tests that failed and then passed on a retry. */
function flakyOf(suite, path = []) {
  const here = suite.title ? [...path, suite.title] : path;
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests ?? []) if (t.status === 'flaky') flaky.push(`${spec.file}:${spec.line} › ${[...here.slice(1), spec.title].join(' › ')}`);
  }
  for (const s of suite.suites ?? []) flakyOf(s, here);
}
let failed = Number(process.argv[2] ?? 0) || 0;
const problems = [];
for (const [name, file] of Object.entries(reports)) {
  if (!fs.existsSync(file)) {
    problems.push(`${name}: no report at ${file}`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (name === 'vitest') {
    passed += r.numPassedTests ?? 0;
    failed += (r.numFailedTests ?? 0) + (r.success === false && !r.numFailedTests ? 1 : 0);
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  } else {
    passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    failed += r.stats?.unexpected ?? 0;
    if (r.errors?.length) failed += r.errors.length;
    skipped += r.stats?.skipped ?? 0;
    for (const s of r.suites ?? []) flakyOf(s);
  }
}
for (const p of problems) console.error(p);
// Said before the closing line, which stays exactly `N passed, N failed` (CI reads it).
for (const f of flaky) console.error(`flaky (failed, then passed when run again): ${f}`);
if (flaky.length) console.error(`${flaky.length} flaky (counted as passed)`);
if (skipped) console.error(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
