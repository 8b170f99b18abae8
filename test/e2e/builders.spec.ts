// The search builders: the v2 search request and the public API's standard filters, checked as
// you type, run, copied as JSON / URL / curl (the curl command is run for real), saved per
// instance.
import { execFileSync } from 'node:child_process';
import { api, expect, openConsole, test, snap } from './fixtures';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const clipboard = (page: import('@playwright/test').Page) => page.evaluate(() => navigator.clipboard.readText());

/** Runs a copied curl command the way a user pastes it into a shell, with the key in the environment. */
function runCurl(command: string, apiKey: string): unknown {
  const out = execFileSync('bash', ['-c', command], { env: { ...process.env, RADAR_API_KEY: apiKey }, encoding: 'utf8' });
  return JSON.parse(out);
}

test('v2 search builder: filters with negation, checked while typing, run, copied as curl that works, saved', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/search');
  const form = page.getByRole('form', { name: 'Request' });
  await form.getByLabel('Resource').selectOption('service_asset_findings');
  await form.getByRole('button', { name: 'Add a filter' }).click();
  await form.getByLabel('Field of filter 1').selectOption('status');
  await form.getByLabel('Type of filter 1').selectOption('intersection');
  await form.getByLabel('Value of filter 1').fill('new, assigned_customer');
  await form.getByRole('button', { name: 'Add a filter' }).click();
  await form.getByLabel('Field of filter 2').selectOption('risklevel');
  await form.getByLabel('Type of filter 2').selectOption('range');
  await form.getByLabel('From (filter 2)').fill('abc');
  // Checked as typed: the value is not a number.
  await expect(page.getByTestId('validity')).toContainText('invalid value for risklevel: expected number');
  await expect(page.getByRole('button', { name: 'Run' })).toBeDisabled();
  await form.getByLabel('From (filter 2)').fill('7');
  await form.getByRole('button', { name: 'Add a filter' }).click();
  await form.getByLabel('Field of filter 3').selectOption('title');
  await form.getByLabel('Type of filter 3').selectOption('substr');
  await form.getByLabel('Value of filter 3').fill('ПАРОЛЬ');
  await form.getByLabel('Negate filter 3').check();
  await expect(page.getByTestId('validity')).toHaveText(/Valid request/);

  const body = {
    include_fields: [],
    exclude_fields: [],
    filters: [
      { field: 'status', filter_type: 'intersection', value: ['new', 'assigned_customer'], negation: false },
      { field: 'risklevel', filter_type: 'range', value: [7, null], negation: false },
      { field: 'title', filter_type: 'substr', value: 'ПАРОЛЬ', negation: true },
    ],
    ordering: [{ field: 'created_at', direction: 'desc' }],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 50,
    offset: 0,
  };
  // The live request is exactly that body.
  expect(JSON.parse(await page.getByRole('textbox', { name: 'Request as JSON' }).inputValue())).toEqual(body);
  const expected = await api<{ total: number; items: { id: string }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', body);
  expect(expected.total).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('result-total')).toHaveText(`${expected.total} found (${expected.items.length} shown)`);

  // Copy as curl: the command runs as it is (the key comes from $RADAR_API_KEY).
  await page.getByRole('button', { name: 'Copy as curl' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'curl command copied.' })).toBeVisible();
  const curl = await clipboard(page);
  expect(curl).toContain(`'${served.main}/cruddy/v2/service_asset_findings/search'`);
  expect(curl).toContain('PgrApiKey: $RADAR_API_KEY');
  expect(curl).not.toContain(served.apiKey);
  const viaCurl = runCurl(curl, served.apiKey) as { total: number; items: { id: string }[] };
  expect(viaCurl.total).toBe(expected.total);
  expect(viaCurl.items.map((i) => i.id)).toEqual(expected.items.map((i) => i.id));
  await page.getByRole('button', { name: 'Copy as JSON' }).click();
  expect(JSON.parse(await clipboard(page))).toEqual(body);
  await page.getByRole('button', { name: 'Copy as URL' }).click();
  expect(await clipboard(page)).toBe(`${served.main}/cruddy/v2/service_asset_findings/search`);
  await page.getByRole('tab', { name: 'curl' }).click();
  await expect(page.getByTestId('request-curl')).toContainText('--data-raw');
  await snap(page, testInfo, 'v2-builder', true);

  // JSON typed by hand goes back into the form.
  await page.getByRole('tab', { name: 'JSON' }).click();
  const edited = { ...body, filters: [{ field: 'status', filter_type: 'equal', value: 'closed', negation: false }], limit: 5 };
  await page.getByRole('textbox', { name: 'Request as JSON' }).fill(JSON.stringify(edited));
  await expect(form.getByLabel('Field of filter 1')).toHaveValue('status');
  await expect(form.getByLabel('Type of filter 1')).toHaveValue('equal');
  await expect(form.getByLabel('Value of filter 1')).toHaveValue('closed');
  await expect(form.getByLabel('Field of filter 2')).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Request as JSON' }).fill('{"filters": [');
  await expect(page.getByTestId('validity')).toContainText('not JSON');

  // Saved per instance, kept across reloads.
  await page.getByRole('textbox', { name: 'Request as JSON' }).fill(JSON.stringify(edited));
  await page.getByLabel('Name of the search').fill('Закрытые, 5 шт.');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.reload();
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(form.getByLabel('Field of filter 1')).toHaveCount(0);
  await page.getByRole('button', { name: 'Закрытые, 5 шт.', exact: true }).click();
  await expect(form.getByLabel('Value of filter 1')).toHaveValue('closed');
  await page.getByRole('button', { name: 'Run' }).click();
  const closed = await api<{ total: number }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', edited);
  await expect(page.getByTestId('result-total')).toHaveText(`${closed.total} found (${Math.min(5, closed.total)} shown)`);
});

test('public API builder: standard filters checked with the shared grammar, run, copied as URL and curl', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/public');
  const query = page.getByRole('textbox', { name: 'Query string' });
  await query.fill('status=between,1');
  await expect(page.getByTestId('validity')).toContainText('unknown operator "between" for field status');
  await query.fill('status=in,new,assigned_customer&service_asset.name=like,srv&order=-risklevel&per_page=20');
  await query.blur();
  await expect(page.getByTestId('validity')).toHaveText(/Valid request/);
  const form = page.getByRole('form', { name: 'Request' });
  await expect(form.getByLabel('Field of filter 1')).toHaveValue('status');
  await expect(form.getByLabel('Operator of filter 1')).toHaveValue('in');
  await expect(form.getByLabel('Field of filter 2')).toHaveValue('service_asset.name');
  await form.getByLabel('Field of filter 2').fill('service_asset.nope');
  await expect(page.getByTestId('validity')).toContainText('unknown field: service_asset.nope');
  await form.getByLabel('Field of filter 2').fill('service_asset.name');

  const qs = 'status=in%2Cnew%2Cassigned_customer&service_asset.name=like%2Csrv&order=-risklevel&per_page=20';
  const expected = await api<{ total: number; objects: { id: string }[] }>(served, 'GET', `/data/public/api/v1/incidents?${qs}`);
  expect(expected.total).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByTestId('result-total')).toHaveText(`${expected.total} found (${expected.objects.length} shown)`);
  await page.getByRole('button', { name: 'Copy as URL' }).click();
  expect(await clipboard(page)).toBe(`${served.main}/data/public/api/v1/incidents?${qs}`);
  await page.getByRole('button', { name: 'Copy as curl' }).click();
  const viaCurl = runCurl(await clipboard(page), served.apiKey) as { total: number; objects: { id: string }[] };
  expect(viaCurl.objects.map((o) => o.id)).toEqual(expected.objects.map((o) => o.id));
  await page.getByRole('button', { name: 'Copy as JSON' }).click();
  expect(JSON.parse(await clipboard(page))).toMatchObject({
    filters: [
      { field: 'status', op: 'in', values: ['new', 'assigned_customer'] },
      { field: 'service_asset.name', op: 'like', values: ['srv'] },
    ],
    order: [{ field: 'risklevel', direction: 'desc' }],
    per_page: 20,
  });
  await snap(page, testInfo, 'public-builder', true);
});
