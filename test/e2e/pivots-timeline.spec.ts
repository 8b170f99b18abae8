// Pivots and the timeline: from an incident's detail panel and its row's menu the list is
// filtered in or out by its asset, finding type, rule, owner or group, one click each, the counts
// agreeing with the API, and Back returns; the incident reads as one timeline, oldest first,
// status changes with who and when and their reason beside them, messages among them.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, incidents, loadedRows, openConsole, snap, test, type Served } from './fixtures';

interface Full {
  id: string;
  display_id: number;
  service_asset_id: string;
  finding_id: string;
  user_id: string | null;
  engine_go_rules: { id: string; name: string }[];
  status_changes: { id: string; created_at: string }[];
  messages: { id: string; created_at: string; service_asset_finding_status_change_id: string | null }[];
}

/** An incident raised by a rule, with an owner, a history of several changes and messages. */
async function pickIncident(s: Served): Promise<Full> {
  const r = await api<{ items: Full[] }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', {
    ...emptySearch(400),
    include_fields: ['id', 'display_id', 'service_asset_id', 'finding_id', 'user_id', 'created_at'],
    relations: ['engine_go_rules', 'status_changes', 'messages'],
    ordering: [{ field: 'created_at', direction: 'desc' }],
  });
  const found = r.items.find((i) => i.engine_go_rules.length > 0 && i.service_asset_id && i.finding_id && i.user_id && i.status_changes.length >= 2 && i.messages.length >= 1);
  expect(found, 'the demo data has an incident raised by a rule, owned, with a history and messages').toBeTruthy();
  return found!;
}

const total = async (s: Served, filters: unknown[]) => (await incidents(s, filters, { limit: 1 })).total;

const looks = [
  { locale: 'en-GB', theme: 'light', table: 'Incidents', timeline: /^Timeline/, count: (n: number) => `${n.toLocaleString('en-GB')} incident${n === 1 ? '' : 's'}`, back: /Back/, onlyOwner: 'Show only this owner', hideAsset: 'Hide this asset' },
  { locale: 'ru-RU', theme: 'dark', table: 'Инциденты', timeline: /^Хронология/, count: null, back: /Назад/, onlyOwner: 'Только этот ответственный', hideAsset: 'Скрыть этот актив' },
] as const;

for (const c of looks) {
  test.describe(`pivots and timeline, ${c.locale}, ${c.theme}`, () => {
    test.use({ locale: c.locale, colorScheme: c.theme, viewport: { width: 1440, height: 900 } });

    test('filter in and out from the detail panel and the row menu, back again; the timeline in time order', async ({ page, served }, testInfo) => {
      test.setTimeout(240_000);
      const inc = await pickIncident(served);
      const all = await total(served, []);
      const totalText = page.getByTestId('total');
      const shows = async (n: number) => {
        if (c.count) await expect(totalText).toHaveText(c.count(n));
        else await expect(totalText).toContainText(n.toLocaleString('ru-RU'));
      };
      await openConsole(page, served, `#/incidents/${inc.id}`);
      const detail = page.getByRole('complementary');
      await expect(detail.getByTestId('pivot-in-asset')).toBeVisible({ timeout: 60_000 });
      await shows(all);

      // Only the incident's asset: one click.
      await detail.getByTestId('pivot-in-asset').click();
      await shows(await total(served, [{ field: 'service_asset_id', filter_type: 'equal', value: inc.service_asset_id }]));
      expect(new URL(page.url()).hash).toContain(`asset=${inc.service_asset_id}`);
      await expect(page.getByTestId('pivot-chip')).toHaveCount(1);
      // The rule too: the counts come from the incidents the rule raised.
      await detail.getByTestId('pivot-in-rule').first().click();
      const byRule = await total(served, [
        { field: 'service_asset_id', filter_type: 'equal', value: inc.service_asset_id },
        { field: 'engine_go_rules', filter_type: 'related', value: [inc.engine_go_rules[0]!.id] },
      ]);
      await shows(byRule);
      const chips = page.locator('[data-testid^="count-status-"]');
      await expect.poll(async () => (await chips.allTextContents()).reduce((n, x) => n + Number(x.replace(/\D/g, '')), 0)).toBe(byRule);
      await snap(page, testInfo, `pivot-in-${c.locale}`);
      // Back, twice: the list as it was.
      await page.getByTestId('pivot-back').click();
      await shows(await total(served, [{ field: 'service_asset_id', filter_type: 'equal', value: inc.service_asset_id }]));
      await page.goBack();
      await shows(all);
      await expect(page.getByTestId('pivot-bar')).toHaveCount(0);

      // From the row's menu: hide the asset of the first row, then only its owner.
      await detail.getByRole('button', { name: /Close|Закрыть/ }).first().click();
      const first = loadedRows(page, c.table).first();
      const firstRow = (await incidents(served)).items[0]!;
      await first.click({ button: 'right' });
      await page.getByRole('menuitem', { name: c.hideAsset }).click();
      await shows(all - (await total(served, [{ field: 'service_asset_id', filter_type: 'equal', value: firstRow.service_asset_id }])));
      expect(new URL(page.url()).hash).toContain(`xasset=${firstRow.service_asset_id}`);
      await expect(page.getByTestId('pivot-chip')).toHaveCount(1);
      await snap(page, testInfo, `pivot-out-${c.locale}`);
      await page.goBack();
      await shows(all);
      await loadedRows(page, c.table).first().click({ button: 'right' });
      const ownerItem = page.getByRole('menuitem', { name: c.onlyOwner });
      const firstOwner = (await api<{ items: { user_id: string | null }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['user_id'], ordering: [{ field: 'created_at', direction: 'desc' }] })).items[0]!.user_id;
      if (firstOwner) {
        await ownerItem.click();
        await shows(await total(served, [{ field: 'user_id', filter_type: 'equal', value: firstOwner }]));
      } else {
        await expect(ownerItem).toHaveAttribute('aria-disabled', 'true');
        await page.keyboard.press('Escape');
      }

      // One timeline, oldest first: status changes and messages among them, reasons beside their change.
      await page.goto(`${served.main}/#/incidents/${inc.id}`);
      await detail.getByRole('tab', { name: c.timeline }).click();
      const items = detail.getByTestId('timeline').locator(':scope > li');
      const linked = inc.messages.filter((m) => inc.status_changes.some((s) => s.id === m.service_asset_finding_status_change_id)).length;
      await expect(detail.getByTestId('history-item')).toHaveCount(inc.status_changes.length);
      await expect(detail.getByTestId('message')).toHaveCount(inc.messages.length - linked);
      await expect(detail.getByTestId('history-note')).toHaveCount(linked);
      const times = await items.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime') ?? ''));
      expect(times).toEqual([...times].sort());
      await snap(page, testInfo, `timeline-${c.locale}`);
    });
  });
}
