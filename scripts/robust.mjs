#!/usr/bin/env node
// `npm run test:robust`: the long versions of the robustness tests, then their figures.
//   10,000 fuzz cases over every operation of /openapi.json   (FUZZ_RUNS)
//   100 kills with kill -9: 50 during imports, 50 during mass operations   (KILL_RUNS per scenario)
//   200 clients writing for 60 s, then kill -9 and every acknowledged write checked   (LOAD_CLIENTS, LOAD_SECONDS)
//   the import-freeze test (100,000 rows imported while the server is asked)
//   the sync kill tests (kill -9 during a bulk change of a snapshot and during a push)
// The server under test is the built one (out/main/cli.js, built first): it starts in well under
// a second, which a hundred restarts need. Each variable above may be set to change the size.
import { spawn, spawnSync } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';

const env = {
  FUZZ_RUNS: '10000',
  KILL_RUNS: '50',
  LOAD_CLIENTS: '200',
  LOAD_SECONDS: '60',
  ...process.env,
  RADAR_CLI_BUILT: '1',
};

console.log('▶ build');
const build = spawnSync('npx', ['electron-vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const files = ['test/http/fuzz.test.ts', 'test/http/kill.test.ts', 'test/http/load.test.ts', 'test/http/import-freeze.test.ts', 'test/http/sync-kill.test.ts'];
console.log(`▶ vitest ${files.join(' ')} (FUZZ_RUNS=${env.FUZZ_RUNS} KILL_RUNS=${env.KILL_RUNS} LOAD_CLIENTS=${env.LOAD_CLIENTS} LOAD_SECONDS=${env.LOAD_SECONDS})`);
const started = Date.now();
const child = spawn('npx', ['vitest', 'run', '--no-file-parallelism', ...files], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const figures = [];
let out = '';
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  out += d;
  let nl;
  while ((nl = out.indexOf('\n')) >= 0) {
    const line = stripVTControlCharacters(out.slice(0, nl)).trim();
    out = out.slice(nl + 1);
    if (/^(fuzz|kill -9|load|import of \d+ rows):/.test(line)) figures.push(line);
  }
});
child.on('exit', (code) => {
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  console.log(`\nrobustness figures (${new Date().toISOString().slice(0, 10)}, ${minutes} min):`);
  for (const f of figures) console.log(`  ${f}`);
  console.log(code === 0 ? 'robust: all passed' : `robust: FAILED (vitest exit ${code})`);
  process.exit(code ?? 1);
});
