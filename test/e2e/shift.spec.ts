// A triage shift in Chromium against the real server: numbers on screen equal the API's for
// every relative range (with a bounded number of requests), the live list and Refresh, a held
// change undone sends nothing, assign to me and "Mine", a message and a status change with a
// reason kept as messages linked to the change, grouping by finding type, a shared address
// restoring the view, and the not-found page.
import type { Page, Request } from '@playwright/test';
import { INCIDENT_STATUSES } from '../../src-shared/resources/fields';
import { LOCAL_USER_ID } from '../../src-shared/schemas/people';
import { emptySearch } from '../../src-shared/schemas/search';
import { microsToTs } from '../../src-shared/time';
import { api, expect, incidents, loadedRows, openConsole, snap, test, type Served } from './fixtures';

const STATS = '/console/v1/stats/incidents';

async function groupCounts(s: Served, field: string, filters: unknown[] = []): Promise<Map<string, number>> {
  const res = await api<{ items: { value: string | null; count: number }[] }>(s, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: field, filters });
  return new Map(res.items.map((i) => [String(i.value), i.count]));
}

function countRequests(page: Page, part: string): { n: () => number } {
  let n = 0;
  page.on('request', (r: Request) => {
    if (r.url().includes(part)) n++;
  });
  return { n: () => n };
}

const DAY = 86_400_000;
const RANGES: [string, string, number][] = [
  ['24h', 'Last 24 hours', DAY],
  ['7d', 'Last 7 days', 7 * DAY],
  ['30d', 'Last 30 days', 30 * DAY],
  ['90d', 'Last 90 days', 90 * DAY],
  ['1y', 'Last year', 365 * DAY],
];

test('each relative range: chips and charts equal the API counts for that range, asked once per choice', async ({ page, served }, testInfo) => {
  test.setTimeout(180_000);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(page.getByTestId('count-status-new')).not.toHaveText('…');
  const stats = countRequests(page, STATS);
  for (const [preset, label, span] of RANGES) {
    const before = stats.n();
    const answered = page.waitForResponse((r) => r.url().includes(STATS) && r.url().includes('created_at'));
    const t0 = Date.now();
    await page.getByRole('combobox', { name: 'Time range' }).selectOption({ label });
    const body = (await (await answered).json()) as { total: number; by_status: { status: string; count: number }[]; over_time: { count: number }[] };
    const from = microsToTs((t0 - span) * 1000);
    const expected = await groupCounts(served, 'status', [{ field: 'created_at', filter_type: 'range', value: [from, null] }]);
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    // The charts' aggregates and the chips: equal to the API's counts for the range.
    expect(body.total, preset).toBe(total);
    expect(body.over_time.reduce((a, o) => a + o.count, 0), preset).toBe(total);
    for (const s of INCIDENT_STATUSES) await expect(page.getByTestId(`count-status-${s}`), `${preset} ${s}`).toHaveText(String(expected.get(s) ?? 0));
    await expect(page.getByTestId('total')).toHaveText(`${total} incident${total === 1 ? '' : 's'}`);
    // One choice, one request for the aggregates (not a stream of them).
    await page.waitForTimeout(700);
    expect(stats.n() - before, preset).toBeLessThanOrEqual(2);
    if (preset === '30d') await snap(page, testInfo, 'range-30d');
  }
  expect(new URL(page.url()).hash).toContain('range=1y');
});

test('live list: a new incident is announced and shown on request; Refresh updates the total, chips and charts together', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await page.getByRole('combobox', { name: 'Refresh the list' }).selectOption({ label: 'Every 10 s' });
  const before = await incidents(served);
  await expect(page.getByTestId('total')).toHaveText(`${before.total} incidents`);
  const firstTitle = await loadedRows(page).first().locator('.cell-title').textContent();
  const created = await api<{ id: string; display_id: number }>(served, 'POST', '/cruddy/v2/service_asset_findings/create', {
    title: 'Live list probe — web-01',
    status: 'new',
    risklevel: 8.2,
    service_asset_id: before.items[0]!.service_asset_id,
    finding_id: before.items[0]!.finding_id,
  });
  // Announced, not inserted under the cursor.
  await expect(page.getByTestId('fresh')).toHaveText('1 new incident — show', { timeout: 25_000 });
  await expect(loadedRows(page).first().locator('.cell-title')).toHaveText(firstTitle!);
  await expect(page.getByTestId('total')).toHaveText(`${before.total} incidents`);
  await snap(page, testInfo, 'live-announced');
  await page.getByTestId('fresh').click();
  await expect(page.getByTestId('total')).toHaveText(`${before.total + 1} incidents`);
  await expect(loadedRows(page).first().locator('.cell-title')).toHaveText('Live list probe — web-01');
  const counts = await groupCounts(served, 'status');
  await expect(page.getByTestId('count-status-new')).toHaveText(String(counts.get('new')));

  // Refresh: the status changed by someone else shows in the rows, the chips and the total together.
  await page.getByRole('combobox', { name: 'Refresh the list' }).selectOption({ label: 'Manual refresh' });
  await api(served, 'PUT', '/data/public/api/v1/incidents/update/status', { id: created.id, status: 'closed' });
  const stats = page.waitForResponse((r) => r.url().includes(STATS));
  await page.keyboard.press('Shift+R');
  await stats;
  const after = await groupCounts(served, 'status');
  await expect(page.getByTestId('count-status-new')).toHaveText(String(after.get('new')));
  await expect(page.getByTestId('count-status-closed')).toHaveText(String(after.get('closed')));
  await expect(loadedRows(page).first().locator('[data-status]')).toHaveAttribute('data-status', 'closed');
});

test('a held change undone sends nothing: no status-change row, no acknowledged date', async ({ page, served }, testInfo) => {
  // The page's timers on a clock the test moves: time passes as usual, and jumps past the hold.
  await page.clock.install();
  await openConsole(page, served, '#/incidents?status=new');
  await expect(loadedRows(page).first()).toBeVisible();
  const target = (await incidents(served, [{ field: 'status', filter_type: 'intersection', value: ['new'] }])).items[0]!;
  const rows = async () =>
    (await api<{ total: number }>(served, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
      ...emptySearch(1),
      filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: target.id }],
    })).total;
  type Rec = { status: string; acknowledged_at: string | null; acknowledged_by: string | null; reopened_at: string | null; c_reopened_count: number; updated_at: string };
  const record = () => api<Rec>(served, 'GET', `/cruddy/v2/service_asset_findings/${target.id}`);
  const changesBefore = await rows();
  // As it is now (a change sent and reverted earlier would have acknowledged it): it must stay so.
  const before = await record();
  await page.keyboard.press('s');
  const dialog = page.getByRole('dialog', { name: 'Change the status of 1 incident' });
  await dialog.getByRole('radio', { name: /Assigned/ }).check();
  await dialog.getByRole('button', { name: /^Change status/ }).click();
  const held = page.getByTestId('held-change');
  await expect(held).toContainText(/Sending in \d s/);
  await expect(loadedRows(page).first().locator('[data-status]')).toHaveAttribute('data-status', 'assigned_customer');
  await snap(page, testInfo, 'held-change');
  await page.keyboard.press('u');
  await expect(held).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Undone: nothing was sent.' })).toBeVisible();
  await expect(loadedRows(page).first().locator('[data-status]')).toHaveAttribute('data-status', 'new');
  // Well past the hold: nothing sent, from the page or to the server.
  const writes: string[] = [];
  page.on('request', (r) => {
    if (/\/(mass_update|update|create)\b/.test(new URL(r.url()).pathname)) writes.push(`${r.method()} ${r.url()}`);
  });
  await page.clock.fastForward(6_500);
  expect(writes).toEqual([]);
  expect(await rows()).toBe(changesBefore);
  // The record untouched: same status, acknowledgement, reopening and last write.
  expect(await record()).toMatchObject({
    status: 'new',
    acknowledged_at: before.acknowledged_at,
    acknowledged_by: before.acknowledged_by,
    reopened_at: before.reopened_at,
    c_reopened_count: before.c_reopened_count,
    updated_at: before.updated_at,
  });
});

test('assign to me, then "Mine" shows my incidents; the owner has a name', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/incidents?owner=none');
  await expect(loadedRows(page).first()).toBeVisible();
  const first = (await incidents(served, [{ field: 'user_id', filter_type: 'exists', value: null }])).items[0]!;
  const me = await api<{ id: string; name: string; short_name: string }>(served, 'GET', '/console/v1/me');
  expect(me.id).toBe(LOCAL_USER_ID);
  await loadedRows(page).first().click();
  await page.keyboard.press('a');
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  await expect(page.getByTestId('change-result')).toContainText(`1 incident assigned to ${me.name}`);
  const rec = await api<{ user_id: string }>(served, 'GET', `/cruddy/v2/service_asset_findings/${first.id}`);
  expect(rec.user_id).toBe(LOCAL_USER_ID);
  await expect(page.getByTestId('detail-owner')).toHaveText(me.name);
  await page.keyboard.press('Escape');
  await page.getByTestId('quick-unassigned').click();
  await page.getByTestId('quick-mine').click();
  const mine = await incidents(served, [{ field: 'user_id', filter_type: 'equal', value: LOCAL_USER_ID }]);
  await expect(page.getByTestId('total')).toHaveText(`${mine.total} incidents`);
  await expect(page.getByTestId('quick-mine')).toHaveAttribute('aria-pressed', 'true');
  expect(new URL(page.url()).hash).toContain('owner=me');
  await expect(loadedRows(page).first()).toContainText(me.short_name);
  await snap(page, testInfo, 'mine');
});

test('a message and a status change with a reason: messages linked to the change, shown in the history', async ({ page, served }, testInfo) => {
  const target = (await incidents(served, [{ field: 'status', filter_type: 'intersection', value: ['working_customer'] }])).items[0]!;
  await openConsole(page, served, `#/incidents/${target.id}`);
  const detail = page.getByRole('complementary', { name: 'Incident' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(target.title);
  await detail.getByRole('tab', { name: /^Timeline/ }).click();
  await detail.getByRole('textbox', { name: 'Message' }).fill('Проверили журналы, активность подтверждена.');
  await detail.getByRole('button', { name: 'Send' }).click();
  await expect(detail.getByTestId('message').last()).toContainText('Проверили журналы, активность подтверждена.');
  await snap(page, testInfo, 'conversation');

  await detail.getByRole('button', { name: 'Status…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change the status of 1 incident' });
  await dialog.getByRole('radio', { name: /Closed/ }).check();
  await expect(dialog.getByRole('button', { name: /^Change status/ })).toBeDisabled();
  await dialog.getByRole('combobox', { name: 'Reason' }).selectOption({ label: 'False positive' });
  await dialog.getByRole('textbox', { name: 'Comment' }).fill('Плановое сканирование, согласовано.');
  await snap(page, testInfo, 'status-with-reason');
  await dialog.getByRole('button', { name: /^Change status/ }).click();
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  await expect(page.getByTestId('change-result')).toContainText('Status of 1 incident changed to Closed');

  const changes = await api<{ items: { id: string; status: string; user_id: string }[] }>(served, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
    ...emptySearch(10),
    filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: target.id }],
    ordering: [{ field: 'created_at', direction: 'desc' }],
  });
  const change = changes.items[0]!;
  expect(change.status).toBe('closed');
  expect(change.user_id).toBe(LOCAL_USER_ID);
  const msgs = await api<{ items: { subject: string; body: string; sender_id: string; service_asset_finding_status_change_id: string | null }[] }>(
    served,
    'POST',
    '/cruddy/v2/messages/search',
    { ...emptySearch(50), filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: target.id }], ordering: [{ field: 'created_at', direction: 'asc' }] },
  );
  const written = msgs.items.find((m) => m.body === 'Проверили журналы, активность подтверждена.')!;
  expect(written.sender_id).toBe(LOCAL_USER_ID);
  const reason = msgs.items.find((m) => m.service_asset_finding_status_change_id === change.id)!;
  expect(reason.subject).toBe('Closed: False positive');
  expect(reason.body).toBe('Плановое сканирование, согласовано.');
  await detail.getByRole('tab', { name: /^Timeline/ }).click();
  await expect(detail.getByTestId('history-note').first()).toContainText('Closed: False positive');
  await snap(page, testInfo, 'history-with-reason');
});

test('grouping by finding type: counts from the group operation, a group opens to its incidents', async ({ page, served }, testInfo) => {
  await openConsole(page, served, '#/incidents?status=new');
  await expect(loadedRows(page).first()).toBeVisible();
  await page.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Finding type' });
  const expected = await api<{ items: { value: string; count: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/group', {
    group_field: 'finding_id',
    filters: [{ field: 'status', filter_type: 'intersection', value: ['new'] }],
  });
  const groups = page.getByTestId('group');
  await expect(groups).toHaveCount(expected.items.length);
  await expect(groups.first().getByTestId('group-count')).toHaveText(String(expected.items[0]!.count));
  expect(new URL(page.url()).hash).toContain('by=finding_id');
  await groups.first().getByRole('button', { expanded: false }).click();
  await expect(groups.first().getByRole('table').locator('tbody tr[data-loaded="true"]')).toHaveCount(Math.min(expected.items[0]!.count, 10));
  await snap(page, testInfo, 'grouped');
});

test('a shared address restores the view; a bad address shows the not-found page with a way back', async ({ page, browser, served }, testInfo) => {
  const hash = '#/incidents?status=new,assigned_customer&risk=high,critical&sort=-risklevel&range=1y';
  await openConsole(page, served, hash);
  await expect(loadedRows(page).first()).toBeVisible();
  const url = page.url();
  const other = await browser.newPage();
  // Signed in first (the key taken from the address), then the shared address in the same tab.
  await openConsole(other, served);
  await other.goto(url);
  const expected = await incidents(served, [
    { field: 'status', filter_type: 'intersection', value: ['new', 'assigned_customer'] },
    { field: 'risklevel', filter_type: 'range', value: [7, null] },
  ]);
  await expect(other.getByTestId('total')).toHaveText(`${expected.total} incidents`);
  await expect(other.getByRole('button', { name: /^New/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(other.getByRole('button', { name: /^Critical/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(other.getByRole('columnheader', { name: /^Risk/ })).toHaveAttribute('aria-sort', 'descending');
  await expect(other.getByRole('combobox', { name: 'Time range' })).toHaveValue('1y');
  await other.close();

  for (const bad of ['#/nonexistent', '#/r/nonexistent', '#/incidents/%E0%A4%A']) {
    await page.goto(`${served.main}/${bad}`);
    await expect(page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
  }
  await snap(page, testInfo, 'not-found');
  await page.getByRole('link', { name: 'Go to incidents' }).click();
  await expect(loadedRows(page).first()).toBeVisible();
});
