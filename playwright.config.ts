import fs from 'node:fs';
import { defineConfig } from '@playwright/test';

// Debian's Chromium by default (Playwright's own download is not reachable everywhere);
// CHROMIUM_PATH overrides it, and PLAYWRIGHT_BUNDLED=1 uses Playwright's own browser.
const systemChromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const executablePath = process.env.PLAYWRIGHT_BUNDLED || !fs.existsSync(systemChromium) ? undefined : systemChromium;

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results',
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: 'reports/playwright.json' }]],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    screenshot: 'on',
    trace: 'retain-on-failure',
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
