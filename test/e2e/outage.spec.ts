// An outage seen as one: the server stopped → a banner within seconds and an action that fails
// names the reason; the server back on the same port → the banner clears and the list reads
// itself again, without a reload.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyDemoDatabase } from '../helpers/seed';
import { expect, loadedRows, snap, test } from './fixtures';

function serve(db: string, apiKey: string, port: number): Promise<{ child: ChildProcess; main: string }> {
  const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--db', db, '--port', String(port), '--routing-port', '0', '--api-key', apiKey], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve did not get ready')), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('radar-console ready '));
      if (line) {
        clearTimeout(timer);
        resolve({ child, main: (JSON.parse(line.slice('radar-console ready '.length)) as { main: string }).main });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

const stop = (c: ChildProcess) =>
  new Promise<void>((res) => {
    if (c.exitCode !== null) return res();
    c.once('exit', () => res());
    c.kill('SIGTERM');
  });

test('server stopped: a banner within seconds and failures that say why; restarted: it clears and work resumes', async ({ page }, testInfo) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-outage-'));
  const db = path.join(dir, 'outage.sqlite');
  // A copy of the run's seeded demo database (seeding it here would take the server's start).
  copyDemoDatabase(db);
  const key = crypto.randomBytes(16).toString('hex');
  let s = await serve(db, key, 0);
  const port = Number(new URL(s.main).port);
  try {
    await page.goto(`${s.main}/#key=${key}`);
    await expect(loadedRows(page).first()).toBeVisible();
    await expect(page.getByTestId('outage')).toHaveCount(0);
    await stop(s.child);
    const stoppedAt = Date.now();
    const banner = page.getByTestId('outage');
    await expect(banner).toContainText('The server is not answering.', { timeout: 10_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    // An action meanwhile names the reason, not the transport's message.
    await page.keyboard.press('Shift+R');
    await expect(page.getByRole('alert').filter({ hasText: 'server not answering' })).toBeVisible({ timeout: 10_000 });
    await expect(page.locator('body')).not.toContainText('<no response>');
    await snap(page, testInfo, 'outage-banner');
    s = await serve(db, key, port);
    await expect(banner).toHaveCount(0, { timeout: 15_000 });
    await expect(loadedRows(page).first()).toBeVisible();
    await expect(page.getByTestId('total')).toHaveText(/^\d+ incidents$/);
    await expect(page.getByRole('button', { name: /^Instance: / })).toHaveAttribute('data-health', 'ok', { timeout: 15_000 });
  } finally {
    await stop(s.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('server stopped before the instance list answered: the switcher says not answering, as the banner does', async ({ page }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-outage-'));
  const db = path.join(dir, 'outage.sqlite');
  copyDemoDatabase(db);
  const key = crypto.randomBytes(16).toString('hex');
  const s = await serve(db, key, 0);
  try {
    // The instance list (and its health) is held back until the server has stopped: the console
    // knows the rows but not yet which instances there are.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/console\/v1\/instances(\/health)?$/, async (route) => {
      await held;
      await route.abort('connectionrefused');
    });
    await page.goto(`${s.main}/#key=${key}`);
    await expect(loadedRows(page).first()).toBeVisible();
    const switcher = page.getByRole('button', { name: /^Instance: / });
    await stop(s.child);
    release();
    await expect(page.getByTestId('outage')).toContainText('The server is not answering.', { timeout: 10_000 });
    await expect(switcher).toHaveAttribute('data-health', 'down');
    await expect(switcher.getByRole('img')).toHaveAccessibleName(/^not answering/);
  } finally {
    await stop(s.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
