// The compliance workbench in Chromium at 1440x900, light and dark, English and Russian: a rule's
// query typed with an error (PostgreSQL's message, the position marked), then a valid one with
// its matching software (the count equal to the API's), a rule set's verdict grid (its summary
// equal to the API's check), a draft compared with the saved query before saving, and incidents
// created after a confirmation naming how many. The screenshots are kept in test-results/.
import { api, expect, openConsole, snap, test } from './fixtures';

const combos = [
  { theme: 'light', locale: 'en-GB', lang: 'en' },
  { theme: 'dark', locale: 'en-GB', lang: 'en' },
  { theme: 'light', locale: 'ru-RU', lang: 'ru' },
  { theme: 'dark', locale: 'ru-RU', lang: 'ru' },
] as const;

const RULE = 'Запрещены средства удалённого доступа';
const SET = 'Контроль ПО на рабочих станциях';

type Served = Parameters<typeof api>[0];
async function idOf(s: Served, resource: string, name: string): Promise<string> {
  const page = await api<{ items: { id: string }[] }>(s, 'POST', `/cruddy/v2/${resource}/search`, {
    include_fields: ['id'],
    exclude_fields: [],
    filters: [{ field: 'name', filter_type: 'equal', value: name }],
    ordering: [],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    limit: 1,
    offset: 0,
    relations: [],
  });
  expect(page.items?.length, JSON.stringify(page)).toBe(1);
  return page.items[0]!.id;
}

const fmt = (lang: string, n: number) => n.toLocaleString(lang === 'ru' ? 'ru-RU' : 'en-US').replace(/\u00a0/g, ' ');

test.use({ viewport: { width: 1440, height: 900 } });

for (const c of combos) {
  test.describe(`${c.theme}, ${c.locale}`, () => {
    test.use({ colorScheme: c.theme, locale: c.locale });

    test('a query as typed: refused with the position, then accepted with its matches; a rule set’s verdict grid', async ({ page, served }, testInfo) => {
      const ruleId = await idOf(served, 'rules', RULE);
      const setId = await idOf(served, 'rule_sets', SET);
      await openConsole(page, served, `#/compliance/rules/${ruleId}`);
      await expect(page.locator('html')).toHaveAttribute('data-theme', c.theme);
      const editor = page.locator('#cw-query');
      await expect(editor).toHaveValue("(teamviewer | anydesk | ammyy | radmin) & !'radmin-viewer'");
      const saved = await api<{ results: { tsquery: string }[] }>(served, 'POST', '/console/v1/compliance/tsquery', { queries: ["(teamviewer | anydesk | ammyy | radmin) & !'radmin-viewer'"] });
      await expect(page.locator('.cw-accepted')).toContainText(saved.results[0]!.tsquery);

      await editor.fill('');
      await editor.pressSequentially('teamviewer anydesk', { delay: 15 });
      await expect(page.locator('.cw-refused')).toContainText('syntax error in tsquery: "teamviewer anydesk"');
      await expect(page.locator('.cw-at')).toHaveText('a');
      // Why, in the console's language (the position is on the line above).
      await expect(page.locator('.cw-reason')).toHaveText(c.lang === 'ru' ? 'неожиданный символ «a»' : 'unexpected “a”');
      await expect(editor).toHaveAttribute('aria-invalid', 'true');
      await expect(page.getByRole('button', { name: c.lang === 'ru' ? 'Сохранить запрос' : 'Save the query' })).toBeDisabled();
      await snap(page, testInfo, `compliance-query-error-${c.theme}-${c.lang}`);

      const query = "teamviewer | anydesk | 'radmin':* | openssh:*";
      await editor.fill(query);
      const expected = await api<{ total: number; tsquery: string }>(served, 'POST', '/console/v1/compliance/match', { query, limit: 1 });
      expect(expected.total).toBeGreaterThan(2);
      await expect(page.locator('.cw-accepted')).toContainText(expected.tsquery);
      await expect(page.getByTestId('match-count')).toContainText(fmt(c.lang, expected.total));
      await expect(page.locator('.cw-matches tbody tr')).toHaveCount(Math.min(50, expected.total));
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await snap(page, testInfo, `compliance-matches-${c.theme}-${c.lang}`);

      // The rule set's page, from the rule's list of its sets.
      await page.getByRole('link', { name: SET }).first().click();
      await expect(page).toHaveURL(new RegExp(`#/compliance/sets/${setId}$`));
      const summary = (await api<{ summary: { rules: number; assets: number; satisfied: number; violated: number } }>(served, 'POST', '/console/v1/compliance/check', { rule_set_ids: [setId], limit: 0 })).summary;
      await expect(page.getByTestId('check-summary')).toContainText(fmt(c.lang, summary.violated));
      await expect(page.getByTestId('check-summary')).toContainText(fmt(c.lang, summary.satisfied));
      await expect(page.locator('.cw-grid tbody tr')).toHaveCount(summary.assets);
      await expect(page.locator('.cw-grid thead th')).toHaveCount(summary.rules + 1);
      await expect(page.locator('.cw-cell.is-violated')).toHaveCount(summary.violated);
      await snap(page, testInfo, `compliance-grid-${c.theme}-${c.lang}`);
      await page.getByRole('radio', { name: c.lang === 'ru' ? 'Нарушено' : 'Violated' }).click();
      await expect(page.locator('.cw-cell.is-satisfied')).toHaveCount(0);
      await expect(page.locator('.cw-cell.is-violated')).toHaveCount(summary.violated);
    });
  });
}

test('a draft compared with the saved query; incidents created after a confirmation naming how many', async ({ page, served }, testInfo) => {
  const setId = await idOf(served, 'rule_sets', SET);
  const tvRule = await idOf(served, 'rules', 'Запрещено: TeamViewer');
  await openConsole(page, served, `#/compliance/sets/${setId}`);
  await expect(page.getByTestId('check-summary')).toBeVisible();

  // The TeamViewer rule widened to qBittorrent: the assets with qBittorrent but no TeamViewer change.
  const draft = 'teamviewer | qbittorrent';
  const saved = await api<{ results: { service_asset_id: string; verdict: string }[] }>(served, 'POST', '/console/v1/compliance/check', { rule_set_ids: [setId], rule_ids: [tvRule] });
  const drafted = await api<{ results: { service_asset_id: string; verdict: string }[] }>(served, 'POST', '/console/v1/compliance/check', {
    rule_set_ids: [setId],
    rule_ids: [tvRule],
    queries: { [tvRule]: draft },
  });
  const before = new Map(saved.results.map((r) => [r.service_asset_id, r.verdict]));
  const changed = drafted.results.filter((r) => before.get(r.service_asset_id) !== r.verdict).length;
  await page.locator('.cw-diff select').selectOption(tvRule);
  await page.locator('.cw-diff-draft input').fill(draft);
  await page.getByRole('button', { name: 'Compare' }).click();
  expect(changed).toBeGreaterThan(0);
  await expect(page.locator('.cw-diff')).toContainText(`The draft changes the verdict on ${changed} asset`);
  await expect(page.locator('.cw-diff tbody tr')).toHaveCount(changed);
  // Not saved: the rule's query is as it was.
  const rule = await api<{ query: string }>(served, 'GET', `/cruddy/v2/rules/${tvRule}`);
  expect(rule.query).toBe('teamviewer');
  await snap(page, testInfo, 'compliance-diff-light-en');

  const pending = (await api<{ summary: { incidents: { would_create: number } } }>(served, 'POST', '/console/v1/compliance/check', { rule_set_ids: [setId], limit: 0 })).summary.incidents.would_create;
  expect(pending).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Create incidents…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create incidents' });
  await expect(dialog).toContainText(`${pending} violations have no incident yet`);
  await snap(page, testInfo, 'compliance-confirm-light-en');
  await dialog.getByRole('button', { name: `Create ${pending} incidents` }).click();
  await expect(page.getByText(`Incidents: ${pending} created, 0 updated.`)).toBeVisible();
  const after = await api<{ summary: { incidents: { would_create: number; created: number } } }>(served, 'POST', '/console/v1/compliance/check', { rule_set_ids: [setId], limit: 0 });
  expect(after.summary.incidents.would_create).toBe(0);
  // Each violated cell now links its incident.
  await expect(page.locator('.cw-cell.is-violated .cw-inc').first()).toBeVisible();
  // Asked again: nothing to create, the occurrences to update named with their number.
  const violated = (await api<{ summary: { violated: number } }>(served, 'POST', '/console/v1/compliance/check', { rule_set_ids: [setId], limit: 0 })).summary.violated;
  await page.getByRole('button', { name: 'Create incidents…' }).click();
  await expect(dialog).toContainText('Every violation has its incident already: none will be created.');
  await expect(dialog.getByRole('button', { name: /^Create \d+/ })).toHaveCount(0);
  await dialog.getByRole('button', { name: `Update ${violated} occurrences` }).click();
  await expect(page.getByText(`Incidents: 0 created, ${violated} updated.`)).toBeVisible();
});
