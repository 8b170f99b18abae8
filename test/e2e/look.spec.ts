// The look at 1280x800, light and dark, English and Russian: the main views fit without
// horizontal overflow, the header stays one line, loading does not shift the layout; the
// screenshots are kept in test-results/ to be looked at.
import { expect, loadedRows, openConsole, snap, test, LOOK } from './fixtures';

const combos = [
  { theme: 'light', locale: 'en-GB', table: 'Incidents', detail: 'Incident' },
  { theme: 'dark', locale: 'en-GB', table: 'Incidents', detail: 'Incident' },
  { theme: 'light', locale: 'ru-RU', table: 'Инциденты', detail: 'Инцидент' },
  { theme: 'dark', locale: 'ru-RU', table: 'Инциденты', detail: 'Инцидент' },
] as const;

for (const c of combos) {
  test.describe(`${c.theme}, ${c.locale}`, { tag: LOOK }, () => {
    test.use({ colorScheme: c.theme, locale: c.locale });

    test('incidents, detail, builder and resources fit 1280x800 without layout shift', async ({ page, served }, testInfo) => {
      await page.addInitScript(() => {
        const w = window as unknown as { __shift: number };
        w.__shift = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) if (!e.hadRecentInput) w.__shift += e.value;
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await openConsole(page, served);
      await expect(loadedRows(page, c.table).first()).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('data-theme', c.theme);
      await expect(page.locator('.chart path').first()).toBeVisible();
      await expect(page.getByTestId('count-status-new')).not.toHaveText('…');
      const shift = await page.evaluate(() => (window as unknown as { __shift: number }).__shift);
      expect(shift).toBeLessThan(0.05);
      const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth && document.querySelector('.topbar')!.getBoundingClientRect().height <= 43);
      expect(await fits()).toBe(true);
      // The filters' toolbar: nothing overflows its bar or runs under the actions beside it.
      const toolbar = await page.evaluate(() => {
        const bar = document.querySelector('.filter-bar')!;
        const actions = document.querySelector('.toolbar-actions')!.getBoundingClientRect();
        const last = [...bar.children].at(-1)!.getBoundingClientRect();
        return { overflow: bar.scrollWidth - bar.clientWidth, lastRight: last.right, actionsLeft: actions.left };
      });
      expect(toolbar.overflow).toBeLessThanOrEqual(0);
      expect(toolbar.lastRight).toBeLessThanOrEqual(toolbar.actionsLeft);
      await snap(page, testInfo, `incidents-${c.theme}-${c.locale}`);
      // The longest status labels whole inside their cells.
      await page.goto(`${served.main}/#/incidents?status=feedback_required,verify_close,risk_accepted`);
      await expect(loadedRows(page, c.table).first()).toBeVisible();
      const cut = await page.evaluate(() =>
        [...document.querySelectorAll('table tbody .badge.status')]
          .filter((b) => {
            const cell = b.closest('td')!.getBoundingClientRect();
            const r = b.getBoundingClientRect();
            return b.scrollWidth > b.clientWidth + 1 || r.right > cell.right + 0.5;
          })
          .map((b) => b.textContent),
      );
      expect(cut).toEqual([]);
      await page.goBack();
      await expect(loadedRows(page, c.table).first()).toBeVisible();
      await loadedRows(page, c.table).nth(2).click();
      await expect(page.getByRole('complementary', { name: c.detail, exact: true })).toBeVisible();
      await expect(page.getByRole('complementary', { name: c.detail, exact: true }).locator('.kv dd').first()).not.toHaveText('…');
      expect(await fits()).toBe(true);
      await snap(page, testInfo, `detail-${c.theme}-${c.locale}`);
      await page.goto(`${served.main}/#/search`);
      await expect(page.getByTestId('validity')).toBeVisible();
      expect(await fits()).toBe(true);
      await snap(page, testInfo, `builder-${c.theme}-${c.locale}`);
      await page.goto(`${served.main}/#/r`);
      await expect(page.locator('.resource-count').first()).not.toHaveText('');
      expect(await fits()).toBe(true);
      await snap(page, testInfo, `resources-${c.theme}-${c.locale}`);
    });
  });
}
