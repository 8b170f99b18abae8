#!/usr/bin/env node
// `npm test`: the layering rule, the linter, the type check, the build, vitest (every project:
// unit, http, process) and Playwright, then one closing line `N passed, N failed` read from both
// runners' JSON reports. A failed step that is not a test run (layering, types, build) counts as
// one failure.
//
// `npm run test:fast` (`--fast`): the layering rule, the linter, the type check, then the unit
// tests and the HTTP tests whose server runs in the test process (vitest's unit, unit-isolated and http
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
  const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      console.log(`◀ ${label}: ${code === 0 ? 'ok' : `exit ${code}`} in ${seconds(Date.now() - t0)}`);
      resolve(code === 0);
    }),
  );
};

/**
 * Starts a command with its output kept; resolves when it ends, with whether it succeeded. `nice`
 * (Unix) runs it at the lowest priority: it takes only what the tests leave of the cores.
 */
const start = (label, cmd, args, { nice = false } = {}) => {
  const t0 = Date.now();
  const lowest = nice && process.platform !== 'win32';
  const child = spawn(lowest ? 'nice' : cmd, lowest ? ['-n', '19', cmd, ...args] : args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ label, cmd, args, ok: code === 0, out, ms: Date.now() - t0 })));
};

/** Prints what a started command wrote; answers whether it succeeded. */
const report = (c) => {
  console.log(`\n▶ ${c.label}: ${[c.cmd, ...c.args].join(' ')}`);
  process.stdout.write(c.out);
  console.log(`◀ ${c.label}: ${c.ok ? 'ok' : 'failed'} in ${seconds(c.ms)}`);
  return c.ok;
};

// The quick checks: one process each, started at once at the lowest priority, so that they run on
// what the build and the tests leave of the cores (a test waiting on a child process or a socket,
// the kill tests that run one at a time) instead of before them; their output is printed when the
// tests are done.
const checks = Promise.all(
  [
    ['layering', 'node', ['scripts/check-layers.mjs']],
    ['lint', 'npx', ['biome', 'lint']],
    // Incremental: a later run checks what changed (the build info kept under node_modules/.cache).
    ['types', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/radar-console/tsc.tsbuildinfo']],
  ].map(([label, cmd, args]) => start(label, cmd, args, { nice: true })),
);
const stepFailures = [];
const reportChecks = async () => {
  for (const c of await checks) if (!report(c)) stepFailures.push(c.label);
};

const vitestArgs = ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=reports/vitest.json'];
if (fast) {
  // Shorter runs of the heavy in-process tests (npm test, then test:robust, in brackets): the
  // fuzzer's 500 cases (2,000; 10,000), 10 rounds of read after write (30), an import of 10,000
  // records while the server is asked (20,000; 100,000). Each variable may be set to change it.
  const short = { FUZZ_RUNS: '500', READ_AFTER_WRITE_ROUNDS: '10', IMPORT_ROWS: '10000' };
  await run('unit and in-process HTTP tests', 'npx', [...vitestArgs, '--project', 'unit', '--project', 'unit-isolated', '--project', 'http'], { ...short, ...process.env });
  await reportChecks();
} else {
  // The build the package is made of and the client's types, side by side (neither reads the
  // other's output): the process tests start the CLI from it and pack it.
  const built = (await Promise.all([start('build', 'npx', ['electron-vite', 'build', '--logLevel', 'warn']), start('client types', 'npx', ['tsc', '-p', 'tsconfig.client.json'])])).map(report).every(Boolean);
  if (!built) stepFailures.push('build');
  await run('unit, HTTP and process tests', 'npx', vitestArgs, built ? { RADAR_CLI_BUILT: '1' } : {});
  // The checks are done before the browser starts (they usually are long before).
  await reportChecks();
  if (built) await run('browser tests', 'npx', ['playwright', 'test']);
}

console.log('');
for (const s of stepFailures) console.error(`step failed: ${s}`);
console.log(`${fast ? 'test:fast' : 'npm test'} took ${seconds(Date.now() - started)}`);
const summary = spawnSync('node', ['scripts/summary.mjs', String(stepFailures.length), ...(fast ? ['vitest'] : [])], { encoding: 'utf8' });
process.stderr.write(summary.stderr);
process.stdout.write(summary.stdout);
process.exit(summary.status ?? 1);
