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
  } else {
    passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    failed += r.stats?.unexpected ?? 0;
    if (r.errors?.length) failed += r.errors.length;
  }
}
for (const p of problems) console.error(p);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
