// "Select all N matching" selects the whole query, past the search's 10,000 limit: a bulk status
// change over more than 10,000 incidents changes every one of them (checked through the API, one
// status-change row each), with progress; a second one, cancelled, changes part and says so.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, openConsole, snap, startServe, test, type Served } from './fixtures';

/** The requests that send a change: mass_update, and a status with its reason in one operation. */
const SENDS = /\/(service_asset_findings\/mass_update|console\/v1\/incidents\/status)(\?|$)/;

test.use({ viewport: { width: 1440, height: 900 } });

const count = async (s: Served, status: string) =>
  (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'status', filter_type: 'equal', value: status }] })).total;

const statusRows = async (s: Served, status: string, since: string) =>
  (
    await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
      ...emptySearch(1),
      include_fields: ['id'],
      filters: [
        { field: 'status', filter_type: 'equal', value: status },
        { field: 'created_at', filter_type: 'range', value: [since, null] },
      ],
    })
  ).total;

test('a bulk status change over all of more than 10,000 matching incidents changes every one, with progress; another is cancelled part-way', async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  const s = await startServe();
  try {
    const ADDED = 10_600;
    for (let i = 0; i < ADDED; i += 1000) {
      const n = Math.min(1000, ADDED - i);
      const items = Array.from({ length: n }, (_, k) => ({ title: `Массовая проверка ${i + k} — host-${(i + k) % 211}`, status: 'new', risklevel: 3 + ((i + k) % 60) / 10 }));
      const res = await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/mass_create', items);
      expect(res.total).toBe(n);
    }
    const matching = await count(s, 'new');
    expect(matching).toBeGreaterThan(10_000);
    const verifyBefore = await count(s, 'verify_close');
    await new Promise((r) => setTimeout(r, 20));
    const startedAt = new Date().toISOString();
    const n = (x: number) => x.toLocaleString('en-GB');

    await openConsole(page, s, '#/incidents?status=new');
    await expect(page.getByTestId('total')).toHaveText(`${n(matching)} incidents`, { timeout: 60_000 });
    await page.getByRole('button', { name: `Select all ${n(matching)} matching` }).click();
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(matching)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('s');
    // The confirmation names N: the whole query, not the rows loaded.
    const dialog = page.getByRole('dialog', { name: `Change the status of ${n(matching)} incidents` });
    await expect(dialog.getByTestId('scope-summary')).toHaveText(`All ${n(matching)} incidents the list matches (the whole query, not only the rows loaded).`);
    await expect(dialog).toContainText(`New — ${n(matching)}`);
    await page.keyboard.press('5');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    const progress = page.locator('.notice.is-progress');
    await expect(progress).toContainText(/Changing status: [\d,]+ of [\d,]+/, { timeout: 60_000 });
    await snap(page, testInfo, 'bulk-query-progress');
    const result = page.getByTestId('change-result');
    await expect(result).toContainText(`Status of ${n(matching)} incidents changed to Awaiting verification.`, { timeout: 300_000 });
    expect(await count(s, 'new')).toBe(0);
    expect(await count(s, 'verify_close')).toBe(verifyBefore + matching);
    expect(await statusRows(s, 'verify_close', startedAt)).toBe(matching);
    await expect(page.getByTestId('total')).toHaveText('0 incidents');

    // A second change over the whole query, cancelled part-way: part changed, the rest untouched, said so.
    const all = await count(s, 'verify_close');
    const workingBefore = await count(s, 'working_customer');
    const secondAt = new Date().toISOString();
    await page.goto(`${s.main}/#/incidents?status=verify_close`);
    await expect(page.getByTestId('total')).toHaveText(`${n(all)} incidents`, { timeout: 60_000 });
    await page.route(SENDS, async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(all)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('s');
    await page.keyboard.press('3');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(progress).toContainText(/Changing status: [1-9][\d,]* of/, { timeout: 60_000 });
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await expect(result).toContainText('not sent (cancelled)', { timeout: 120_000 });
    await snap(page, testInfo, 'bulk-query-cancelled');
    const moved = (await count(s, 'working_customer')) - workingBefore;
    const left = await count(s, 'verify_close');
    expect(moved).toBeGreaterThan(0);
    expect(left).toBeGreaterThan(0);
    expect(moved + left).toBe(all);
    expect(await statusRows(s, 'working_customer', secondAt)).toBe(moved);
    await expect(result).toContainText(`${n(left)} not sent (cancelled).`);
  } finally {
    await s.stop();
  }
});

test('an instance that answers fewer incidents per page than asked is read to its total: the change covers all of the query', async ({ page }) => {
  test.setTimeout(180_000);
  const s = await startServe();
  try {
    const total = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'] })).total;
    expect(total).toBeGreaterThan(300);
    // The search answers at most 150 per page when the console asks for the whole query's pages.
    let capped = 0;
    await page.route('**/service_asset_findings/search', async (route) => {
      const body = route.request().postDataJSON() as { limit?: number } | null;
      if (body && body.limit === 10_000) {
        capped++;
        return route.continue({ postData: JSON.stringify({ ...body, limit: 150 }) });
      }
      return route.continue();
    });
    await openConsole(page, s);
    const n = (x: number) => x.toLocaleString('en-GB');
    await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`, { timeout: 60_000 });
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(total)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: `Change the risk level of ${n(total)} incidents` }).getByRole('textbox').fill('6.6');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('change-result')).toContainText(`Risk level of ${n(total)} incidents set to 6.6`, { timeout: 120_000 });
    expect(capped).toBeGreaterThanOrEqual(Math.ceil(total / 150));
    const other = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'risklevel', filter_type: 'equal', value: 6.6, negation: true }] })).total;
    expect(other).toBe(0);
  } finally {
    await s.stop();
  }
});
