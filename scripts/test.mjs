#!/usr/bin/env node
// `npm test`: the layering rule, the linter, the type check, the build, vitest (every project:
// unit, http, process) and Playwright, then one closing line `N passed, N failed` read from both
// runners' JSON reports. A failed step that is not a test run (layering, types, build) counts as
// one failure.
//
// `npm run test:fast` (`--fast`): the layering rule, the linter, the type check, then the unit
// tests and the HTTP tests whose server runs in the test process (vitest's unit and http
// projects; shorter runs of the heavy ones: the fuzzer's 500 cases, 10 rounds of read after write,
// an import of 10,000 records); no build, no child processes, no browser. The closing line counts
// vitest alone.
//
// Both runners use every core (vitest.config.mts, playwright.config.ts; RADAR_TEST_WORKERS=N
// overrides it). The tests that start the CLI start the build just made (RADAR_CLI_BUILT=1).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';

const fast = process.argv.includes('--fast');
const started = Date.now();

fs.mkdirSync('reports', { recursive: true });
for (const f of ['reports/vitest.json', 'reports/playwright.json']) fs.rmSync(f, { force: true });

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs a command with its output shown; answers whether it succeeded. */
const run = (label, cmd, args, env = {}) => {
  console.log(`\n▶ ${label}: ${[cmd, ...args].join(' ')}`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  console.log(`◀ ${label}: ${r.status === 0 ? 'ok' : `exit ${r.status}`} in ${seconds(Date.now() - t0)}`);
  return r.status === 0;
};

/** The quick checks at once (each is one process, mostly waiting on the disk or a single core). */
const checks = [
  ['layering', 'node', ['scripts/check-layers.mjs']],
  ['lint', 'npx', ['biome', 'lint']],
  // Incremental: a later run checks what changed (the build info kept under node_modules/.cache).
  ['types', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/radar-console/tsc.tsbuildinfo']],
];
const checked = await Promise.all(
  checks.map(
    ([label, cmd, args]) =>
      new Promise((resolve) => {
        const t0 = Date.now();
        const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ label, cmd, args, ok: code === 0, out, ms: Date.now() - t0 }));
      }),
  ),
);
const stepFailures = [];
for (const c of checked) {
  console.log(`\n▶ ${c.label}: ${[c.cmd, ...c.args].join(' ')}`);
  process.stdout.write(c.out);
  console.log(`◀ ${c.label}: ${c.ok ? 'ok' : 'failed'} in ${seconds(c.ms)}`);
  if (!c.ok) stepFailures.push(c.label);
}

const vitestArgs = ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=reports/vitest.json'];
if (fast) {
  // Shorter runs of the heavy in-process tests (npm test, then test:robust, in brackets): the
  // fuzzer's 500 cases (2,000; 10,000), 10 rounds of read after write (30), an import of 10,000
  // records while the server is asked (20,000; 100,000). Each variable may be set to change it.
  const short = { FUZZ_RUNS: '500', READ_AFTER_WRITE_ROUNDS: '10', IMPORT_ROWS: '10000' };
  run('unit and in-process HTTP tests', 'npx', [...vitestArgs, '--project', 'unit', '--project', 'http'], { ...short, ...process.env });
} else {
  // The build the package is made of (the client's types included): the process tests start
  // the CLI from it and pack it.
  const built = run('build', 'npx', ['electron-vite', 'build', '--logLevel', 'warn']) && run('client types', 'npx', ['tsc', '-p', 'tsconfig.client.json']);
  if (!built) stepFailures.push('build');
  run('unit, HTTP and process tests', 'npx', vitestArgs, built ? { RADAR_CLI_BUILT: '1' } : {});
  if (built) run('browser tests', 'npx', ['playwright', 'test']);
}

console.log('');
for (const s of stepFailures) console.error(`step failed: ${s}`);
console.log(`${fast ? 'test:fast' : 'npm test'} took ${seconds(Date.now() - started)}`);
const summary = spawnSync('node', ['scripts/summary.mjs', String(stepFailures.length), ...(fast ? ['vitest'] : [])], { encoding: 'utf8' });
process.stderr.write(summary.stderr);
process.stdout.write(summary.stdout);
process.exit(summary.status ?? 1);
