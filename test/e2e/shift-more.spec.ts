// More of a triage shift in Chromium, each step checked through the HTTP API: assigning to a
// person and to a responsible group (one incident and a selection) with the quick filters
// "Unassigned" and "My group"; a bulk change cancelled while it runs; jumping to an incident by
// its number from the search box and the command palette; the live list's interval and pause;
// instances managed in the console (a local file, a remote server: added, renamed, tested,
// removed) and one added with the command line showing up by itself.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, incidents, loadedRows, openConsole, snap, startServe, test, type Served } from './fixtures';

const COLS = 'cols=display_id,title,status,risklevel,service_asset_id,user_id,group_id,created_at';
/** Cells of a row with COLS shown (the first cell is the checkbox). */
const cell = { display_id: 1, title: 2, status: 3, owner: 6, group: 7 } as const;

interface Person {
  id: string;
  name: string;
  short_name: string;
}
interface Group {
  id: string;
  name: string;
  user_ids: string[];
}
interface Owned {
  id: string;
  display_id: number;
  title: string;
  status: string;
  user_id: string | null;
  group_id: string | null;
}

async function people(s: Served): Promise<Person[]> {
  return (await api<{ items: Person[] }>(s, 'GET', '/console/v1/people')).items;
}

async function groups(s: Served): Promise<Group[]> {
  return (await api<{ items: Group[] }>(s, 'POST', '/cruddy/v2/responsible_groups/search', { ...emptySearch(1000), include_fields: ['id', 'name', 'user_ids'] })).items;
}

async function record(s: Served, id: string): Promise<Owned> {
  return api<Owned>(s, 'GET', `/cruddy/v2/service_asset_findings/${id}`);
}

/** Sends the held change at once and waits for the notice of its outcome. */
async function sendNow(page: Page, outcome: string | RegExp): Promise<void> {
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  await expect(page.getByTestId('change-result')).toContainText(outcome, { timeout: 30_000 });
}

test('assign to a person and to a group, one incident and a selection; "Unassigned" and "My group" give what the API gives', async ({ page, served }, testInfo) => {
  test.setTimeout(120_000);
  const [dir, teams, me] = await Promise.all([people(served), groups(served), api<Person>(served, 'GET', '/console/v1/me')]);
  const others = dir.filter((p) => p.id !== me.id);
  const [solo, many] = [others[1]!, others[3]!];
  await openConsole(page, served, `#/incidents?${COLS}`);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 20_000 });
  const newest = (await incidents(served)).items.slice(0, 4) as unknown as Owned[];
  // Groups none of them has now, so the change can be seen.
  const free = teams.filter((g) => !newest.some((n) => n.group_id === g.id));
  const [soloGroup, manyGroup] = [free[0]!, free[1]!];

  // One incident: a person, then a group, from the open incident.
  await loadedRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Incident' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(newest[0]!.title);
  await page.keyboard.press('Shift+A');
  let dialog = page.getByRole('dialog', { name: 'Assign 1 incident' });
  await dialog.getByRole('searchbox', { name: 'Find a person or group' }).fill(solo.name.split(' ')[0]!);
  await dialog.getByRole('radio', { name: new RegExp(solo.name) }).check();
  await snap(page, testInfo, 'assign-person');
  await dialog.getByRole('button', { name: 'Assign 1' }).click();
  await sendNow(page, `1 incident assigned to ${solo.name}.`);
  expect((await record(served, newest[0]!.id)).user_id).toBe(solo.id);
  await expect(loadedRows(page).first().locator('td').nth(cell.owner)).toHaveText(solo.short_name);
  await expect(detail.getByTestId('detail-owner')).toHaveText(solo.name);

  await page.keyboard.press('Shift+A');
  dialog = page.getByRole('dialog', { name: 'Assign 1 incident' });
  await dialog.getByRole('radio', { name: new RegExp(soloGroup.name) }).check();
  await dialog.getByRole('button', { name: 'Assign 1' }).click();
  await sendNow(page, `1 incident given to ${soloGroup.name}.`);
  const one = await record(served, newest[0]!.id);
  expect(one.group_id).toBe(soloGroup.id);
  // The owner stays: a group is given beside the person, not instead.
  expect(one.user_id).toBe(solo.id);
  await expect(loadedRows(page).first().locator('td').nth(cell.group)).toHaveText(soloGroup.name);
  await expect(detail).toContainText(soloGroup.name);
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);

  // A selection of three: a person, then a group.
  for (let i = 1; i <= 3; i++) await loadedRows(page).nth(i).getByRole('checkbox').check();
  await expect(page.getByTestId('selected-count')).toHaveText('3 selected');
  await page.getByRole('button', { name: 'Assign…' }).click();
  dialog = page.getByRole('dialog', { name: 'Assign 3 incidents' });
  await dialog.getByRole('radio', { name: new RegExp(many.name) }).check();
  await dialog.getByRole('button', { name: 'Assign 3' }).click();
  await sendNow(page, `3 incidents assigned to ${many.name}.`);
  await page.keyboard.press('Shift+A');
  dialog = page.getByRole('dialog', { name: 'Assign 3 incidents' });
  await dialog.getByRole('radio', { name: new RegExp(manyGroup.name) }).check();
  await snap(page, testInfo, 'assign-group-selection');
  await dialog.getByRole('button', { name: 'Assign 3' }).click();
  await sendNow(page, `3 incidents given to ${manyGroup.name}.`);
  for (const n of newest.slice(1)) expect(await record(served, n.id)).toMatchObject({ user_id: many.id, group_id: manyGroup.id });
  for (let i = 1; i <= 3; i++) {
    await expect(loadedRows(page).nth(i).locator('td').nth(cell.owner)).toHaveText(many.short_name);
    await expect(loadedRows(page).nth(i).locator('td').nth(cell.group)).toHaveText(manyGroup.name);
  }
  await snap(page, testInfo, 'assigned-selection');
  await page.keyboard.press('Escape');

  // "Unassigned": what the API counts with the owner missing, and only such rows.
  await page.getByTestId('quick-unassigned').click();
  const unassigned = await incidents(served, [{ field: 'user_id', filter_type: 'exists', value: null }]);
  await expect(page.getByTestId('total')).toHaveText(`${unassigned.total} incidents`);
  await expect(loadedRows(page).first().locator('td').nth(cell.display_id)).toHaveText(String(unassigned.items[0]!.display_id));
  expect(new Set(await loadedRows(page).locator(`td:nth-child(${cell.owner + 1})`).allTextContents())).toEqual(new Set(['Nobody']));
  await page.getByTestId('quick-unassigned').click();

  // "My group": the incidents of the groups the local analyst belongs to.
  const mine = teams.filter((g) => g.user_ids.includes(me.id));
  expect(mine.length).toBeGreaterThan(0);
  await page.getByTestId('quick-my-group').click();
  await expect(page.getByTestId('quick-my-group')).toHaveAttribute('aria-pressed', 'true');
  const ofMine = await incidents(served, [{ field: 'group_id', filter_type: 'intersection', value: mine.map((g) => g.id) }]);
  await expect(page.getByTestId('total')).toHaveText(`${ofMine.total} incidents`);
  await expect(loadedRows(page).first().locator('td').nth(cell.display_id)).toHaveText(String(ofMine.items[0]!.display_id));
  const names = new Set(mine.map((g) => g.name));
  for (const shown of await loadedRows(page).locator(`td:nth-child(${cell.group + 1})`).allTextContents()) expect(names.has(shown)).toBe(true);
  // Both at once: the intersection, as the API gives it.
  await page.getByTestId('quick-unassigned').click();
  const both = await incidents(served, [
    { field: 'user_id', filter_type: 'exists', value: null },
    { field: 'group_id', filter_type: 'intersection', value: mine.map((g) => g.id) },
  ]);
  await expect(page.getByTestId('total')).toHaveText(`${both.total} incident${both.total === 1 ? '' : 's'}`);
  expect(new URL(page.url()).hash).toContain('owner=none');
  await snap(page, testInfo, 'unassigned-my-group');
});

test('on a remote instance a bulk status change cancelled while its pages are sent: part changed with its status-change rows, the rest untouched, and the console says how many', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  // A console of its own and a remote platform (another server) with a few thousand more new
  // incidents: a remote instance is changed page by page (a local one as one job of the server,
  // bulk-query.spec.ts), so a cancel stops between pages.
  const local = await startServe();
  const s = await startServe();
  try {
    const inst = await api<{ id: string }>(local, 'POST', '/console/v1/instances', { kind: 'remote', name: 'ЦОД Москва', url: s.main, api_key: s.apiKey });
    const ADDED = 3000;
    const already = (await incidents(s, [{ field: 'status', filter_type: 'intersection', value: ['new'] }], { limit: 1 })).total;
    for (let i = 0; i < ADDED; i += 1000) {
      const items = Array.from({ length: 1000 }, (_, k) => ({ title: `Массовая проверка ${i + k} — host-${(i + k) % 97}`, status: 'new', risklevel: 5 + ((i + k) % 40) / 10 }));
      const res = await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/mass_create', items);
      expect(res.total).toBe(1000);
    }
    const before = await incidents(s, [{ field: 'status', filter_type: 'intersection', value: ['new'] }]);
    expect(before.total).toBe(already + ADDED);
    const ids = before.items.map((i) => i.id);
    // After the incidents were created (their own first status rows are older), on the server's clock (the same machine).
    await new Promise((r) => setTimeout(r, 20));
    const startedAt = new Date().toISOString();
    const verifyBefore = (await incidents(s, [{ field: 'status', filter_type: 'intersection', value: ['verify_close'] }])).total;

    await openConsole(page, local, `#/incidents?status=new&instance=${inst.id}`);
    await expect(page.getByTestId('total')).toHaveText(`${before.total.toLocaleString('en-GB')} incidents`, { timeout: 60_000 });
    // The list of a remote instance settles first (its clock is read; the list may be read again).
    await page.waitForLoadState('networkidle');
    await expect(async () => {
      await page.getByTestId('incidents-scroll').focus();
      await page.keyboard.press('Shift+X');
      await expect(page.getByTestId('selected-count')).toHaveText(`${before.total.toLocaleString('en-GB')} selected`, { timeout: 2000 });
    }).toPass({ timeout: 30_000 });
    await page.keyboard.press('s');
    const dialog = page.getByRole('dialog', { name: /^Change the status of/ });
    await dialog.getByRole('radio', { name: /Awaiting verification/ }).check();
    await dialog.getByRole('button', { name: /^Change status of/ }).click();
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    // Cancelled once a few chunks went through, well before the end.
    const progress = page.locator('.notice.is-progress');
    await expect(progress).toContainText(/Changing status: [3-9]\d\d of/, { timeout: 30_000 });
    await snap(page, testInfo, 'bulk-running');
    await progress.getByRole('button', { name: 'Cancel' }).click();
    const result = page.getByTestId('change-result');
    await expect(result).toContainText('not sent (cancelled)', { timeout: 30_000 });
    await expect(progress).toHaveCount(0);
    await snap(page, testInfo, 'bulk-cancelled');

    // What the API holds: each incident either changed (with exactly one new status-change row) or untouched.
    const now = new Map((await incidents(s, [{ field: 'id', filter_type: 'intersection', value: ids }])).items.map((i) => [i.id, i.status]));
    const changed = ids.filter((id) => now.get(id) === 'verify_close');
    const untouched = ids.filter((id) => now.get(id) === 'new');
    expect(changed.length + untouched.length).toBe(ids.length);
    expect(changed.length).toBeGreaterThan(0);
    expect(untouched.length).toBeGreaterThan(0);
    const rows = await api<{ items: { service_asset_finding_id: string; previous_status: string }[]; total: number }>(s, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
      ...emptySearch(10_000),
      filters: [
        { field: 'status', filter_type: 'equal', value: 'verify_close' },
        { field: 'created_at', filter_type: 'range', value: [startedAt, null] },
      ],
    });
    expect(rows.total).toBe(changed.length);
    expect(new Set(rows.items.map((r) => r.service_asset_finding_id))).toEqual(new Set(changed));
    for (const r of rows.items) expect(r.previous_status).toBe('new');

    // The console says how many were changed and how many were not sent; the list and chips agree.
    const n = (x: number) => x.toLocaleString('en-GB');
    await expect(result).toContainText(`Status of ${n(changed.length)} incidents changed to Awaiting verification.`);
    await expect(result).toContainText(`${n(untouched.length)} not sent (cancelled).`);
    await expect(page.getByTestId('total')).toHaveText(`${n(untouched.length)} incidents`);
    await expect(page.getByTestId('count-status-verify_close')).toHaveText(n(verifyBefore + changed.length));
    // The whole query stays selected: what it matches now, the incidents not changed.
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(untouched.length)} selected`);

    // Revert: only the incidents that were changed go back (each as a new change).
    await result.getByRole('button', { name: 'Revert' }).click();
    await expect(result).toContainText(`Reverted for ${n(changed.length)} incidents`, { timeout: 60_000 });
    const back = await incidents(s, [{ field: 'id', filter_type: 'intersection', value: ids }]);
    expect(back.items.every((i) => i.status === 'new')).toBe(true);
    const reverts = await api<{ items: { service_asset_finding_id: string }[] }>(s, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
      ...emptySearch(10_000),
      include_fields: ['service_asset_finding_id'],
      filters: [
        { field: 'status', filter_type: 'equal', value: 'new' },
        { field: 'created_at', filter_type: 'range', value: [startedAt, null] },
      ],
    });
    expect(new Set(reverts.items.map((r) => r.service_asset_finding_id))).toEqual(new Set(changed));
  } finally {
    await s.stop();
    await local.stop();
  }
});

test('jump to an incident by its number from the search box and the palette; an unknown number is not found; the palette ranks exact words first and runs Undo', async ({ page, served }, testInfo) => {
  test.setTimeout(120_000);
  const all = await incidents(served);
  const target = all.items.find((i) => i.display_id === 398)!;
  const other = all.items.find((i) => i.display_id === 397)!;
  expect(target && other).toBeTruthy();
  const missing = Math.max(...all.items.map((i) => i.display_id)) + 1000;
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 20_000 });
  const detail = page.getByRole('complementary', { name: 'Incident' });

  // The search box: `#398` and Enter opens it (the text is not searched for).
  const search = page.getByRole('searchbox', { name: 'Search incidents' });
  await search.fill('#398');
  await search.press('Enter');
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(target.title);
  expect(new URL(page.url()).hash).toMatch(new RegExp(`^#/incidents/${target.id}`));
  await expect(search).toHaveValue('');
  await expect(page.getByTestId('total')).toHaveText(`${all.total} incidents`);
  await search.fill(`#${missing}`);
  await search.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: `There is no incident #${missing} here.` })).toBeVisible();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(target.title);
  await expect(page.getByTestId('total')).toHaveText(`${all.total} incidents`);
  await snap(page, testInfo, 'jump-not-found');
  await search.fill('');
  await search.press('Escape');

  // The palette: the number typed offers to open that incident.
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await page.keyboard.press('Control+k');
  await palette.getByRole('combobox').fill('#397');
  await expect(palette.getByRole('option').first()).toHaveText(/Open incident #397/);
  await snap(page, testInfo, 'palette-number');
  await page.keyboard.press('Enter');
  await expect(palette).toHaveCount(0);
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(other.title);
  expect(new URL(page.url()).hash).toMatch(new RegExp(`^#/incidents/${other.id}`));
  await page.keyboard.press('Control+k');
  await palette.getByRole('combobox').fill(String(missing));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: `There is no incident #${missing} here.` }).last()).toBeVisible();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(other.title);

  // Ranking: every entry holding the exact word comes before those that only start with it,
  // whether it can run now or not.
  await page.keyboard.press('Control+k');
  await palette.getByRole('combobox').fill('incident');
  const order = async () => {
    const texts = await palette.getByRole('option').locator('span:first-child').allTextContents();
    const exact = texts.map((x) => /\bincident\b/i.test(x));
    return { texts, exact: exact.filter(Boolean).length, ranked: exact.indexOf(false) > exact.lastIndexOf(true) };
  };
  await expect.poll(async () => (await order()).exact).toBeGreaterThan(2);
  const ranked = await order();
  expect(ranked.ranked, ranked.texts.join(' | ')).toBe(true);
  await palette.getByRole('combobox').fill('open');
  await expect(palette.getByRole('option').first().locator('span').first()).toHaveText('Open the incident');
  await snap(page, testInfo, 'palette-ranked');

  // Undo is among the actions: a held change taken back from the palette sends nothing.
  await page.keyboard.press('Escape');
  const before = await api<{ user_id: string | null; updated_at: string }>(served, 'GET', `/cruddy/v2/service_asset_findings/${other.id}`);
  await page.keyboard.press('Shift+A');
  const dialog = page.getByRole('dialog', { name: 'Assign 1 incident' });
  await dialog.getByRole('radio', { name: 'Nobody' }).check();
  await dialog.getByRole('button', { name: 'Assign 1' }).click();
  await expect(page.getByTestId('held-change')).toBeVisible();
  await page.keyboard.press('Control+k');
  await palette.getByRole('combobox').fill('undo');
  await expect(palette.getByRole('option').first()).toHaveText(/^Undo the last change/);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Undone: nothing was sent.' })).toBeVisible();
  await expect(page.getByTestId('held-change')).toHaveCount(0);
  expect(await api<{ user_id: string | null; updated_at: string }>(served, 'GET', `/cruddy/v2/service_asset_findings/${other.id}`)).toEqual(
    expect.objectContaining({ user_id: before.user_id, updated_at: before.updated_at }),
  );
});

test('live list: the interval set and paused; nothing is announced while paused, the new incident after resuming; the selection and the open incident stay', async ({ page, served }, testInfo) => {
  test.setTimeout(120_000);
  // The page's timers on a clock the test moves: time passes as usual, and jumps where it waits.
  await page.clock.install();
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 20_000 });
  const interval = page.getByRole('combobox', { name: 'Refresh the list' });
  await interval.selectOption({ label: 'Every 10 s' });
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Resume', exact: true })).toHaveAttribute('aria-pressed', 'true');
  // Kept for the next visit.
  await page.reload();
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 20_000 });
  await expect(interval).toHaveValue('10000');
  await expect(page.getByRole('button', { name: 'Resume', exact: true })).toBeVisible();

  const before = await incidents(served);
  await expect(page.getByTestId('total')).toHaveText(`${before.total} incidents`);
  // One incident open, another selected.
  const opened = before.items[0]!;
  const chosen = before.items[2]!;
  await loadedRows(page).nth(2).getByRole('checkbox').check();
  await loadedRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Incident' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(opened.title);
  await expect(page.getByTestId('selected-count')).toHaveText('1 selected');

  // The checks for new incidents the live list makes (a one-row search for the newest).
  let checks = 0;
  page.on('request', (r) => {
    if (r.url().includes('/service_asset_findings/search') && (r.postData() ?? '').includes('"include_fields":["id","created_at"]')) checks++;
  });
  const created = await api<{ id: string }>(served, 'POST', '/cruddy/v2/service_asset_findings/create', {
    title: 'Пауза живого списка — web-02',
    status: 'new',
    risklevel: 7.7,
    service_asset_id: before.items[0]!.service_asset_id,
    finding_id: before.items[0]!.finding_id,
  });
  // Well past the interval while paused: not asked, not announced.
  await page.clock.fastForward(12_000);
  expect(checks).toBe(0);
  await expect(page.getByTestId('fresh')).toHaveCount(0);
  await expect(page.getByTestId('total')).toHaveText(`${before.total} incidents`);

  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await page.clock.fastForward(10_000);
  await expect(page.getByTestId('fresh')).toHaveText('1 new incident — show', { timeout: 25_000 });
  expect(checks).toBeGreaterThan(0);
  await expect(loadedRows(page).first().locator('.cell-title')).toHaveText(opened.title);
  await snap(page, testInfo, 'live-resumed-announced');
  await page.getByTestId('fresh').click();
  await expect(page.getByTestId('total')).toHaveText(`${before.total + 1} incidents`);
  await expect(loadedRows(page).first().locator('.cell-title')).toHaveText('Пауза живого списка — web-02');
  // The selection and the open incident survived the refresh.
  await expect(page.getByTestId('selected-count')).toHaveText('1 selected');
  await expect(loadedRows(page).nth(3).locator('.cell-title')).toHaveText(chosen.title);
  await expect(loadedRows(page).nth(3).getByRole('checkbox')).toBeChecked();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(opened.title);
  expect(new URL(page.url()).hash).toMatch(new RegExp(`^#/incidents/${opened.id}`));
  await loadedRows(page).first().click();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText('Пауза живого списка — web-02');
  expect(new URL(page.url()).hash).toMatch(new RegExp(`^#/incidents/${created.id}`));
  await snap(page, testInfo, 'live-shown');
});

interface InstanceRow {
  id: string;
  name: string;
  kind: string;
  db_file: string | null;
  remote_url: string | null;
  has_api_key: boolean;
}

test('instances in the console: a local file and a remote server added, renamed, tested and removed; one added with the command line shows up by itself', async ({ page, served }, testInfo) => {
  test.setTimeout(180_000);
  const remote = await startServe();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-e2e-instances-'));
  const list = () => api<InstanceRow[]>(served, 'GET', '/console/v1/instances');
  const byName = async (name: string) => (await list()).find((i) => i.name === name);
  try {
    // The other server's data tells itself apart from the main one's (both start from the same demo data).
    await api(remote, 'POST', '/cruddy/v2/service_asset_findings/create', { title: 'Только на удалённой площадке — msk-dc-01', status: 'new', risklevel: 9.1 });
    await openConsole(page, served);
    await expect(loadedRows(page).first()).toBeVisible({ timeout: 20_000 });
    // Set on the page: a reload would drop it.
    await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));
    const switcher = page.getByRole('button', { name: /^Instance: / });
    const menu = page.getByRole('menu', { name: 'Instances' });
    await switcher.click();
    await menu.getByRole('menuitem', { name: 'Manage instances…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Instances' });
    const form = dialog.getByRole('form', { name: 'Add an instance' });
    const row = (name: string) => dialog.getByTestId('instance-row').filter({ has: page.getByRole('textbox', { name: `Name of ${name}` }) });

    // A local database file.
    const file = path.join(dir, 'samara.sqlite');
    await form.getByRole('radio', { name: 'local' }).check();
    await form.getByRole('textbox', { name: 'Name' }).fill('Филиал Самара');
    await form.getByRole('textbox', { name: 'Database file' }).fill(file);
    await form.getByRole('button', { name: 'Add' }).click();
    await expect(row('Филиал Самара')).toBeVisible();
    expect(await byName('Филиал Самара')).toMatchObject({ kind: 'local', db_file: file });

    // A remote platform: another server, its address and key.
    await form.getByRole('radio', { name: 'remote' }).check();
    await form.getByRole('textbox', { name: 'Name' }).fill('ЦОД Москва');
    await form.getByRole('textbox', { name: 'Address' }).fill(remote.main);
    await form.getByLabel('API key').fill(remote.apiKey);
    await form.getByRole('button', { name: 'Add' }).click();
    await expect(row('ЦОД Москва')).toBeVisible();
    const added = (await byName('ЦОД Москва'))!;
    expect(added).toMatchObject({ kind: 'remote', remote_url: remote.main, has_api_key: true });
    // The key is never answered back.
    expect(JSON.stringify(await list())).not.toContain(remote.apiKey);

    // Test: a real call to each.
    const tests: string[] = [];
    page.on('request', (r) => {
      const m = /\/console\/v1\/instances\/([^/]+)\/test$/.exec(new URL(r.url()).pathname);
      if (m) tests.push(m[1]!);
    });
    await row('ЦОД Москва').getByRole('button', { name: 'Test' }).click();
    await expect(row('ЦОД Москва').getByRole('img', { name: /^answering, \d+ ms/ })).toBeVisible();
    await row('Филиал Самара').getByRole('button', { name: 'Test' }).click();
    await expect(row('Филиал Самара').getByRole('img', { name: /^answering, \d+ ms/ })).toBeVisible();
    expect(tests).toContain(added.id);
    await snap(page, testInfo, 'instances-added');

    // Rename the remote one.
    await row('ЦОД Москва').getByRole('textbox', { name: 'Name of ЦОД Москва' }).fill('ЦОД Москва — резерв');
    await row('ЦОД Москва').getByRole('button', { name: 'Rename' }).click();
    await expect(row('ЦОД Москва — резерв')).toBeVisible();
    expect((await list()).find((i) => i.id === added.id)!.name).toBe('ЦОД Москва — резерв');
    await dialog.getByRole('button', { name: 'Done' }).click();

    // The switcher: both, answering; the remote's incidents are the other server's.
    await switcher.click();
    await expect(menu.getByRole('menuitemradio', { name: /ЦОД Москва — резерв/ })).toContainText(/answering, \d+ ms/);
    await expect(menu.getByRole('menuitemradio', { name: /Филиал Самара/ })).toContainText(/answering/);
    await menu.getByRole('menuitemradio', { name: /ЦОД Москва — резерв/ }).click();
    await expect(page.getByRole('button', { name: 'Instance: ЦОД Москва — резерв' })).toBeVisible();
    const there = await incidents(remote);
    await expect(page.getByTestId('total')).toHaveText(`${there.total} incidents`);
    await expect(loadedRows(page).first().locator('.cell-title')).toHaveText('Только на удалённой площадке — msk-dc-01');

    // The remote stops answering: "Check again" finds it so.
    await remote.stop();
    const before = tests.length;
    await switcher.click();
    await menu.getByRole('menuitem', { name: 'Check again' }).click();
    await expect(menu.getByRole('menuitemradio', { name: /ЦОД Москва — резерв/ })).toContainText('not answering');
    await expect(menu.getByRole('menuitemradio', { name: /Филиал Самара/ })).toContainText(/answering, \d+ ms/);
    expect(tests.length - before).toBe((await list()).length);
    await snap(page, testInfo, 'instances-check-again');
    await page.keyboard.press('Escape');

    // Remove both: the switcher goes back to the main instance; the local file is kept.
    await switcher.click();
    await menu.getByRole('menuitem', { name: 'Manage instances…' }).click();
    for (const name of ['ЦОД Москва — резерв', 'Филиал Самара']) {
      await row(name).getByRole('button', { name: 'Remove', exact: true }).click();
      await row(name).getByRole('button', { name: 'Remove it (the file is kept)' }).click();
      await expect(row(name)).toHaveCount(0, { timeout: 15_000 });
      expect(await byName(name)).toBeUndefined();
    }
    expect(fs.existsSync(file)).toBe(true);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByRole('button', { name: 'Instance: Main' })).toBeVisible();

    // Added with the command line while the console is open: it shows up without a reload.
    const cli = await promisify(execFile)(process.execPath, ['out/main/cli.js', 'instance', 'add', '--name', 'Филиал Тверь', '--local', path.join(dir, 'tver.sqlite'), '--create', '--db', served.db]);
    const id = cli.stdout.trim();
    expect((await list()).find((i) => i.id === id)?.name).toBe('Филиал Тверь');
    await switcher.click();
    await expect(menu.getByRole('menuitemradio', { name: /Филиал Тверь/ })).toBeVisible({ timeout: 15_000 });
    await expect(menu.getByRole('menuitemradio', { name: /Филиал Тверь/ })).toContainText(/answering/);
    await menu.getByRole('menuitemradio', { name: /Филиал Тверь/ }).click();
    await expect(page.getByTestId('total')).toHaveText('0 incidents');
    expect(await page.evaluate(() => (window as unknown as { stillTheSamePage?: boolean }).stillTheSamePage)).toBe(true);
    await snap(page, testInfo, 'instance-from-cli');
    // Removed with the command line: gone from the switcher, back on the main instance.
    await promisify(execFile)(process.execPath, ['out/main/cli.js', 'instance', 'remove', id, '--db', served.db]);
    await expect(page.getByRole('button', { name: 'Instance: Main' })).toBeVisible({ timeout: 15_000 });
  } finally {
    await remote.stop();
    for (const i of await list()) if (i.kind !== 'main') await api(served, 'DELETE', `/console/v1/instances/${i.id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const looks = [
  { theme: 'light', locale: 'en-GB', palette: 'Command palette', open: /Open incident #398/, notFound: 'There is no incident #9999 here.' },
  { theme: 'dark', locale: 'en-GB', palette: 'Command palette', open: /Open incident #398/, notFound: 'There is no incident #9999 here.' },
  { theme: 'light', locale: 'ru-RU', palette: 'Палитра команд', open: /Открыть инцидент №398/, notFound: 'Здесь нет инцидента №9999.' },
  { theme: 'dark', locale: 'ru-RU', palette: 'Палитра команд', open: /Открыть инцидент №398/, notFound: 'Здесь нет инцидента №9999.' },
] as const;

for (const c of looks) {
  test.describe(`shift more look, ${c.theme}, ${c.locale}`, () => {
    test.use({ colorScheme: c.theme, locale: c.locale, viewport: { width: 1440, height: 900 } });

    test('the palette offering an incident by number, the number not found', async ({ page, served }, testInfo) => {
      // A bulk change's confirmation and progress in the four looks: bulk-query.spec.ts.
      const tag = `${c.theme}-${c.locale}`;
      await openConsole(page, served);
      await expect(loadedRows(page, c.locale === 'ru-RU' ? 'Инциденты' : 'Incidents').first()).toBeVisible({ timeout: 20_000 });
      await page.keyboard.press('Control+k');
      const palette = page.getByRole('dialog', { name: c.palette });
      await palette.getByRole('combobox').fill('#398');
      await expect(palette.getByRole('option').first()).toHaveText(c.open);
      await snap(page, testInfo, `palette-number-${tag}`);
      await page.keyboard.press('Escape');
      const search = page.locator('[data-search="incidents"]');
      await search.fill('#9999');
      await search.press('Enter');
      await expect(page.getByRole('alert').filter({ hasText: c.notFound })).toBeVisible();
      await snap(page, testInfo, `jump-not-found-${tag}`);
      await search.fill('');
      await search.press('Escape');
    });
  });
}
