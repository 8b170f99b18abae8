// Mistakes in the search builders, in English and Russian: a field the resource does not have
// is shown as it is and marked, JSON that does not parse names its line and column and marks
// the place, the public query shows every mistake at once, a query that does not parse never
// leaves an older form looking applied, and a value outside a field's set is flagged with the
// server's own words. Screenshots light and dark are kept in test-results/.
import type { Page, TestInfo } from '@playwright/test';
import { expect, openConsole, snap, test } from './fixtures';

const LANGS = [
  {
    locale: 'en-GB',
    lang: 'en',
    form: 'Request',
    json: 'Request as JSON',
    query: 'Query string',
    run: 'Run',
    field: (n: number) => `Field of filter ${n}`,
    operator: (n: number) => `Operator of filter ${n}`,
    value: (n: number) => `Value of filter ${n}`,
    order: (n: number) => `Field of ordering ${n}`,
    unknown: 'unknown field',
    unknownField: (name: string) => `unknown field: ${name}`,
    unknownOperator: 'unknown operator',
    operatorMistake: 'unknown operator "between" for field status',
    perPageMistake: 'per_page must be a positive integer',
    valid: /Valid request/,
    end: (line: number, column: number) => `not JSON: the text ends too early (line ${line}, column ${column})`,
    char: (c: string, line: number, column: number) => `not JSON: unexpected “${c}” at line ${line}, column ${column}`,
    notApplied: /The query text has 3 mistakes/,
    jsonNotApplied: /not applied/,
  },
  {
    locale: 'ru-RU',
    lang: 'ru',
    form: 'Запрос',
    json: 'Запрос в JSON',
    query: 'Строка запроса',
    run: 'Выполнить',
    field: (n: number) => `Поле фильтра ${n}`,
    operator: (n: number) => `Оператор фильтра ${n}`,
    value: (n: number) => `Значение фильтра ${n}`,
    order: (n: number) => `Поле сортировки ${n}`,
    unknown: 'неизвестное поле',
    unknownField: (name: string) => `неизвестное поле: ${name}`,
    unknownOperator: 'неизвестный оператор',
    operatorMistake: 'неизвестный оператор «between» для поля status',
    perPageMistake: 'per_page должно быть положительным целым числом',
    valid: /Запрос корректен/,
    end: (line: number, column: number) => `не JSON: текст обрывается (строка ${line}, столбец ${column})`,
    char: (c: string, line: number, column: number) => `не JSON: неожиданный символ «${c}» в строке ${line}, столбце ${column}`,
    notApplied: /В строке запроса 3 ошибки/,
    jsonNotApplied: /не применён/,
  },
] as const;

async function snapBoth(page: Page, testInfo: TestInfo, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
    await snap(page, testInfo, `${name}-${scheme}`, true);
  }
}

const selectedText = (page: Page, label: string) => page.getByLabel(label, { exact: true }).evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent ?? '');

for (const L of LANGS) {
  test.describe(L.locale, () => {
    test.use({ locale: L.locale });

    test('v2 builder: an unknown field typed in the JSON is shown as it is and marked; a JSON mistake names its line and column', async ({ page, served }, testInfo) => {
      await openConsole(page, served, '#/search');
      const form = page.getByRole('form', { name: L.form, exact: true });
      await form.getByLabel('Resource').or(form.getByLabel('Ресурс')).selectOption('service_asset_findings');
      const editor = page.getByRole('textbox', { name: L.json });
      const request = {
        include_fields: [],
        exclude_fields: [],
        filters: [
          { field: 'status', filter_type: 'equal', value: 'new', negation: false },
          { field: 'no_such_field', filter_type: 'equal', value: 'x', negation: false },
        ],
        ordering: [{ field: 'nor_this_one', direction: 'asc' }],
        virtual_search: { value: '', strict: false },
        extension_params: { chidlrens_all: false, parents_all: false },
        relations: [],
        limit: 50,
        offset: 0,
      };
      await editor.fill(JSON.stringify(request, null, 2));
      // The form names the unknown field, not the resource's first field.
      await expect(form.getByLabel(L.field(1), { exact: true })).toHaveValue('status');
      await expect(form.getByLabel(L.field(2), { exact: true })).toHaveValue('no_such_field');
      expect(await selectedText(page, L.field(2))).toContain('no_such_field');
      await expect(form.getByLabel(L.field(2), { exact: true })).toHaveAttribute('aria-invalid', 'true');
      await expect(form.getByTestId('unknown-field-2')).toHaveText(L.unknown);
      await expect(form.getByTestId('unknown-field-1')).toHaveCount(0);
      await expect(form.getByLabel(L.order(1), { exact: true })).toHaveValue('nor_this_one');
      expect(await selectedText(page, L.order(1))).toContain('nor_this_one');
      const validity = page.getByTestId('validity');
      await expect(validity).toContainText(L.unknownField('no_such_field'));
      await expect(validity).toContainText(L.unknownField('nor_this_one'));
      await expect(page.getByRole('button', { name: L.run, exact: true })).toBeDisabled();
      await snapBoth(page, testInfo, `v2-unknown-field-${L.lang}`);

      // A mistake inside the text: a second comma after `"field": "status",`, marked where it stands.
      const lines = JSON.stringify(request, null, 2).split('\n');
      const at = lines.findIndex((l) => l.includes('"field": "status"'));
      lines[at] = `${lines[at]},`;
      await editor.fill(lines.join('\n'));
      const column = lines[at]!.length;
      await expect(validity).toContainText(L.char(',', at + 1, column));
      const marker = page.getByTestId('json-marker');
      await expect(marker).toBeVisible();
      // The marker: the line as typed, a caret under the mistake.
      const [shown, caret] = (await marker.textContent())!.split('\n');
      expect(shown).toBe(lines[at]);
      expect(caret!.indexOf('^')).toBe(column - 1);
      // The form says it is not showing this text, the text stays as typed after leaving it.
      await expect(page.getByTestId('not-applied')).toContainText(L.jsonNotApplied);
      await editor.blur();
      await expect(editor).toHaveValue(lines.join('\n'));
      await expect(page.getByRole('button', { name: L.run, exact: true })).toBeDisabled();
      await snapBoth(page, testInfo, `v2-json-mistake-${L.lang}`);

      // The text ending too early: the place is after its last character.
      await editor.fill('{\n  "filters": [');
      await expect(validity).toContainText(L.end(2, 15));
      // Fixed: the form takes it, the notice goes.
      await editor.fill(JSON.stringify({ ...request, filters: [request.filters[0]], ordering: [] }));
      await expect(validity).toHaveText(L.valid);
      await expect(page.getByTestId('not-applied')).toHaveCount(0);
      await expect(form.getByLabel(L.field(2), { exact: true })).toHaveCount(0);
    });

    test('public builder: every mistake at once, the form follows the typed query, values outside a field’s set flagged as the server words them', async ({ page, served }, testInfo) => {
      await openConsole(page, served, '#/public');
      const form = page.getByRole('form', { name: L.form, exact: true });
      const query = page.getByRole('textbox', { name: L.query, exact: true });
      const validity = page.getByTestId('validity');
      await query.fill('title=like,srv&order=created_at');
      await expect(validity).toHaveText(L.valid);
      await expect(form.getByLabel(L.field(1), { exact: true })).toHaveValue('title');

      // Three mistakes, all listed; the form shows this query, not the previous one.
      const typed = 'status=between,new&risklevel=gt,abc&per_page=many';
      await query.fill(typed);
      await expect(validity.locator('li')).toHaveCount(3);
      await expect(validity).toContainText(L.operatorMistake);
      await expect(validity).toContainText(L.perPageMistake);
      await expect(validity).toContainText(/risklevel/);
      await expect(form.getByLabel(L.field(1), { exact: true })).toHaveValue('status');
      await expect(form.getByLabel(L.operator(1), { exact: true })).toHaveValue('between');
      expect(await selectedText(page, L.operator(1))).toContain(L.unknownOperator);
      await expect(form.getByLabel(L.value(1), { exact: true })).toHaveValue('new');
      await expect(form.getByLabel(L.field(2), { exact: true })).toHaveValue('risklevel');
      await expect(form.getByLabel(L.value(2), { exact: true })).toHaveValue('abc');
      await expect(form.getByLabel('per_page', { exact: true })).toHaveValue('many');
      await expect(form.getByLabel(L.order(1), { exact: true })).toHaveCount(0);
      await expect(page.getByTestId('not-applied')).toContainText(L.notApplied);
      await expect(page.getByRole('button', { name: L.run, exact: true })).toBeDisabled();
      await query.blur();
      await expect(query).toHaveValue(typed);
      await snapBoth(page, testInfo, `public-mistakes-${L.lang}`);

      // A status the platform does not have: the server refuses it, the builder says so first.
      const qs = 'status=in%2Cnew%2Cbogus';
      const res = await fetch(`${served.main}/data/public/api/v1/incidents?${qs}`, { headers: { PgrApiKey: served.apiKey } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; error_code: number };
      expect(body.error_code).toBe(400);
      expect(body.error).toMatch(/^invalid value "bogus" for status: expected one of new, /);
      await query.fill('status=in,new,bogus');
      await expect(page.getByTestId('not-applied')).toHaveCount(0);
      await expect(form.getByLabel(L.value(1), { exact: true })).toHaveValue('new,bogus');
      await expect(form.getByLabel(L.value(1), { exact: true })).toHaveAttribute('aria-invalid', 'true');
      if (L.lang === 'en') await expect(validity).toHaveText(`status ${body.error}`);
      else await expect(validity).toContainText(`недопустимое значение «bogus» для status: ожидается одно из ${body.error.split('expected one of ')[1]}`);
      await expect(page.getByRole('button', { name: L.run, exact: true })).toBeDisabled();
      await snapBoth(page, testInfo, `public-enum-${L.lang}`);

      // Fixed from the form: applied, runs.
      await form.getByLabel(L.value(1), { exact: true }).fill('new,closed');
      await expect(validity).toHaveText(L.valid);
      await page.getByRole('button', { name: L.run, exact: true }).click();
      await expect(page.getByTestId('result-total')).toBeVisible();
    });
  });
}
