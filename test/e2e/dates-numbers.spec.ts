// One date format per language: the list, the detail panel, the date inputs and the charts write
// a date the same way (31/10/2026 in English, 31.10.2026 in Russian), whatever the browser's own
// locale; numbers in messages are grouped the language's way (1,500 / 1 500).
import { api, expect, incidents, loadedRows, openConsole, snap, test, type Served } from './fixtures';

const LANGS = [
  // The browser says en-US (month first) while the console is in English: the console's one format wins.
  { locale: 'en-US', intl: 'en-GB', table: 'Incidents', detail: 'Incident', created: 'Created', range: 'Time range', from: 'From', to: 'To', selectAll: 'Select all', sep: '/' },
  { locale: 'ru-RU', intl: 'ru-RU', table: 'Инциденты', detail: 'Инцидент', created: 'Создан', range: 'Период', from: 'С', to: 'По', selectAll: 'Выбрать все', sep: '.' },
] as const;

const EXTRA = 1100;

/** Enough incidents for a four-digit count: the demo's and EXTRA more (once per server). */
async function manyIncidents(served: Served): Promise<number> {
  const { total } = await incidents(served, [], { limit: 1 });
  if (total < EXTRA) {
    for (let i = 0; i < EXTRA; i += 500) {
      const batch = Array.from({ length: Math.min(500, EXTRA - i) }, (_, k) => ({ title: `Проверка формата чисел ${i + k + 1}`, status: 'new', risklevel: 3 }));
      await api(served, 'POST', '/cruddy/v2/service_asset_findings/mass_create', batch);
    }
  }
  return (await incidents(served, [], { limit: 1 })).total;
}

for (const L of LANGS) {
  test.describe(L.locale, () => {
    test.use({ locale: L.locale });

    test('list, detail panel, date inputs and charts write dates one way; a toast groups a four-digit count', async ({ page, served }, testInfo) => {
      test.setTimeout(150_000);
      const total = await manyIncidents(served);
      expect(total).toBeGreaterThan(1000);
      const s = L.sep === '/' ? '\\/' : '\\.';
      const dateRe = new RegExp(`^\\d{2}${s}\\d{2}${s}\\d{4}$`);
      const dateTimeRe = new RegExp(`\\d{2}${s}\\d{2}${s}\\d{4}, \\d{2}:\\d{2}`);

      await openConsole(page, served);
      const rows = loadedRows(page, L.table);
      // The first load after adding a thousand incidents takes longer on a busy machine.
      await expect(rows.first()).toBeVisible({ timeout: 20_000 });
      const row = rows.first();
      const inList = (await row.textContent())!.match(dateTimeRe)?.[0];
      expect(inList, 'the list shows the created date in the language’s format').toBeTruthy();

      // The detail panel: the same text for the same instant.
      await row.click();
      const panel = page.getByRole('complementary', { name: L.detail, exact: true });
      await expect(panel).toBeVisible();
      const created = panel.locator('dt', { hasText: new RegExp(`^${L.created}$`) }).locator('xpath=following-sibling::dd[1]');
      await expect(created).toHaveText(inList!);
      await snap(page, testInfo, `dates-detail-${L.locale}`);

      // The date inputs of a custom range: typed in the language's format, shown back the same way;
      // a date typed as YYYY-MM-DD is shown in the language's format too.
      const day = inList!.slice(0, 10);
      await page.goto(`${served.main}/#/incidents`);
      await expect(rows.first()).toBeVisible();
      await page.getByRole('combobox', { name: L.range }).selectOption('custom');
      const from = page.getByRole('textbox', { name: L.from, exact: true });
      const to = page.getByRole('textbox', { name: L.to, exact: true });
      await expect(from).toHaveAttribute('placeholder', L.sep === '/' ? 'dd/mm/yyyy' : 'дд.мм.гггг');
      await from.fill(day);
      await from.press('Enter');
      await expect(from).toHaveValue(day);
      await expect(from).toHaveValue(dateRe);
      await to.fill('2099-12-31');
      await to.press('Tab');
      await expect(to).toHaveValue(`31${L.sep}12${L.sep}2099`);
      await expect(rows.first()).toBeVisible();
      // Every row shown was created on or after that day, written the same way.
      for (const text of await rows.allTextContents()) expect(text).toMatch(dateTimeRe);
      await snap(page, testInfo, `dates-range-${L.locale}`);

      // The charts' axes: day and month in the same digits and order.
      await page.getByRole('combobox', { name: L.range }).selectOption('all');
      await expect(page.locator('.chart path').first()).toBeVisible();
      const tickLabels = page.locator('.chart .chart-tick');
      await expect(tickLabels.first()).toBeVisible();
      // The counts' axis is plain grouped numbers; every other tick is a date.
      const ticks = (await tickLabels.allTextContents()).filter((x) => !/^[\d\s,\u00a0\u202f]+$/.test(x));
      expect(ticks.length).toBeGreaterThan(0);
      for (const tick of ticks) expect(tick).toMatch(new RegExp(`^\\d{2}${s}\\d{2}(${s}\\d{4})?$|^\\d{2}${s}\\d{4}$`));

      // A toast with a four-digit count, grouped the language's way.
      // The button that selects the whole query names its count, grouped; so does the selection.
      const grouped = new Intl.NumberFormat(L.intl).format(total);
      expect(grouped).toMatch(/^\d[\s,]\d{3}$/);
      await page.getByRole('button', { name: new RegExp(`^${L.selectAll}\\s\\d`) }).click();
      await expect(page.getByTestId('selected-count')).toContainText(grouped);
      await snap(page, testInfo, `numbers-toast-${L.locale}`);
    });
  });
}
