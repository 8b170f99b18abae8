// First start lands in the console: `npm start` (here in browser mode, as on a machine without
// Electron's binary; its build step is the one `npm test` has run) prints the ready line alone on
// stdout and the console's address with the real key on a line of its own on stderr; that address,
// opened as printed, is the console signed in (no key prompt), and the key leaves the address bar.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from './fixtures';

test('npm start prints the console address with the key; opened as printed, the console is signed in', async ({ page }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-start-'));
  const child = spawn(process.execPath, ['scripts/start.mjs', '--db', path.join(dir, 'radar.sqlite'), '--port', '0', '--routing-port', '0'], {
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', RADAR_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  try {
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address within 60 s; stderr: ${err}`)), 60_000);
      const look = () => {
        const line = err.split('\n').find((l) => /^http:\/\/127\.0\.0\.1:\d+\/#key=/.test(l));
        if (line && out.includes('\n')) {
          clearTimeout(timer);
          resolve(line);
        }
      };
      child.stderr.on('data', look);
      child.stdout.on('data', look);
      child.on('exit', (code) => reject(new Error(`start exited ${code}: ${err}`)));
    });
    const lines = out.trimEnd().split('\n');
    expect(lines, 'stdout: the ready line alone').toHaveLength(1);
    const ready = JSON.parse(lines[0]!.replace(/^radar-console ready /, '')) as { main: string; apiKey: string };
    expect(address, 'the real key, not a placeholder').toBe(`${ready.main}/#key=${encodeURIComponent(ready.apiKey)}`);
    expect(ready.apiKey.length).toBeGreaterThanOrEqual(8);

    await page.goto(address);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await expect(page.getByLabel('API key')).toHaveCount(0);
    await expect.poll(() => page.url()).toBe(`${ready.main}/`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
