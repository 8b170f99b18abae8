import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import LongFirst from './test/helpers/sequencer';

// Five projects, one file per worker at a time (each file starts its own servers on
// free ports, with its own copy of the seeded database, so files run side by side):
//   unit      the modules alone, in the test process (unit-isolated: those that need fresh modules)
//   http      the real server started in the test process, asked over HTTP on real sockets
//   process   the command line and the server as separate processes (spawned, packed), among
//             them kill -9 at random moments and the load test (their checks hold on a busy machine)
//   kill      kill -9 at a moment measured in the same run (a bulk change killed a third of the way
//             through): after the others, alone, so that no other test changes the moment it measures
// `npm run test:fast` runs unit, unit-isolated and http; `npm test` all five.
// Files whose tests spawn processes (the CLI from the build once `npm test` has built it, else
// through tsx) are listed here; every other file under test/http runs a server in-process.
const KILL_FILES = ['sync-kill'].map((name) => `test/http/${name}.test.ts`);
const PROCESS_FILES = [
  'build-output',
  'cli-commands',
  'cli-package',
  'cli',
  'compliance-cli',
  'cookbook',
  'csv-transfer',
  'help-examples',
  'idle',
  'instances',
  'kill',
  'kept-counts',
  'kept-counts-owner',
  'load',
  'openapi-lint',
  'openapi-tools',
  'openapi-typescript',
  'readme-sync-script',
  'remote-clock',
  'sync-cli',
  'sync-faults',
  'totals',
  'transfer-cli',
  'typed-scripts',
].map((name) => `test/http/${name}.test.ts`);
/** Unit files that test what happens when a module is first loaded: they need modules of their own. */
const ISOLATED_UNIT_FILES = ['contract-lazy'].map((name) => `test/unit/${name}.test.ts`);

const common = {
  environment: 'node',
  // A limit for a test that hangs, not a time limit: on a 2-core machine shared with other work a
  // test of a few seconds can take ten times as long (time limits live in test:robust and bench:*).
  testTimeout: 90_000,
  hookTimeout: 120_000,
  pool: 'forks',
  setupFiles: ['test/helpers/setup-file.ts'],
} satisfies TestProjectInlineConfiguration['test'];

export default defineConfig({
  test: {
    // Both cores of a 2-core machine (CI's); RADAR_TEST_WORKERS overrides it.
    maxWorkers: process.env.RADAR_TEST_WORKERS ?? '100%',
    // The long files first, whatever their project (test/helpers/sequencer.ts).
    sequence: { sequencer: LongFirst },
    // Seeds the demo database once for every project.
    globalSetup: ['test/helpers/global-setup.ts'],
    projects: [
      // Worker threads start faster than processes, and the unit files need nothing of a process of
      // their own. They share their worker's modules (isolate: false, as the http files below), but
      // for the files that test what a module does when it is first loaded (ISOLATED_UNIT_FILES):
      // those get fresh modules, in a project of their own.
      { test: { ...common, name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: ISOLATED_UNIT_FILES, pool: 'threads', isolate: false } },
      { test: { ...common, name: 'unit-isolated', include: ISOLATED_UNIT_FILES, pool: 'threads' } },
      // The http files share their worker's modules (isolate: false): the server, the contract and
      // the answer checker load once per worker instead of once per file (about 2.5 s each); each
      // file still starts its own servers over its own databases.
      { test: { ...common, name: 'http', include: ['test/http/**/*.test.ts'], exclude: [...PROCESS_FILES, ...KILL_FILES], isolate: false } },
      // The same for the process files (the helpers, the server some of them start in the test
      // process, and the contract load once per worker).
      { test: { ...common, name: 'process', include: PROCESS_FILES, isolate: false } },
      { test: { ...common, name: 'kill', include: KILL_FILES, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
