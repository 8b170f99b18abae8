// The shift's screens at 1440x900, light and dark, English and Russian: the list with owners and
// the live list, a held change, the status dialog with a reason, the assign dialog, the
// conversation, grouping, saved views, instances, the not-found page. Each fits the window; the
// screenshots are kept to be looked at.
import { expect, loadedRows, openConsole, snap, test, LOOK } from './fixtures';

const looks = [
  { theme: 'light', locale: 'en-GB', table: 'Incidents', incident: 'Incident', statusDialog: /^Change the status/, assign: /^Assign/, conversation: /^Conversation/, views: 'Saved views', instances: 'Instances', notFound: 'Nothing here' },
  { theme: 'dark', locale: 'en-GB', table: 'Incidents', incident: 'Incident', statusDialog: /^Change the status/, assign: /^Assign/, conversation: /^Conversation/, views: 'Saved views', instances: 'Instances', notFound: 'Nothing here' },
  { theme: 'light', locale: 'ru-RU', table: 'Инциденты', incident: 'Инцидент', statusDialog: /^Изменить статус/, assign: /^Назначить/, conversation: /^Переписка/, views: 'Сохранённые виды', instances: 'Инсталляции', notFound: 'Здесь ничего нет' },
  { theme: 'dark', locale: 'ru-RU', table: 'Инциденты', incident: 'Инцидент', statusDialog: /^Изменить статус/, assign: /^Назначить/, conversation: /^Переписка/, views: 'Сохранённые виды', instances: 'Инсталляции', notFound: 'Здесь ничего нет' },
] as const;

const inside = (sel: string) => `(() => { const el = document.querySelector(${JSON.stringify(sel)}); if (!el) return false; const r = el.getBoundingClientRect(); return r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight; })()`;

for (const c of looks) {
  test.describe(`shift look, ${c.theme}, ${c.locale}`, { tag: LOOK }, () => {
    test.use({ colorScheme: c.theme, locale: c.locale, viewport: { width: 1440, height: 900 } });

    test('list, held change, dialogs, conversation, grouping, views, instances and not-found fit 1440x900', async ({ page, served }, testInfo) => {
      test.setTimeout(120_000);
      const tag = `${c.theme}-${c.locale}`;
      await openConsole(page, served, '#/incidents?cols=display_id,title,status,risklevel,service_asset_id,user_id,group_id,created_at');
      await expect(loadedRows(page, c.table).first()).toBeVisible();
      await expect(page.getByTestId('count-status-new')).not.toHaveText('…');
      await snap(page, testInfo, `shift-list-${tag}`);

      // A held change, with its countdown.
      await loadedRows(page, c.table).first().click();
      const detail = page.getByRole('complementary', { name: c.incident });
      await expect(detail).toBeVisible();
      await page.keyboard.press('s');
      const status = page.getByRole('dialog', { name: c.statusDialog });
      await status.getByRole('radio').nth(6).check();
      expect(await page.evaluate(inside('dialog.dialog'))).toBe(true);
      await snap(page, testInfo, `shift-status-reason-${tag}`);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Shift+A');
      await expect(page.getByRole('dialog', { name: c.assign })).toBeVisible();
      expect(await page.evaluate(inside('dialog.dialog'))).toBe(true);
      await snap(page, testInfo, `shift-assign-${tag}`);
      await page.keyboard.press('Escape');
      await page.keyboard.press('a');
      await expect(page.getByTestId('held-change')).toBeVisible();
      await snap(page, testInfo, `shift-held-${tag}`);
      await page.keyboard.press('u');
      await expect(page.getByTestId('held-change')).toHaveCount(0);

      // The conversation, the notes told apart.
      await detail.getByRole('tab', { name: c.conversation }).click();
      expect(await page.evaluate(inside('.detail-actions'))).toBe(true);
      await snap(page, testInfo, `shift-conversation-${tag}`);
      await page.keyboard.press('Escape');

      // Grouped by finding type.
      await page.getByRole('combobox').filter({ has: page.locator('option[value="finding_id"]') }).selectOption('finding_id');
      await expect(page.getByTestId('group').first()).toBeVisible();
      await page.getByTestId('group').first().getByRole('button', { expanded: false }).click();
      await snap(page, testInfo, `shift-grouped-${tag}`);

      await page.getByRole('button', { name: c.locale === 'ru-RU' ? 'Виды' : 'Views' }).click();
      await expect(page.getByRole('dialog', { name: c.views })).toBeVisible();
      await snap(page, testInfo, `shift-views-${tag}`);
      await page.keyboard.press('Escape');

      await page.getByRole('button', { name: /^(Instance|Инсталляция): / }).click();
      await page.getByRole('menuitem', { name: /…$/ }).last().click();
      await expect(page.getByRole('dialog', { name: c.instances })).toBeVisible();
      await snap(page, testInfo, `shift-instances-${tag}`);
      await page.keyboard.press('Escape');

      await page.goto(`${served.main}/#/nonexistent`);
      await expect(page.getByRole('heading', { name: c.notFound })).toBeVisible();
      await snap(page, testInfo, `shift-not-found-${tag}`);
    });
  });
}
