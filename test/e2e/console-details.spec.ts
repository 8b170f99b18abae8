// The smaller things a keyboard-first analyst meets all day: a skip link past the header and the
// filters, the charts named and their toggle pressed, the grouped list naming what it counts, the
// hold's countdown starting at its length, each incident opening on its overview, the CSV's
// columns on screen being the table's, the v2 builder naming a mistake as its form does (and
// dropping the answer of an earlier request), the public query shown readable, and alert types
// and the server's refusals in Russian.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, loadedRows, openConsole, test } from './fixtures';

test.use({ viewport: { width: 1440, height: 900 } });

test('keyboard and list details: skip link, charts, group totals, the countdown, the overview first, CSV columns on screen', async ({ page, served }) => {
  test.setTimeout(180_000);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });

  // The first Tab stop skips the header, the filters and the charts: Enter lands in the table.
  await page.locator('body').focus();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('button', { name: 'Skip to the list' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('incidents-scroll')).toBeFocused();

  // The charts are named, show a focus ring, and their toggle says whether they are shown.
  const toggle = page.getByRole('button', { name: 'Charts', exact: true });
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  const chart = page.locator('.chart-status svg[role="application"]');
  await expect(chart).toHaveAccessibleName(/Incidents over time by status/);
  await chart.focus();
  await page.keyboard.press('ArrowRight');
  expect(await chart.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('.chart-status')).toHaveCount(0);
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  // The tooltip lists the risk bands in the legend's order (Critical first), then their total.
  const bars = page.locator('.chart-risk .chart-bar');
  await expect(bars.first()).toBeVisible({ timeout: 30_000 });
  const box = (await bars.last().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const tip = page.locator('.chart-risk .chart-tip');
  await expect(tip).toBeVisible();
  const names = (await tip.locator('.chart-tip-row:not(.chart-tip-total) > span:nth-child(2)').allTextContents()).map((x) => x.trim());
  const counts = (await tip.locator('.chart-tip-row:not(.chart-tip-total) .chart-tip-n').allTextContents()).map((x) => Number(x.replace(/\D/g, '')));
  const legend = ['Critical', 'High', 'Medium', 'Low', 'None'];
  expect(names.length).toBeGreaterThan(1);
  expect(names).toEqual(legend.filter((b) => names.includes(b)));
  await expect(tip.locator('.chart-tip-total')).toContainText('Total');
  expect(Number((await tip.locator('.chart-tip-total .chart-tip-n').textContent())!.replace(/\D/g, ''))).toBe(counts.reduce((a, b) => a + b, 0));
  await page.mouse.move(0, 0);

  // The grouped list names what it counts, and the asset names arrive with the first groups.
  await page.locator('select[aria-label="Group by"]').selectOption('service_asset_id');
  const groups = await api<{ items: { value: unknown; count: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'service_asset_id', filters: [] });
  const total = groups.items.reduce((n, g) => n + g.count, 0);
  await expect(page.getByTestId('groups-total')).toHaveText(`${groups.items.length.toLocaleString('en-GB')} assets, ${total.toLocaleString('en-GB')} incidents`, { timeout: 30_000 });
  await expect(page.getByTestId('group').first()).not.toContainText('…', { timeout: 10_000 });
  await page.locator('select[aria-label="Group by"]').selectOption('');
  await expect(loadedRows(page).first()).toBeVisible();

  // The hold's countdown starts at its length (5 s), never above it.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __held: string[] }).__held = seen;
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid="held-change"]');
      if (el?.textContent) seen.push(el.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByTestId('incidents-scroll').focus();
  await page.keyboard.press('r');
  const risk = page.getByRole('dialog', { name: /^Change the risk level/ });
  await risk.getByRole('textbox').fill('4.2');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('held-change')).toContainText('Sending in 5 s');
  await expect(page.getByTestId('held-change')).toContainText('Sending in 3 s');
  await page.keyboard.press('u');
  await expect(page.getByTestId('held-change')).toHaveCount(0);
  const counted = await page.evaluate(() => (window as unknown as { __held: string[] }).__held.map((s) => Number(/Sending in (\d+) s/.exec(s)?.[1] ?? NaN)));
  expect(counted.length).toBeGreaterThan(0);
  // Every number shown was between the hold's length and 1, counting down, never up.
  expect(counted[0]).toBe(5);
  for (const [i, n] of counted.entries()) {
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(5);
    if (i > 0) expect(n).toBeLessThanOrEqual(counted[i - 1]!);
  }

  // Each incident opens on its overview, whichever tab the previous one was left on.
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary');
  await detail.getByRole('tab', { name: /^Timeline/ }).click();
  await expect(detail.getByRole('tab', { name: /^Timeline/ })).toHaveAttribute('aria-selected', 'true');
  await page.getByTestId('incidents-scroll').focus();
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  await expect(detail.getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');

  // CSV: the columns on screen are the table's, named as its headers, Owner among them.
  const headers = (await page.getByRole('table', { name: 'Incidents', exact: true }).locator('thead th').allTextContents()).map((h) => h.replace(/[▲▼]/g, '').trim()).filter((h) => h && h !== '#');
  expect(headers).toContain('Owner');
  await page.getByRole('button', { name: 'Export' }).click();
  await page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^CSV/ }).click();
  const csv = page.getByRole('dialog', { name: /as CSV$/ });
  for (const h of headers) await expect(csv.getByRole('checkbox', { name: new RegExp(`^${h}\\b`) }).first()).toBeChecked();
  await page.keyboard.press('Escape');
});

test('builders: a mistake named as the form names it, marked, the earlier answer dropped; the public query readable', async ({ page, served }) => {
  test.setTimeout(120_000);
  await openConsole(page, served, '#/search');
  const form = page.getByRole('form', { name: 'Request', exact: true });
  await form.getByLabel('Resource').selectOption('service_asset_findings');
  const editor = page.getByRole('textbox', { name: 'Request as JSON' });
  const request = (risk: unknown) => ({
    ...emptySearch(20),
    filters: [
      { field: 'status', filter_type: 'equal', value: 'new', negation: false },
      { field: 'risklevel', filter_type: 'equal', value: risk, negation: false },
    ],
  });
  await editor.fill(JSON.stringify(request(5), null, 2));
  await expect(page.getByTestId('validity')).toHaveText(/Valid request/);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('result-total')).toBeVisible({ timeout: 30_000 });

  await editor.fill(JSON.stringify(request('high'), null, 2));
  const validity = page.getByTestId('validity');
  await expect(validity).toContainText('Value of filter 2: invalid value for risklevel');
  await expect(validity).not.toContainText('filters.1');
  await expect(form.getByLabel('Value of filter 2', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Value of filter 1', { exact: true })).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('result-total')).toHaveCount(0);

  // The public builder shows its query as typed: Cyrillic, commas and spaces as they are.
  await page.goto(`${served.main}/#/public`);
  const query = page.getByRole('textbox', { name: 'Query string', exact: true });
  await query.fill('title=like,Подбор пароля&order=-created_at');
  await query.blur();
  await expect(query).toHaveValue('title=like,Подбор пароля&order=-created_at');
  await expect(page.getByTestId('validity')).toHaveText(/Valid request/);
});

test.describe('in Russian', () => {
  test.use({ locale: 'ru-RU' });

  test('alert types and the server’s refusals are in Russian', async ({ page, served }) => {
    test.setTimeout(120_000);
    const made = await api<{ items: { id: string }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/mass_create', [
      { title: 'Открытый порт SMB — msk-fs-02', status: 'new', risklevel: 6.1, alert_type: 'scanner' },
      { title: 'Проверка на проникновение — msk-web-04', status: 'new', risklevel: 7.7, alert_type: 'pentest' },
    ]);
    const [scanner, pentest] = [made.items[0]!.id, made.items[1]!.id];
    await openConsole(page, served, `#/incidents/${scanner}`);
    const detail = page.getByRole('complementary');
    await expect(detail.locator('dl.kv')).toContainText('сканер', { timeout: 30_000 });
    await page.goto(`${served.main}/#/incidents/${pentest}`);
    await expect(detail.locator('dl.kv')).toContainText('пентест', { timeout: 30_000 });
    await expect(detail.locator('dl.kv')).not.toContainText('pentest');

    // A record that is not there: the server's "not found" in Russian.
    await page.goto(`${served.main}/#/r/service_assets/00000000-0000-4000-8000-000000000000`);
    await expect(page.getByRole('alert').filter({ hasText: 'HTTP 404' })).toHaveText('HTTP 404: не найдено', { timeout: 30_000 });
  });
});
