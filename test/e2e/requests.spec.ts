// The requests a view change sends, counted in the page: the first rows and their read-ahead in
// one request, the live list's mark from the rows (or asked beside the first page, not after it),
// the labels of related records in one request per resource, a grouped view asking its groups
// and nothing else, an opened group one page, and the opening asking each directory once. The
// numbers shown stay the API's.
import type { Page, Request } from '@playwright/test';
import { api, expect, incidents, loadedRows, openConsole, test, type Served } from './fixtures';

interface Sent {
  method: string;
  path: string;
  search: string;
  body: Record<string, unknown> | null;
  at: number;
  answeredAt: number | null;
}

/** The console's periodic requests (its instances' health, the heartbeat, the sync state): sent whatever the view. */
const PERIODIC = /^GET \/console\/v1\/(instances(\/health)?|sync)$/;

const INCIDENT_SEARCH = '/cruddy/v2/service_asset_findings/search';

/** Every API request the page sends, with when it was sent and answered. */
function recorder(page: Page) {
  const all: Sent[] = [];
  const byRequest = new Map<Request, Sent>();
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!/^\/(cruddy|console|api)\//.test(u.pathname)) return;
    let body: Record<string, unknown> | null = null;
    try {
      body = r.postDataJSON() as Record<string, unknown> | null;
    } catch {
      body = null;
    }
    const s: Sent = { method: r.method(), path: u.pathname, search: u.search, body, at: Date.now(), answeredAt: null };
    all.push(s);
    byRequest.set(r, s);
  });
  const done = (r: Request) => {
    const s = byRequest.get(r);
    if (s) s.answeredAt = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  const counted = () => all.filter((s) => !PERIODIC.test(`${s.method} ${s.path}`));
  return {
    /** Forgets what was sent so far. */
    reset(): void {
      all.length = 0;
    },
    sent: counted,
    /** Waits until no request is in flight and none has been sent for `quietMs`. */
    async quiet(quietMs = 1000): Promise<void> {
      await expect
        .poll(
          () => {
            const list = counted();
            const last = Math.max(0, ...list.map((s) => Math.max(s.at, s.answeredAt ?? Number.POSITIVE_INFINITY)));
            return list.every((s) => s.answeredAt !== null) && Date.now() - last >= quietMs;
          },
          { timeout: 30_000, intervals: [100] },
        )
        .toBe(true);
    },
  };
}

type Rec = ReturnType<typeof recorder>;

const isPage = (s: Sent) => s.path === INCIDENT_SEARCH && s.method === 'POST' && !isMark(s);
const isMark = (s: Sent) =>
  s.path === INCIDENT_SEARCH && s.body?.limit === 1 && (s.body.include_fields as string[] | undefined)?.join(',') === 'id,created_at';
const isStats = (s: Sent) => s.path === '/console/v1/stats/incidents';
const isGroup = (s: Sent) => s.path === '/cruddy/v2/service_asset_findings/group';
const labelsOf = (resource: string) => (s: Sent) => s.path === `/cruddy/v2/${resource}/search` && JSON.stringify(s.body?.filters ?? []).includes('"field":"id"');

/** What a view change sent, by kind. */
function tally(rec: Rec) {
  const sent = rec.sent();
  return {
    pages: sent.filter(isPage),
    marks: sent.filter(isMark).length,
    stats: sent.filter(isStats).length,
    groups: sent.filter(isGroup).length,
    assetLabels: sent.filter(labelsOf('service_assets')).length,
    findingLabels: sent.filter(labelsOf('findings')).length,
    people: sent.filter((s) => s.method === 'GET' && s.path === '/console/v1/people').length,
    teams: sent.filter((s) => s.path === '/cruddy/v2/responsible_groups/search').length,
    me: sent.filter((s) => s.method === 'GET' && s.path === '/console/v1/me').length,
    all: sent.map((s) => `${s.method} ${s.path}${s.search} ${s.body ? JSON.stringify({ limit: s.body.limit, offset: s.body.offset, filters: s.body.filters }) : ''}`),
  };
}

const n = (x: number) => x.toLocaleString('en-GB');

async function totalOf(s: Served, filters: unknown[] = []): Promise<number> {
  return (await incidents(s, filters, { limit: 1 })).total;
}

test('opening asks the first rows and their read-ahead in one request, the aggregates once, no mark, and me, people and groups once each', async ({ page, served }) => {
  const rec = recorder(page);
  const total = await totalOf(served);
  await openConsole(page, served);
  await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`);
  await expect(loadedRows(page).first()).toBeVisible();
  await rec.quiet();
  const t = tally(rec);
  expect(t.pages.length, t.all.join('\n')).toBe(1);
  expect(t.pages[0]!.body).toMatchObject({ offset: 0, limit: 300, ordering: [{ field: 'created_at', direction: 'desc' }] });
  expect(t.stats, t.all.join('\n')).toBe(1);
  expect(t.marks, 'the mark comes from the first rows').toBe(0);
  expect(t.me, 'me').toBe(1);
  expect(t.people, 'the people directory').toBe(1);
  expect(t.teams, 'the responsible groups').toBe(1);
  expect(t.assetLabels, 'the asset names in one request').toBe(1);
  // Scrolling past the rows read ahead asks the next ones.
  rec.reset();
  await page.getByTestId('incidents-scroll').evaluate((el) => el.scrollTo(0, 300 * 28 + 200));
  if (total > 300) await expect.poll(() => tally(rec).pages.some((p) => (p.body?.offset as number) >= 300)).toBe(true);
});

test('a status chip asks one page (with its read-ahead) and nothing after it; a range also the aggregates', async ({ page, served }) => {
  const rec = recorder(page);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await rec.quiet();
  rec.reset();
  const expected = await totalOf(served, [{ field: 'status', filter_type: 'intersection', value: ['new'] }]);
  await page.getByRole('button', { name: /^New/ }).click();
  await expect(page.getByTestId('total')).toHaveText(`${n(expected)} incidents`);
  await rec.quiet();
  let t = tally(rec);
  expect(t.pages.length, t.all.join('\n')).toBe(1);
  expect(t.pages[0]!.body).toMatchObject({ offset: 0, limit: 300 });
  // The chips count without the status filter: the aggregates in hand still hold.
  expect(t.stats).toBe(0);
  expect(t.marks).toBe(0);
  expect(t.people + t.teams + t.me).toBe(0);
  expect(t.assetLabels).toBeLessThanOrEqual(1);
  expect(t.findingLabels).toBeLessThanOrEqual(1);

  rec.reset();
  await page.getByRole('combobox', { name: 'Time range' }).selectOption('1y');
  await rec.quiet();
  t = tally(rec);
  expect(t.pages.length, t.all.join('\n')).toBe(1);
  expect(t.stats, t.all.join('\n')).toBe(1);
  expect(t.marks).toBe(0);
  const range = t.pages[0]!.body!.filters as unknown[];
  const shown = await incidents(served, range, { limit: 1 });
  await expect(page.getByTestId('total')).toHaveText(`${n(shown.total)} incidents`);
});

test('sorted by title, the mark is asked while the first page is still being read, once', async ({ page, served }) => {
  const rec = recorder(page);
  await openConsole(page, served, '#/incidents?sort=title');
  await expect(loadedRows(page).first()).toBeVisible();
  await rec.quiet();
  rec.reset();
  // The page's answer is held back: the mark must not wait for it.
  await page.route(`**${INCIDENT_SEARCH}`, async (route) => {
    const body = route.request().postDataJSON() as { limit?: number };
    if (body.limit !== 1) await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  const expected = await totalOf(served, [{ field: 'status', filter_type: 'intersection', value: ['new'] }]);
  await page.getByRole('button', { name: /^New/ }).click();
  await expect(page.getByTestId('total')).toHaveText(`${n(expected)} incidents`);
  await rec.quiet();
  const sent = rec.sent();
  const pageReq = sent.filter(isPage);
  const marks = sent.filter(isMark);
  expect(pageReq.length, tally(rec).all.join('\n')).toBe(1);
  expect(marks.length, tally(rec).all.join('\n')).toBe(1);
  expect(marks[0]!.body!.ordering).toEqual([{ field: 'created_at', direction: 'desc' }]);
  expect(marks[0]!.at, 'the mark is sent before the page answers').toBeLessThan(pageReq[0]!.answeredAt!);
});

test('a grouped view asks its groups and nothing else; a filter while grouped too; an opened group asks one page', async ({ page, served }) => {
  const rec = recorder(page);
  const groups = await api<{ items: { value: string | null; count: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'service_asset_id', filters: [] });
  const total = await totalOf(served);
  await openConsole(page, served, '#/incidents?by=service_asset_id');
  await expect(page.getByTestId('groups-total')).toHaveText(`${n(groups.items.length)} assets, ${n(total)} incidents`);
  // The header's total is the groups' sum, which is the API's total.
  await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`);
  await expect(page.getByTestId('group').first()).not.toContainText('…');
  await rec.quiet();
  let t = tally(rec);
  expect(t.groups, t.all.join('\n')).toBe(1);
  expect(t.pages.length, t.all.join('\n')).toBe(0);
  expect(t.stats).toBe(0);
  // The one row read is the opening's note of the newest incident (no rows in hand to read it from).
  expect(t.marks, t.all.join('\n')).toBe(1);
  expect(rec.sent().find(isMark)!.body!.filters).toEqual([]);
  expect(t.assetLabels, 'the names of every group in one request').toBe(1);

  rec.reset();
  const status = [{ field: 'status', filter_type: 'intersection', value: ['new'] }];
  const newGroups = await api<{ items: { value: string | null; count: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'service_asset_id', filters: status });
  const newTotal = await totalOf(served, status);
  await page.getByRole('button', { name: /^New/ }).click();
  await expect(page.getByTestId('groups-total')).toHaveText(`${n(newGroups.items.length)} assets, ${n(newTotal)} incidents`);
  await expect(page.getByTestId('total')).toHaveText(`${n(newTotal)} incidents`);
  await rec.quiet();
  t = tally(rec);
  expect(t.groups, t.all.join('\n')).toBe(1);
  expect(t.pages.length + t.stats + t.marks, t.all.join('\n')).toBe(0);

  rec.reset();
  const largest = [...newGroups.items].sort((a, b) => b.count - a.count)[0]!;
  const first = page.getByTestId('group').first();
  await expect(first.getByTestId('group-count')).toHaveText(n(largest.count));
  await first.locator('.group-toggle').click();
  await expect(first.getByRole('table').locator('tbody tr[data-loaded="true"]')).toHaveCount(Math.min(largest.count, 10));
  await rec.quiet();
  t = tally(rec);
  expect(t.pages.length, t.all.join('\n')).toBe(1);
  expect(t.pages[0]!.body!.offset).toBe(0);
  expect(t.groups + t.stats + t.marks).toBe(0);

  // A whole group selected counts the group's incidents, not the list's.
  await first.getByRole('button', { name: largest.count === 1 ? 'Select 1' : `Select all ${n(largest.count)}` }).click();
  await expect(page.getByTestId('selected-count')).toHaveText(`${n(largest.count)} selected`);
  await page.keyboard.press('Escape');

  // Back to the table: its rows, its aggregates and its mark are read now.
  rec.reset();
  await page.getByRole('combobox', { name: 'Group by' }).selectOption('');
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(page.getByTestId('total')).toHaveText(`${n(newTotal)} incidents`);
  await rec.quiet();
  t = tally(rec);
  expect(t.pages.length, t.all.join('\n')).toBe(1);
  expect(t.stats, t.all.join('\n')).toBe(1);
  expect(t.marks).toBe(0);
});

test('the labels of many records come in one request; many groups are drawn as they scroll into view', async ({ page, served }) => {
  test.setTimeout(120_000);
  const rec = recorder(page);
  // Assets enough that the grouped list needs more than 50 names at once (they used to come 50 first, then the rest).
  const before = await api<{ items: unknown[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'service_asset_id', filters: [] });
  const add = Math.max(0, 80 - before.items.length);
  if (add > 0) {
    const assets = await api<{ items: { id: string }[] }>(
      served,
      'POST',
      '/cruddy/v2/service_assets/mass_create',
      Array.from({ length: add }, (_, i) => ({ name: `probe-host-${String(i).padStart(3, '0')}`, type: 'Host' })),
    );
    expect(assets.items).toHaveLength(add);
    await api(
      served,
      'POST',
      '/cruddy/v2/service_asset_findings/mass_create',
      assets.items.map((a, i) => ({ title: `Probe ${i}`, status: 'new', risklevel: 5, service_asset_id: a.id })),
    );
  }
  const groups = await api<{ items: unknown[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'service_asset_id', filters: [] });
  expect(groups.items.length).toBeGreaterThan(50);
  expect(groups.items.length).toBeLessThanOrEqual(100);
  await openConsole(page, served, '#/incidents?by=service_asset_id');
  await expect(page.getByTestId('group')).toHaveCount(groups.items.length);
  await expect(page.getByTestId('group').last()).not.toContainText('…');
  await rec.quiet();
  const labels = rec.sent().filter(labelsOf('service_assets'));
  expect(labels.length, tally(rec).all.join('\n')).toBe(1);
  expect((labels[0]!.body!.filters as { value: string[] }[])[0]!.value.length).toBeGreaterThan(50);

  // More than 100 groups (one title each): the ones in view are drawn, the count and sum are the API's.
  const titles = Array.from({ length: 400 }, (_, i) => ({ title: `Windowed group ${String(i).padStart(4, '0')}`, status: 'new', risklevel: 4 }));
  await api(served, 'POST', '/cruddy/v2/service_asset_findings/mass_create', titles);
  const byTitle = await api<{ items: { value: string; count: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'title', filters: [] });
  const total = await totalOf(served);
  expect(byTitle.items.length).toBeGreaterThan(400);
  await page.getByRole('combobox', { name: 'Group by' }).selectOption('title');
  const list = page.locator('.groups');
  await expect(page.getByTestId('groups-total')).toContainText(`${n(byTitle.items.length)}`);
  await expect(list).toHaveAttribute('data-groups', String(byTitle.items.length));
  await expect(list).toHaveAttribute('data-sum', String(total));
  await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`);
  const drawn = await page.getByTestId('group').count();
  expect(drawn).toBeGreaterThan(5);
  expect(drawn).toBeLessThan(100);
  // The last group is reached by scrolling (titles come a page at a time, more as the list
  // scrolls), and says where it stands in the list.
  await expect(async () => {
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(page.locator(`[data-testid="group"][aria-posinset="${byTitle.items.length}"]`)).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  expect(await page.getByTestId('group').count()).toBeLessThan(100);
});
