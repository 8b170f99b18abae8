#!/usr/bin/env node
// `npm test`: the layering rule, the linter, the type check, the build, vitest and Playwright, then one
// closing line `N passed, N failed` read from both runners' JSON reports. A failed step that is
// not a test run (layering, types, build) counts as one failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

fs.mkdirSync('reports', { recursive: true });
for (const f of ['reports/vitest.json', 'reports/playwright.json']) fs.rmSync(f, { force: true });

const run = (label, cmd, args, env = {}) => {
  console.log(`\n▶ ${label}: ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
};

const stepFailures = [];
if (!run('layering', 'node', ['scripts/check-layers.mjs'])) stepFailures.push('layering');
if (!run('lint', 'npx', ['biome', 'lint'])) stepFailures.push('lint');
if (!run('types', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json'])) stepFailures.push('types');
const built = run('build', 'npx', ['electron-vite', 'build']);
if (!built) stepFailures.push('build');
run('unit and HTTP tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=reports/vitest.json']);
if (built) run('browser tests', 'npx', ['playwright', 'test']);

console.log('');
for (const s of stepFailures) console.error(`step failed: ${s}`);
const summary = spawnSync('node', ['scripts/summary.mjs', String(stepFailures.length)], { encoding: 'utf8' });
process.stderr.write(summary.stderr);
process.stdout.write(summary.stdout);
process.exit(summary.status ?? 1);
