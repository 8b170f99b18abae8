// The same triage flow in Russian: the browser's language is Russian, so is the console; dates,
// numbers, statuses and risk bands follow; the language can be switched and is remembered.
import { INCIDENT_STATUSES } from '../../src-shared/resources/fields';
import { api, expect, incidents, loadedRows, openConsole, snap, test } from './fixtures';

test.use({ locale: 'ru-RU', permissions: ['clipboard-read', 'clipboard-write'] });

test('Russian: filter, select from the keyboard, change status, see it through the API, undo', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  const rows = loadedRows(page, 'Инциденты');
  await expect(rows.first()).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  const all = await incidents(served);
  await expect(page.getByTestId('total')).toHaveText(new RegExp(`^${all.total} инцидент`));
  // Dates in the Russian form (дд.мм.гггг).
  await expect(rows.first()).toContainText(/\d{2}\.\d{2}\.\d{4}/);

  await page.getByRole('group', { name: 'Статусы' }).getByRole('button', { name: /^Новый/ }).click();
  const fresh = await incidents(served, [{ field: 'status', filter_type: 'intersection', value: ['new'] }]);
  await expect(page.getByTestId('total')).toHaveText(new RegExp(`^${fresh.total} инцидент`));
  await expect(rows.first().locator('[data-status="new"]')).toHaveText('Новый');
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('x');
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await expect(page.getByTestId('selected-count')).toHaveText('выбрано 3');
  const chosen = fresh.items.slice(0, 3);
  await page.keyboard.press('s');
  const dialog = page.getByRole('dialog', { name: 'Изменить статус 3 инцидентов' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio', { name: /Запрошена информация/ }).check();
  await snap(page, testInfo, 'ru-status-dialog');
  await dialog.getByRole('button', { name: 'Изменить статус 3' }).click();
  await expect(page.getByTestId('held-change')).toContainText('Статус 3 инцидентов → Запрошена информация');
  await snap(page, testInfo, 'ru-held-change');
  await page.getByTestId('held-change').getByRole('button', { name: 'Отправить изменение сейчас' }).click();
  await expect(page.getByTestId('change-result')).toContainText('Статус 3 инцидентов изменён на «Запрошена информация»');
  const after = await incidents(served, [{ field: 'id', filter_type: 'intersection', value: chosen.map((c) => c.id) }]);
  expect(after.items.map((i) => i.status)).toEqual(['feedback_required', 'feedback_required', 'feedback_required']);
  // Filtered by «Новый», the three have left the list.
  await expect(page.getByTestId('total')).toHaveText(new RegExp(`^${fresh.total - 3} инцидент`));
  await snap(page, testInfo, 'ru-after-change');
  await page.keyboard.press('u');
  await expect(page.getByTestId('change-result')).toContainText('Возвращено для 3 инцидентов');
  const undone = await incidents(served, [{ field: 'id', filter_type: 'intersection', value: chosen.map((c) => c.id) }]);
  expect(undone.items.map((i) => i.status)).toEqual(['new', 'new', 'new']);
  // Every status and risk band is translated.
  for (const s of INCIDENT_STATUSES) await expect(page.getByTestId(`count-status-${s}`)).toBeVisible();
  await expect(page.getByRole('group', { name: 'Уровни риска' })).toContainText('Критический');
});

test('Russian: the search builder runs and copies curl; the language switches to English and is kept', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/public');
  await expect(page.getByRole('heading', { name: 'Конструктор запроса публичного API' })).toBeVisible();
  const query = page.getByRole('textbox', { name: 'Строка запроса' });
  await query.fill('status=eq,closed&order=-risklevel');
  await expect(page.getByTestId('validity')).toHaveText(/Запрос корректен/);
  await query.fill('status=eq');
  await expect(page.getByTestId('validity')).toContainText('operator eq needs a value (field status)');
  await query.fill('status=eq,closed&order=-risklevel');
  const expected = await api<{ total: number }>(served, 'GET', '/data/public/api/v1/incidents?status=eq%2Cclosed&order=-risklevel');
  await page.getByRole('button', { name: 'Выполнить' }).click();
  await expect(page.getByTestId('result-total')).toContainText(`${expected.total}`);
  await page.getByRole('button', { name: 'Копировать как curl' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Команда curl скопирована.' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('status=eq%2Cclosed');
  await snap(page, testInfo, 'ru-public-builder');

  await page.getByRole('combobox', { name: 'Язык' }).selectOption('en');
  await expect(page.getByRole('heading', { name: 'Public API query builder' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('link', { name: 'Incidents' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.getByRole('combobox', { name: 'Language' }).selectOption('system');
  await expect(page.getByRole('link', { name: 'Инциденты' })).toBeVisible();
});
