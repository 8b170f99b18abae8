// The API reference reads /openapi.json without a validation error: Scalar checks the document
// against its own model of OpenAPI 3.1 and logs "document validation errors" for every schema it
// cannot read (a schema without a type, for one); the page must log none, and render.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';

test('Scalar reads the document without a validation error', async ({ page }) => {
  test.setTimeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-reference-'));
  const apiKey = crypto.randomBytes(16).toString('hex');
  const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--db', path.join(dir, 'r.sqlite'), '--port', '0', '--routing-port', '0', '--api-key', apiKey, '--seed', 'none'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const main = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('serve did not get ready')), 60_000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /radar-console ready (\{.*\})/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve((JSON.parse(m[1]!) as { main: string }).main);
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const warnings: string[] = [];
    let added = false;
    page.on('console', (m) => {
      if (/addDocument/.test(m.text())) added = true;
      if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
    });
    await page.goto(`${main}/reference/#key=${apiKey}`);
    await expect(page.getByRole('heading', { name: 'Radar console local API' })).toBeVisible({ timeout: 120_000 });
    await expect.poll(() => added, { timeout: 120_000 }).toBe(true);
    expect(warnings.filter((w) => /validation/i.test(w))).toEqual([]);
    await expect(page.getByText('Create responsible groups').first()).toBeVisible();
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
