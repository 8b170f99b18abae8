// The same triage flow in Russian: the browser's language is Russian, so is the console; dates,
// numbers, statuses and risk bands follow; the language can be switched and is remembered.
import { INCIDENT_STATUSES } from '../../src-shared/resources/fields';
import { fieldsOf, relationsOf, RESOURCES } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { EN, RU } from '../../src-renderer/src/i18n/catalog';
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
  // The shared grammar's words in Russian, the names it quotes as written.
  await expect(page.getByTestId('validity')).toContainText('оператору eq нужно значение (поле status)');
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

// Every resource view in Russian: the list's columns (all of them, from the columns dialog), a
// record's field labels and values, and the instance names. A label with no Russian letter (other
// than an acronym), or a value the console has a Russian name for shown in English or raw, fails.
const ACRONYMS = new Set(['IP', 'MAC', 'FQDN']);
const VALUE_CATALOGS = ['assetTypes', 'alertTypes', 'findingTypes', 'agentStatuses', 'customFieldTypes', 'eventTypes', 'throughputPeriods'] as const;
const CYRILLIC = /[а-яё]/i;

test('Russian: every resource list and record names its fields and known values in Russian, the main instance is «Основная»', async ({ page, served }, testInfo) => {
  test.setTimeout(300_000);
  const en = EN as unknown as Record<string, Record<string, string>>;
  const ru = RU as unknown as Record<string, Record<string, string>>;
  // English (and raw) forms of values that have a Russian name.
  const english = new Set<string>();
  for (const ns of VALUE_CATALOGS) {
    expect(en[ns], ns).toBeTruthy();
    for (const [k, v] of Object.entries(en[ns]!)) if (ru[ns]![k] !== v) english.add(k).add(v);
  }
  const rawKeys = new Set(RESOURCES.flatMap((r) => [...fieldsOf(r).map((f) => f.name), ...relationsOf(r).map(([n]) => n)]));
  const problems: string[] = [];
  const checkLabel = (where: string, label: string) => {
    const l = label.trim();
    if (rawKeys.has(l) || (!CYRILLIC.test(l) && !ACRONYMS.has(l))) problems.push(`${where}: label "${l}"`);
  };
  const checkValue = (where: string, value: string) => {
    if (english.has(value.trim())) problems.push(`${where}: value "${value.trim()}"`);
  };

  await openConsole(page, served, '#/r');
  await expect(page.locator('.resource-count').first()).not.toHaveText('');
  for (const r of RESOURCES) {
    await page.goto(`${served.main}/#/r/${r.name}`);
    await expect(page.getByRole('heading', { name: r.title.ru, exact: true })).toBeVisible();
    await expect(page.locator('.page-head .total')).not.toHaveText('…');
    const cells = await page.locator('table tbody tr[data-loaded="true"] td').allTextContents();
    for (const c of cells) checkValue(`${r.name} list`, c);
    await page.getByRole('button', { name: 'Столбцы', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.locator('.columns-list li').first()).toBeVisible();
    const columnLabels = await dialog.locator('.columns-list li label span').allTextContents();
    for (const label of columnLabels) checkLabel(`${r.name} columns`, label);
    for (const label of new Set(columnLabels.filter((l, i) => columnLabels.indexOf(l) !== i))) problems.push(`${r.name} columns: "${label}" twice`);
    await dialog.getByRole('button', { name: 'Готово' }).click();
    await expect(dialog).toHaveCount(0);

    const found = await api<{ items?: { id: string }[] }>(served, 'POST', `/cruddy/v2/${r.name}/search`, { ...emptySearch(0), limit: 1 });
    const id = found.items?.[0]?.id;
    if (!id) continue;
    await page.goto(`${served.main}/#/r/${r.name}/${id}`);
    const fields = page.locator('dl.kv .kv-row');
    await expect(fields.first()).toBeVisible();
    const rows = await fields.evaluateAll((els) => els.map((el) => ({ label: el.querySelector('dt')!.childNodes[0]?.textContent ?? '', value: el.querySelector('dd')!.textContent ?? '' })));
    for (const row of rows) {
      checkLabel(`${r.name} record`, row.label);
      checkValue(`${r.name} record ${row.label}`, row.value);
    }
    for (const link of await page.locator('nav.links .link-item > .muted:first-child').allTextContents()) checkLabel(`${r.name} links`, link.replace(/:$/, ''));
  }

  // The main instance by its Russian name: switcher, merged lists, instances dialog, palette.
  await page.goto(`${served.main}/#/r/service_assets`);
  await page.getByRole('button', { name: /^Инсталляция: / }).click();
  const menu = page.getByRole('menu', { name: 'Инсталляции' });
  await expect(menu).toContainText('Основная');
  await menu.getByRole('menuitemradio', { name: /Все инсталляции/ }).click();
  await expect(page.locator('table tbody tr[data-loaded="true"]').first()).toBeVisible();
  const tags = await page.locator('table tbody tr[data-loaded="true"] .tag').allTextContents();
  expect(tags.length).toBeGreaterThan(0);
  if (!tags.includes('Основная')) problems.push(`merged list: instance tags ${JSON.stringify([...new Set(tags)])}`);
  await page.getByRole('button', { name: /^Инсталляция: / }).click();
  await page.getByRole('menuitem', { name: 'Управление инсталляциями…' }).click();
  const instancesDialog = page.getByRole('dialog');
  await expect(instancesDialog).toBeVisible();
  const names = await instancesDialog.locator('input[type="text"], input:not([type])').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  if (!names.includes('Основная')) problems.push(`instances dialog: names ${JSON.stringify(names)}`);
  await snap(page, testInfo, 'ru-instances-dialog');
  await page.keyboard.press('Escape');
  const text = await page.locator('body').innerText();
  if (/\bMain\b/.test(text)) problems.push('the main instance shown as "Main"');
  await page.keyboard.press('Control+k');
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.type('Основная');
  if (!(await page.getByRole('option', { name: /Основная/ }).count())) problems.push('palette: no instance found by «Основная»');
  await page.keyboard.press('Escape');

  expect(problems).toEqual([]);
});
