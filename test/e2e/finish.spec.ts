// The finishing details of the incident list, seen in Chromium at 1440x900: a very long title
// keeps the detail panel's buttons and tabs on screen, a 7-digit number is shown whole, the charts
// have legends, and an error notice stays on the page it was raised on.
import { api, expect, incidents, loadedRows, openConsole, snap, test } from './fixtures';

test.use({ viewport: { width: 1440, height: 900 } });

const LONG_TITLE = `${'Suspicious outbound connection from a workstation to a known command-and-control address '.repeat(6)}— web-01`;

test('a very long title and a 7-digit number: the panel keeps its buttons and tabs on screen, the number is whole', async ({ page, served }, testInfo) => {
  const sample = (await incidents(served)).items[0]!;
  const created = await api<{ id: string; display_id: number }>(served, 'POST', '/cruddy/v2/service_asset_findings/create', {
    title: LONG_TITLE,
    display_id: 1234567,
    status: 'new',
    risklevel: 7.5,
    service_asset_id: sample.service_asset_id,
    finding_id: sample.finding_id,
  });
  expect(created.display_id).toBe(1234567);

  // Highest number first: the new incident is the first row.
  await openConsole(page, served, `#/incidents/${created.id}?sort=-display_id`);
  const first = loadedRows(page).first();
  await expect(first.locator('td').nth(1)).toHaveText('1234567', { timeout: 30_000 });
  const cell = await first.locator('td').nth(1).evaluate((td) => {
    const inner = (td.querySelector('.mono') ?? td) as HTMLElement;
    return { text: inner.scrollWidth, box: td.clientWidth, cut: inner.scrollWidth > inner.clientWidth + 1 || inner.getBoundingClientRect().right > td.getBoundingClientRect().right + 1 };
  });
  expect(cell.cut, `the # cell (${cell.box}px) cuts the number (${cell.text}px)`).toBe(false);

  const detail = page.getByRole('complementary', { name: 'Incident' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(LONG_TITLE);
  const layout = await detail.evaluate((panel) => {
    const box = panel.getBoundingClientRect();
    const outside = [...panel.querySelectorAll<HTMLElement>('.detail-actions button, [role="tab"]')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width === 0 || r.right > Math.min(box.right, window.innerWidth) + 1 || r.left < box.left - 1 || r.bottom > window.innerHeight + 1;
      })
      .map((el) => el.textContent?.trim() || el.getAttribute('aria-label') || el.tagName);
    const count = panel.querySelectorAll('.detail-actions button, [role="tab"]').length;
    return { outside, count, overflow: panel.scrollWidth - panel.clientWidth };
  });
  expect(layout.count).toBeGreaterThan(3);
  expect(layout.outside, 'buttons or tabs pushed off screen').toEqual([]);
  expect(layout.overflow, 'the panel scrolls sideways').toBeLessThanOrEqual(1);
  // Every tab can still be chosen.
  for (const name of [/^Occurrences/, /^Timeline/]) {
    await detail.getByRole('tab', { name }).click();
    await expect(detail.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
  }
  await snap(page, testInfo, 'long-title-7-digit');
});

test('charts have a legend naming each series of both charts', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/incidents?range=1y');
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 30_000 });
  const wrap = page.locator('.charts-wrap');
  await expect(wrap).toHaveAttribute('aria-busy', 'false');
  for (const [chart, names] of [
    ['.chart-status', ['New', 'Closed']],
    ['.chart-risk', ['Critical', 'High']],
  ] as const) {
    const legend = wrap.locator(`${chart} .chart-legend`);
    await expect(legend).toBeVisible();
    const items = await legend.locator('.chart-legend-item-text').allTextContents();
    for (const n of names) expect(items, `${chart} legend`).toContain(n);
  }
  await snap(page, testInfo, 'charts-legend');
});

test('an error notice belongs to its page: it does not follow the user to the next one', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 30_000 });
  // The next change of status fails on the server's side.
  await page.route('**/data/public/api/v1/incidents/**', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"disk I/O error","error_code":500}' }));
  await page.route('**/cruddy/v2/service_asset_findings/update**', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"disk I/O error","error_code":500}' }));
  await page.route('**/console/v1/incidents/status**', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"disk I/O error","error_code":500}' }));
  await page.route('**/cruddy/v2/service_asset_findings/mass_update**', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"disk I/O error","error_code":500}' }));
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await page.keyboard.press('s');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio').nth(1).check();
  await dialog.getByRole('button', { name: /^(Change|Apply|Save)/ }).click();
  // Held for a few seconds, then sent: the failure names the reason.
  const alert = page.getByRole('alert').filter({ hasText: /disk I\/O error|500/ });
  await expect(alert).toBeVisible({ timeout: 20_000 });
  await snap(page, testInfo, 'error-notice');
  await page.evaluate(() => {
    location.hash = '#/resources/service_assets';
  });
  await expect(page.getByRole('alert').filter({ hasText: /disk I\/O error|500/ })).toHaveCount(0);
});

test.describe('in Russian', () => {
  test.use({ locale: 'ru-RU' });
  test('the longest risk text, "10,0 Критический", fits its cell', async ({ page, served }, testInfo) => {
    const sample = (await incidents(served)).items[0]!;
    await api(served, 'POST', '/cruddy/v2/service_asset_findings/create', {
      title: 'Максимальный риск — web-01',
      status: 'new',
      risklevel: 10,
      service_asset_id: sample.service_asset_id,
      finding_id: sample.finding_id,
    });
    await openConsole(page, served, '#/incidents?sort=-risklevel');
    const first = loadedRows(page, 'Инциденты').first();
    await expect(first.locator('.risk')).toHaveText(/10,0\s*Критический/, { timeout: 30_000 });
    const cut = await loadedRows(page, 'Инциденты').locator('.risk').evaluateAll((pills) =>
      pills.filter((p) => {
        const cell = p.closest('td, [role="cell"]') as HTMLElement;
        const band = p.querySelector('.risk-band') as HTMLElement | null;
        const edge = cell.getBoundingClientRect().right - Number.parseFloat(getComputedStyle(cell).paddingRight);
        return p.scrollWidth > p.clientWidth + 1 || (band !== null && band.getBoundingClientRect().right > edge + 0.5);
      }).length,
    );
    expect(cut, 'risk cells cut').toBe(0);
    await snap(page, testInfo, 'risk-10-ru');
  });
});
