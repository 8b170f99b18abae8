// The served console in Chromium: signing in and the incident list, against a real `serve`.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, test } from './fixtures';

const everything = { ...emptySearch(1), include_fields: ['id'] };

test('the key from the URL fragment opens the incident list, newest first', async ({ page, served }, testInfo) => {
  const { total } = await api<{ total: number }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', everything);
  const newest = await api<{ items: { title: string }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', {
    ...everything,
    include_fields: ['title'],
    ordering: [{ field: 'created_at', direction: 'desc' }],
  });
  expect(total).toBeGreaterThan(0);
  await page.goto(`${served.main}/#key=${served.apiKey}`);
  const table = page.getByRole('table', { name: 'Incidents' });
  await expect(table.locator('tbody tr').first()).toBeVisible();
  await expect(page.getByTestId('total')).toHaveText(`${total} total`);
  await expect(table.locator('tbody tr').first()).toContainText(newest.items[0]!.title);
  expect(await table.locator('tbody tr').count()).toBe(Math.min(100, total));
  // The key left the address bar once read.
  expect(page.url()).not.toContain(served.apiKey);
  await testInfo.attach('incidents', { body: await page.screenshot(), contentType: 'image/png' });
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
  await expect(page.getByRole('table', { name: 'Incidents' }).locator('tbody tr').first()).toBeVisible();
});

test('the page is served with a strict Content-Security-Policy and the API stays closed without a key', async ({ page, served }) => {
  const res = await page.goto(`${served.main}/`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  const r = await page.request.post(`${served.main}/cruddy/v2/service_asset_findings/search`, { data: everything });
  expect(r.status()).toBe(401);
  expect(await r.json()).toEqual({ error: 'no auth header', error_code: 401 });
});
