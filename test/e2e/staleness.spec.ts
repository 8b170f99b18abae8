// Stale data does not look like a quiet day: the list says when the newest incident arrived and
// how many arrived since the last visit; an empty relative range names the newest incident's date
// and offers a range that holds it; the charts run to today, empty days drawn.
import { expect, incidents, loadedRows, openConsole, snap, test } from './fixtures';

const looks = [
  { locale: 'en-GB', theme: 'light', table: 'Incidents', empty: /^No incidents in the last 24 hours; the newest is from (\d\d\/\d\d\/\d{4})\.$/, show: 'Show the last 30 days', sep: '/', newest: /^Newest incident /, since: / new since your last visit — show$/ },
  { locale: 'ru-RU', theme: 'dark', table: 'Инциденты', empty: /^Нет инцидентов за последние 24 часа; самый новый — от (\d\d\.\d\d\.\d{4})\.$/, show: 'Показать последние 30 дней', sep: '.', newest: /^Самый новый инцидент: /, since: / новы[йх] с вашего прошлого визита — показать$/ },
] as const;

for (const c of looks) {
  test.describe(`staleness, ${c.locale}, ${c.theme}`, () => {
    test.use({ locale: c.locale, colorScheme: c.theme, viewport: { width: 1440, height: 900 } });

    test('an empty relative range names the newest incident and offers a range with data; the charts run to today', async ({ page, served }, testInfo) => {
      const all = await incidents(served);
      const newest = all.items[0]!.created_at;
      const day = (ts: string) => {
        const d = new Date(ts);
        const p = (n: number) => String(n).padStart(2, '0');
        return `${p(d.getDate())}${c.sep}${p(d.getMonth() + 1)}${c.sep}${d.getFullYear()}`;
      };
      // The last visit was two days before the newest incident: the ones since are announced.
      const visit = Date.parse(newest) - 2 * 86_400_000;
      const since = all.items.filter((i) => Date.parse(i.created_at) >= visit).length;
      await page.addInitScript((v) => {
        if (!sessionStorage.getItem('visit-set')) {
          localStorage.setItem('radar-console.visit.main', String(v));
          sessionStorage.setItem('visit-set', '1');
        }
      }, visit);
      await openConsole(page, served, '#/incidents?range=24h');
      const empty = page.getByTestId('empty-range');
      await expect(empty.locator('strong')).toHaveText(c.empty, { timeout: 20_000 });
      expect(c.empty.exec((await empty.locator('strong').textContent()) ?? '')![1]).toBe(day(newest));
      await expect(page.getByTestId('newest')).toHaveText(c.newest);
      await expect(page.getByTestId('newest')).toContainText(day(newest));
      await expect(page.getByTestId('since-visit')).toHaveText(new RegExp(`^${since.toLocaleString(c.locale)}${c.since.source}`));
      // The charts run to today, the days without incidents drawn empty.
      const today = new Date().toISOString().slice(0, 10);
      await expect(page.locator('.chart-status')).toHaveAttribute('data-last-bucket', today);
      await snap(page, testInfo, `stale-range-${c.locale}`);

      // One click: a range that holds the newest incident.
      await empty.getByRole('button', { name: c.show }).click();
      await expect(loadedRows(page, c.table).first()).toBeVisible();
      expect(new URL(page.url()).hash).toContain('range=30d');
      await expect(page.locator('.chart-status')).toHaveAttribute('data-last-bucket', today);
      await expect(page.locator('.chart-status')).toHaveAttribute('data-first-bucket', new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10));
      await snap(page, testInfo, `stale-30d-${c.locale}`);
    });
  });
}
