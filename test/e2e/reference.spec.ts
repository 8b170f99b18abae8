// The API reference (/reference/): reachable from the console's commands (palette and menu), renders the
// operations of /openapi.json with the renderer served by this server (nothing from another
// origin, nothing the page's Content-Security-Policy refuses), and "try it" calls this server
// with the console's key.
import { expect, test } from './fixtures';

test('the console opens the API reference, which renders the operations and tries one with the key', async ({ page, served }) => {
  test.setTimeout(120_000);
  const refused: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  page.on('pageerror', (e) => refused.push(String(e)));
  page.on('request', (r) => {
    if (!r.url().startsWith(served.main) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url());
  });

  await page.goto(`${served.main}/#key=${served.apiKey}`);
  await expect(page.getByRole('table', { name: 'Incidents', exact: true })).toBeVisible();
  // The console's command palette (and the desktop app's menu, built from the same actions).
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await palette.getByRole('combobox').fill('API reference');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`${served.main}/reference/`);
  await expect(page.getByRole('heading', { name: 'Radar console local API' })).toBeVisible({ timeout: 30_000 });
  // The operations of the document, by tag.
  await expect(page.getByText('Create responsible groups').first()).toBeVisible();
  for (const tag of ['public', 'service_asset_findings', 'routing', 'transfer']) await expect(page.getByText(tag, { exact: true }).first()).toBeVisible();

  // Try it: an operation's request sent from the page, with the key, answered by this server.
  const section = page.locator('[id$="/GET/cruddy/v2/responsible_groups/_meta"]').first();
  await section.scrollIntoViewIfNeeded();
  await section.getByRole('button', { name: /Test Request/i }).first().click();
  const answer = page.waitForResponse((r) => r.url() === `${served.main}/cruddy/v2/responsible_groups/_meta` && r.request().method() === 'GET');
  await page.getByRole('button', { name: /^Send/ }).first().click();
  const res = await answer;
  expect(res.status()).toBe(200);
  expect((await res.request().allHeaders()).pgrapikey).toBe(served.apiKey);
  expect(((await res.json()) as { name: string }).name).toBe('responsible_groups');
  await expect(page.getByText('200 OK').first()).toBeVisible();

  expect(foreign).toEqual([]);
  expect(refused).toEqual([]);
});

test('without the key the reference says how to open it; the document needs the key', async ({ page, served }) => {
  await page.goto(`${served.main}/reference/`);
  await expect(page.getByText('The reference needs the API key')).toBeVisible();
  const doc = await page.request.get(`${served.main}/openapi.json`);
  expect(doc.status()).toBe(401);
  const withKey = await page.request.get(`${served.main}/openapi.json`, { headers: { PgrApiKey: served.apiKey } });
  expect(withKey.status()).toBe(200);
  expect(((await withKey.json()) as { openapi: string }).openapi).toBe('3.1.0');
});
