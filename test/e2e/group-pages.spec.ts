// Grouping the incidents by title: nearly one group per incident, so the console reads the groups
// a page at a time in title order (the group operation's `order: "value"`, `limit`, `offset`) and
// reads more as the list scrolls. The number of titles and of incidents shown are the API's, the
// first and the last groups are the API's first and last in title order, and the other groupings
// still come whole, the largest first. A remote platform is asked the spec's request (every
// group); in "All instances" the pages of each instance are merged in title order.
import { api, expect, loadedRows, openConsole, startServe, test } from './fixtures';

test.use({ viewport: { width: 1440, height: 900 } });

type Answer = { items: { value: unknown; count: number }[]; groups?: number; total?: number };
const GROUP = '/cruddy/v2/service_asset_findings/group';

test('grouping by title pages its groups in title order, more as the list scrolls; the numbers are the API’s', async ({ page, served }) => {
  test.setTimeout(120_000);
  const all = (await api<Answer>(served, 'POST', GROUP, { group_field: 'title', order: 'value' })).items;
  const numbers = await api<Answer>(served, 'POST', GROUP, { group_field: 'title', limit: 0 });
  expect(numbers.groups).toBe(all.length);
  // More titles than one page holds: the list must read a second page to reach the last one.
  expect(all.length).toBeGreaterThan(200);

  const asked: { order?: string; limit?: number; offset?: number }[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith(GROUP)) asked.push(JSON.parse(r.postData() ?? '{}'));
  });
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  await page.locator('.group-control select').selectOption('title');

  const n = (x: number) => x.toLocaleString('en-GB');
  await expect(page.getByTestId('groups-total')).toHaveText(`${n(all.length)} titles, ${n(numbers.total!)} incidents (in title order; more load as you scroll)`, { timeout: 30_000 });
  await expect(page.getByTestId('total')).toContainText(n(numbers.total!));
  const groups = page.getByTestId('group');
  await expect(groups.first().locator('.group-label')).toHaveText(String(all[0]!.value));
  await expect(groups.first().getByTestId('group-count')).toHaveText(n(all[0]!.count));
  await expect(groups.first()).toHaveAttribute('aria-setsize', String(all.length));
  expect(asked).toEqual([{ group_field: 'title', filters: [], order: 'value', offset: 0, limit: 200 }]);

  // Scrolled to its end, the list reads the next page and ends on the API's last title.
  const last = all[all.length - 1]!;
  const list = page.locator('.groups');
  await expect(async () => {
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(groups.last().locator('.group-label')).toHaveText(String(last.value), { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(groups.last()).toHaveAttribute('aria-posinset', String(all.length));
  await expect(groups.last().getByTestId('group-count')).toHaveText(n(last.count));
  expect(asked.map((b) => b.offset)).toEqual([0, 200]);

  // A bounded grouping still comes whole, the largest first, in one request.
  asked.length = 0;
  await page.locator('.group-control select').selectOption('status');
  const statuses = (await api<Answer>(served, 'POST', GROUP, { group_field: 'status' })).items;
  await expect(page.getByTestId('groups-total')).toHaveText(`${n(statuses.length)} statuses, ${n(numbers.total!)} incidents`, { timeout: 30_000 });
  await expect(groups.first().getByTestId('group-count')).toHaveText(n(statuses[0]!.count));
  expect(asked).toEqual([{ group_field: 'status', filters: [] }]);
});

test('a remote platform is asked every title at once; "All instances" merges the instances’ titles in title order', async ({ page, served }) => {
  test.setTimeout(120_000);
  const remote = await startServe();
  try {
    const inst = await api<{ id: string }>(served, 'POST', '/console/v1/instances', { kind: 'remote', name: 'ЦОД Москва', url: remote.main, api_key: remote.apiKey });
    const here = (await api<Answer>(served, 'POST', GROUP, { group_field: 'title', order: 'value' })).items;
    const there = (await api<Answer>(remote, 'POST', GROUP, { group_field: 'title', order: 'value' })).items;
    const sum = (items: Answer['items']) => items.reduce((n, g) => n + g.count, 0);
    const asked: { url: string; body: Record<string, unknown> }[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/group')) asked.push({ url: r.url(), body: JSON.parse(r.postData() ?? '{}') });
    });
    const n = (x: number) => x.toLocaleString('en-GB');

    await openConsole(page, served, `#/incidents?by=title&instance=${inst.id}`);
    await expect(page.getByTestId('groups-total')).toHaveText(`${n(there.length)} titles, ${n(sum(there))} incidents (in title order; more load as you scroll)`, { timeout: 60_000 });
    await expect(page.getByTestId('group').first().locator('.group-label')).toHaveText(String(there[0]!.value));
    expect(asked.length).toBeGreaterThan(0);
    for (const a of asked) expect(a.body).toEqual({ group_field: 'title', filters: [] });

    // Every instance: each title once per instance holding it, in title order, the pages read as the list scrolls.
    asked.length = 0;
    await page.evaluate(() => {
      location.hash = '#/incidents?by=title&instance=all';
    });
    const count = here.length + there.length;
    await expect(page.getByTestId('groups-total')).toHaveText(`${n(count)} titles, ${n(sum(here) + sum(there))} incidents (in title order; more load as you scroll)`, { timeout: 60_000 });
    const values = [...here, ...there].map((g) => String(g.value)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const groups = page.getByTestId('group');
    await expect(groups.first().locator('.group-label')).toHaveText(values[0]!);
    await expect(groups.first()).toHaveAttribute('aria-setsize', String(count));
    const list = page.locator('.groups');
    await expect(async () => {
      await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await expect(page.locator(`[data-testid="group"][aria-posinset="${count}"]`)).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.locator(`[data-testid="group"][aria-posinset="${count}"] .group-label`)).toHaveText(values[values.length - 1]!);
    // This server's instance was asked pages; the remote one everything at once.
    expect(asked.filter((a) => a.body.limit === 200).length).toBeGreaterThanOrEqual(2);
    expect(asked.filter((a) => a.body.limit === undefined)).toHaveLength(1);
  } finally {
    await remote.stop();
  }
});
