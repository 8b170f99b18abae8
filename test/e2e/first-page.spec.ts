// The served console in Chromium: signing in and the incident list, against a real `serve`.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, loadedRows, test, snap } from './fixtures';

const everything = { ...emptySearch(1), include_fields: ['id'] };

test('the key from the URL fragment opens the incident list, newest first', async ({ page, served }, testInfo) => {
  const { total } = await api<{ total: number }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', everything);
  const newest = await api<{ items: { title: string; display_id: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', {
    ...everything,
    limit: 5,
    include_fields: ['title', 'display_id'],
    ordering: [{ field: 'created_at', direction: 'desc' }],
  });
  expect(total).toBeGreaterThan(0);
  await page.goto(`${served.main}/#key=${served.apiKey}`);
  const table = page.getByRole('table', { name: 'Incidents' });
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(page.getByTestId('total')).toHaveText(`${total} incidents`);
  // Rows are in the API's order: the five newest first.
  for (let i = 0; i < 5; i++) await expect(loadedRows(page).nth(i)).toContainText(newest.items[i]!.title);
  // Virtualized: the rows on screen, not all of them.
  const shown = await table.locator('tbody tr').count();
  expect(shown).toBeGreaterThan(10);
  expect(shown).toBeLessThan(Math.min(total, 100));
  // The key left the address bar once read.
  expect(page.url()).not.toContain(served.apiKey);
  await snap(page, testInfo, 'incidents');
});

test('without a key the page asks for one; a wrong key is refused, the right one opens the list', async ({ page, served }) => {
  await page.goto(`${served.main}/`);
  const key = page.getByLabel('API key');
  await expect(key).toBeVisible();
  await key.fill('wrong-key-123');
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('alert')).toContainText('401');
  await key.fill(served.apiKey);
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(loadedRows(page).first()).toBeVisible();
  // The key is kept for the tab's session: a reload does not ask again.
  await page.reload();
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(page.getByLabel('API key')).toHaveCount(0);
});

test('the page is served with a strict Content-Security-Policy and the API stays closed without a key', async ({ page, served }) => {
  const res = await page.goto(`${served.main}/`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  const r = await page.request.post(`${served.main}/cruddy/v2/service_asset_findings/search`, { data: everything });
  expect(r.status()).toBe(401);
  expect(await r.json()).toEqual({ error: 'no auth header', error_code: 401 });
});
