// A large export from the incident list is a real download: Chromium writes it to disk as it
// streams (a single-use link the console follows), the tray follows it to the end, and the
// tab's memory does not grow with the file. 30,000 incidents (a file of about 40 MiB) in
// `npm test`; `npm run test:robust` exports 150,000 (about 200 MiB). EXPORT_INCIDENTS sets it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIncidentDataset } from '../../bench/lib';
import { openDatabase } from '../../src-main/store/db';
import { expect, loadedRows, openConsole, snap, startServe, test as base, type Served } from './fixtures';

const INCIDENTS = Number(process.env.EXPORT_INCIDENTS ?? 30_000);

const test = base.extend<{}, { big: Served }>({
  big: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures this one needs from the pattern (none)
    async ({}, use) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-e2e-big-'));
      const file = path.join(dir, 'big.sqlite');
      const { db } = openDatabase(file);
      buildIncidentDataset(db, { incidents: INCIDENTS, assets: 2000, findings: 300, seed: 11 }, () => {});
      db.close();
      const s = await startServe(['--seed', 'none'], file);
      await use(s);
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker', timeout: 240_000 },
  ],
});

test('a large NDJSON export from the incident list downloads to disk; the tab’s heap does not grow with it', async ({ page, big }, testInfo) => {
  test.setTimeout(240_000);
  await openConsole(page, big);
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(page.getByTestId('total')).toHaveText(`${INCIDENTS.toLocaleString('en-GB')} incidents`);

  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.enable');
  /** The tab's live JavaScript heap and the ArrayBuffers it holds (after a collection). */
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const u = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number; embedderHeapUsedSize?: number };
    return u.usedSize + (u.backingStorageSize ?? 0) + (u.embedderHeapUsedSize ?? 0);
  };
  const exportAll = async () => {
    await page.getByRole('button', { name: 'Export' }).click();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^NDJSON/ }).click()]);
    return dl;
  };
  const progress = page.getByTestId('export-progress');

  // A first export loads and warms what an export uses (menu, tray); the second one is measured.
  const warm = await exportAll();
  await expect(progress.filter({ hasText: warm.suggestedFilename() })).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Dismiss' }).click();
  await expect(progress).toHaveCount(0);

  const before = await heap();
  // The live heap sampled while the download runs: a file held by the page would show here.
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await heap());
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const dl = await exportAll();
  expect(dl.suggestedFilename()).toMatch(/^service_asset_findings-\d{8}T\d{6}Z\.ndjson$/);
  await expect(progress).toHaveAttribute('data-state', 'running');
  await snap(page, testInfo, 'export-download-running');
  const file = (await dl.path())!;
  await expect(progress).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(progress.getByTestId('export-numbers')).toHaveText(new RegExp(`^${INCIDENTS.toLocaleString('en-GB')} of ${INCIDENTS.toLocaleString('en-GB')} rows · `));
  sampling = false;
  await sampler;
  const after = await heap();
  await snap(page, testInfo, 'export-download-done');

  // The file on disk: one line per incident, each a whole record.
  const size = fs.statSync(file).size;
  let lines = 0;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(1 << 20);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) for (let i = buf.indexOf(10); i >= 0 && i < n; i = buf.indexOf(10, i + 1)) lines++;
  fs.closeSync(fd);
  expect(lines).toBe(INCIDENTS);
  const head = fs.readFileSync(file, { encoding: 'utf8', flag: 'r' }).slice(0, 4000).split('\n')[0]!;
  expect(JSON.parse(head)).toHaveProperty('display_id');

  const MiB = 1024 * 1024;
  const grew = after - before;
  const peakGrowth = peak - before;
  const figures = `file ${(size / MiB).toFixed(1)} MiB; the tab's live heap before ${(before / MiB).toFixed(1)} MiB, at most ${(peak / MiB).toFixed(1)} MiB during, ${(after / MiB).toFixed(1)} MiB after`;
  testInfo.annotations.push({ type: 'figures', description: figures });
  console.log(`export download: ${figures}`);
  // About 1.4 KB a record.
  expect(size).toBeGreaterThan(1000 * INCIDENTS);
  // The file never passes through the page: its heap moves by a few MiB at most, far below the
  // file (a page holding the file would grow by its size at least).
  expect(grew).toBeLessThan(Math.min(8 * MiB, size / 2));
  expect(peakGrowth).toBeLessThan(Math.min(16 * MiB, size / 2));
});
