#!/usr/bin/env node
// `npm run test:robust`: the long versions of the robustness tests and the tests' time limits,
// then their figures. `npm test` runs each of these files too, at a smaller size and without the
// time limits (RADAR_ROBUST unset), so that a regression still fails there.
//   10,000 fuzz cases over every operation of /openapi.json   (FUZZ_RUNS)
//   100 kills with kill -9: 50 during imports, 50 during mass operations   (KILL_RUNS per scenario)
//   200 clients writing for 60 s, then kill -9 and every acknowledged write checked   (LOAD_CLIENTS, LOAD_SECONDS)
//   100,000 rows imported while the server is asked, with the answers' time limits   (IMPORT_ROWS)
//   the sync kill tests: kill -9 during a bulk change of 12,000 incidents of a snapshot (SYNC_KILL_ROWS)
//   and during a push
//   an import of 40,000 records followed and cancelled over HTTP   (IMPORT_CANCEL_ROWS)
//   the time limits of a refused write (busy) and of the readers' linear time (input-bounds)
//   rule queries chained to 10,000 operands compared with PostgreSQL (textsearch-postgres; npm test: 5,000)
//   a 150,000-incident export downloaded by Chromium, the tab's heap measured   (EXPORT_INCIDENTS)
// The server under test is the built one (out/main/cli.js, built first): it starts in well under
// a second, which a hundred restarts need. Each variable above may be set to change the size.
// The files run one at a time, so that the figures are not measured against each other.
import { spawn, spawnSync } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';

const env = {
  FUZZ_RUNS: '10000',
  KILL_RUNS: '50',
  LOAD_CLIENTS: '200',
  LOAD_SECONDS: '60',
  IMPORT_ROWS: '100000',
  SYNC_KILL_ROWS: '12000',
  IMPORT_CANCEL_ROWS: '40000',
  EXPORT_INCIDENTS: '150000',
  ...process.env,
  RADAR_ROBUST: '1',
  RADAR_CLI_BUILT: '1',
};

console.log('▶ build');
const build = spawnSync('npx', ['electron-vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const started = Date.now();
const figures = [];
const FIGURE = /^(fuzz|kill -9|load|import of \d+ rows|reader|export download):/;

/** Runs a command, its output shown and the figure lines kept; answers its exit code. */
function run(cmd, args, extraEnv = {}) {
  console.log(`\n▶ ${[cmd, ...args].join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      out += d;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = stripVTControlCharacters(out.slice(0, nl)).trim();
        out = out.slice(nl + 1);
        if (FIGURE.test(line)) figures.push(line);
      }
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const files = [
  'test/http/fuzz.test.ts',
  'test/http/kill.test.ts',
  'test/http/load.test.ts',
  'test/http/import-freeze.test.ts',
  'test/http/transfer.test.ts',
  'test/http/sync-kill.test.ts',
  'test/http/busy.test.ts',
  'test/http/input-bounds.test.ts',
  'test/unit/input-bounds.test.ts',
  'test/unit/textsearch-postgres.test.ts',
];
console.log(`FUZZ_RUNS=${env.FUZZ_RUNS} KILL_RUNS=${env.KILL_RUNS} LOAD_CLIENTS=${env.LOAD_CLIENTS} LOAD_SECONDS=${env.LOAD_SECONDS} IMPORT_ROWS=${env.IMPORT_ROWS} IMPORT_CANCEL_ROWS=${env.IMPORT_CANCEL_ROWS} SYNC_KILL_ROWS=${env.SYNC_KILL_ROWS} EXPORT_INCIDENTS=${env.EXPORT_INCIDENTS}`);
const vitest = await run('npx', ['vitest', 'run', '--no-file-parallelism', ...files]);
const browser = await run('npx', ['playwright', 'test', '--workers=1', '--reporter=list', 'test/e2e/export-download.spec.ts']);

const minutes = ((Date.now() - started) / 60000).toFixed(1);
console.log(`\nrobustness figures (${new Date().toISOString().slice(0, 10)}, ${minutes} min):`);
for (const f of figures) console.log(`  ${f}`);
const ok = vitest === 0 && browser === 0;
console.log(ok ? 'robust: all passed' : `robust: FAILED (vitest exit ${vitest}, playwright exit ${browser})`);
process.exit(ok ? 0 : 1);
