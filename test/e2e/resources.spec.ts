// Browsing the registry's other resources (lists, records, relations, front_link addresses) and
// the charts, whose bars filter the incident table.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, incidents, loadedRows, openConsole, snap, test } from './fixtures';

interface Page<T> {
  items: T[];
  total: number;
}

const search = (over: Record<string, unknown> = {}) => ({ ...emptySearch(50), ...over });

test('resources: the index, an asset list searched, an asset with its related incidents, on to triage', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/r');
  const assets = await api<Page<{ id: string; name: string }>>(served, 'POST', '/cruddy/v2/service_assets/search', search({ limit: 0 }));
  const card = page.getByRole('link', { name: /^Assets service_assets/ });
  await expect(card).toContainText(String(assets.total));
  await card.click();
  await expect(page).toHaveURL(/#\/r\/service_assets$/);
  await expect(page.getByRole('heading', { name: 'Assets' })).toBeVisible();
  await expect(page.getByText(`${assets.total} records`)).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search records' }).fill('srv-db');
  const found = await api<Page<{ id: string; name: string }>>(
    served,
    'POST',
    '/cruddy/v2/service_assets/search',
    search({ virtual_search: { value: 'srv-db', strict: false }, ordering: [{ field: 'created_at', direction: 'desc' }], include_fields: ['id', 'name'] }),
  );
  expect(found.total).toBeGreaterThan(0);
  await expect(page.getByText(new RegExp(`^${found.total} records?$`))).toBeVisible();
  const table = page.getByRole('table', { name: 'Assets' });
  await expect(table.locator('tbody tr[data-loaded="true"]')).toHaveCount(found.total);
  await table.locator('tbody tr[data-loaded="true"]').first().click();
  const asset = found.items[0]!;
  await expect(page).toHaveURL(new RegExp(`#/r/service_assets/${asset.id}$`));
  await expect(page.getByRole('heading', { name: asset.name })).toBeVisible();
  // Its incidents: the has-many relation, counted and listed.
  const related = await incidents(served, [{ field: 'service_asset_id', filter_type: 'equal', value: asset.id }]);
  const tab = page.getByRole('tab', { name: /^Incidents service_asset_findings/ });
  await expect(tab).toContainText(String(related.total));
  await tab.click();
  const rel = page.getByRole('table', { name: 'Incidents' });
  await expect(rel.locator('tbody tr[data-loaded="true"]')).toHaveCount(related.total);
  await snap(page, testInfo, 'asset-record');
  // A related incident opens in triage.
  await rel.locator('tbody tr[data-loaded="true"]').first().locator('td').first().click();
  await expect(page).toHaveURL(new RegExp(`#/incidents/${related.items[0]!.id}$`));
  await expect(page.getByRole('complementary', { name: 'Incident' }).getByRole('heading', { level: 2 })).toHaveText(related.items[0]!.title);
});

test('front_link addresses of findings and assets open their records; belongs-to links navigate', async ({ page, served }) => {
  const findings = await api<{ objects: { id: string; title: string; front_link: string }[] }>(served, 'GET', '/data/public/api/v1/findings?per_page=1');
  const f = findings.objects[0]!;
  expect(f.front_link).toBe(`${served.main}/#/findings/${f.id}`);
  await openConsole(page, served);
  await page.goto(f.front_link);
  await expect(page.getByRole('heading', { name: f.title })).toBeVisible();
  await expect(page.getByRole('tab', { name: /^Fields/ })).toHaveAttribute('aria-selected', 'true');
  // Occurrence → its incident (belongs-to), shown by its title and linked.
  const occ = await api<Page<{ id: string; service_asset_finding_id: string }>>(
    served,
    'POST',
    '/cruddy/v2/occurrences/search',
    search({ limit: 1, filters: [{ field: 'service_asset_finding_id', filter_type: 'exists', value: null, negation: true }] }),
  );
  const o = occ.items[0]!;
  const inc = await api<{ title: string }>(served, 'GET', `/cruddy/v2/service_asset_findings/${o.service_asset_finding_id}?relations=`);
  await page.goto(`${served.main}/#/r/occurrences/${o.id}`);
  const link = page.getByRole('navigation', { name: 'Links' }).getByRole('link', { name: inc.title });
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(new RegExp(`#/incidents/${o.service_asset_finding_id}$`));
});

test('a record shows ports and numbers that name things without thousands separators', async ({ page, served }) => {
  const occ = await api<Page<{ id: string }>>(served, 'POST', '/cruddy/v2/occurrences/search', search({ limit: 1 }));
  const o = occ.items[0]!;
  await api(served, 'PUT', '/cruddy/v2/occurrences/update', { id: o.id, port: 3389 });
  await openConsole(page, served);
  await page.goto(`${served.main}/#/r/occurrences/${o.id}`);
  const port = page.locator('.kv-row', { has: page.locator('dt[title="port"]') }).locator('dd');
  await expect(port).toHaveText('3389');
});

test('record views name their linked records: finding type and last occurrence of an incident, responsible group of an asset', async ({ page, served }) => {
  const incs = await api<Page<{ id: string; finding_id: string; last_occurrence_id: string | null }>>(
    served,
    'POST',
    '/cruddy/v2/service_asset_findings/search',
    search({ limit: 1, filters: [{ field: 'last_occurrence_id', filter_type: 'exists', value: null, negation: true }] }),
  );
  const inc = incs.items[0]!;
  const finding = await api<{ title: string }>(served, 'GET', `/cruddy/v2/findings/${inc.finding_id}?relations=`);
  const occurrence = await api<{ id: string; ip: string | null }>(served, 'GET', `/cruddy/v2/occurrences/${inc.last_occurrence_id}?relations=`);
  const field = (name: string) => page.locator('.kv-row', { has: page.locator(`dt[title="${name}"]`) }).locator('dd');
  await openConsole(page, served);
  await page.goto(`${served.main}/#/r/service_asset_findings/${inc.id}`);
  await expect(field('finding_id')).toHaveText(finding.title);
  // An occurrence is named by its address.
  await expect(field('last_occurrence_id')).toHaveText(occurrence.ip || occurrence.id);
  const assets = await api<Page<{ id: string; responsible_group_id: string }>>(
    served,
    'POST',
    '/cruddy/v2/service_assets/search',
    search({ limit: 1, filters: [{ field: 'responsible_group_id', filter_type: 'exists', value: null, negation: true }] }),
  );
  const asset = assets.items[0]!;
  const group = await api<{ name: string }>(served, 'GET', `/cruddy/v2/responsible_groups/${asset.responsible_group_id}?relations=`);
  await page.goto(`${served.main}/#/r/service_assets/${asset.id}`);
  await expect(field('responsible_group_id')).toHaveText(group.name);
});

test('charts: a click on a bar filters the table to that week and status', async ({ page, served }, testInfo) => {
  const stats = await api<{ bucket: string; over_time: { bucket: string; status: string; risk: string; count: number }[] }>(
    served,
    'GET',
    '/console/v1/stats/incidents?bucket=auto',
  );
  const closed = stats.over_time.filter((o) => o.status === 'closed');
  const last = closed.map((o) => o.bucket).sort().at(-1)!;
  const expected = closed.filter((o) => o.bucket === last).reduce((n, o) => n + o.count, 0);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const bars = page.locator('.chart-status path.bar-closed');
  await expect(bars.first()).toBeVisible();
  await snap(page, testInfo, 'charts');
  await bars.last().click();
  await expect(page.getByTestId('total')).toHaveText(`${expected} incident${expected === 1 ? '' : 's'}`);
  await expect(page.getByRole('group', { name: 'Statuses' }).getByRole('button', { name: /^Closed/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByLabel('Time range')).toHaveValue('custom');
  expect(await loadedRows(page).locator('[data-status]').evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-status')))])).toEqual(['closed']);
});
