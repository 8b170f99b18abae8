import fs from 'node:fs';
import os from 'node:os';
import { defineConfig } from '@playwright/test';

// Debian's Chromium by default (Playwright's own download is not reachable everywhere): its
// headless shell where installed (the browser without the desktop's windowing, as Playwright's
// own headless runs use; about a tenth less CPU per spec), else the full browser. CHROMIUM_PATH
// overrides it, and PLAYWRIGHT_BUNDLED=1 uses Playwright's own browser.
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const systemChromium = process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
const executablePath = process.env.PLAYWRIGHT_BUNDLED || !fs.existsSync(systemChromium) ? undefined : systemChromium;

// Workers: one more than the cores (RADAR_TEST_WORKERS overrides it): a spec spends part of its
// time waiting (a change's hold, an instance's health check, a server starting), and a third
// worker on 2 cores fills it (the browser phase took 266 s instead of about 450 s with two).
// Each spec file has a server and a database of its own (test/e2e/fixtures.ts), so files run side
// by side; the tests of one file run in order, on one worker.
const workers = process.env.RADAR_TEST_WORKERS ?? String(os.availableParallelism() + 1);

// RADAR_E2E_ORDER=reverse runs the spec files last to first (with --workers=1: one after the
// other): each file a project that depends on the one after it. `--shuffle` gives a random order.
const specs = fs
  .readdirSync('test/e2e')
  .filter((f) => f.endsWith('.spec.ts'))
  .sort();
const projects =
  process.env.RADAR_E2E_ORDER === 'reverse'
    ? specs.map((f, i) => ({ name: f, testMatch: f, dependencies: specs.slice(i + 1, i + 2) }))
    : undefined;

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results',
  globalSetup: './test/e2e/global-setup.ts',
  timeout: 60_000,
  // The 2 cores are shared (with the other worker, the server, other work): an answer on screen
  // may take longer than Playwright's default 5 s to appear.
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // A browser test that fails is run once more: one that then passes is reported as flaky, by
  // name, in the run's closing lines (scripts/summary.mjs), and counted; one that fails twice fails
  // the run. RADAR_E2E_RETRIES=0 runs each once (to hunt a flaky test).
  retries: Number(process.env.RADAR_E2E_RETRIES ?? 1),
  workers: /^\d+$/.test(workers) ? Number(workers) : workers,
  reporter: [['list'], ['json', { outputFile: 'reports/playwright.json' }]],
  projects,
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    // The console as a user who asks for reduced motion sees it: no endless animation (the live
    // dot, the loading bar) for the software renderer to redraw at every frame.
    reducedMotion: 'reduce',
    // Kept when a test fails; the screenshots a person looks at are taken by the tests (snap).
    screenshot: 'only-on-failure',
    // A trace (the DOM at each step) is recorded only when asked for, RADAR_TRACE=1 (kept for the
    // failing tests): recording it in every test costs about a sixth of the browser phase's CPU
    // even when it is thrown away. Re-run a failing spec with it: RADAR_TRACE=1 npx playwright test <spec>.
    trace: process.env.RADAR_TRACE === '1' ? { mode: 'retain-on-failure', screenshots: false } : 'off',
    launchOptions: {
      executablePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
