// More of a triage shift in Chromium, each step checked through the HTTP API: assigning to a
// person and to a responsible group (one incident and a selection) with the quick filters
// "Unassigned" and "My group"; a bulk change cancelled while it runs.
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
  await expect(loadedRows(page).first()).toBeVisible();
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

test('a bulk status change cancelled while it runs: part changed with its status-change rows, the rest untouched, and the console says how many', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  // A server of its own, with a few thousand more new incidents: sent in chunks, the change runs for a while.
  const s = await startServe();
  try {
    const ADDED = 3000;
    for (let i = 0; i < ADDED; i += 1000) {
      const items = Array.from({ length: 1000 }, (_, k) => ({ title: `Массовая проверка ${i + k} — host-${(i + k) % 97}`, status: 'new', risklevel: 5 + ((i + k) % 40) / 10 }));
      const res = await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/mass_create', items);
      expect(res.total).toBe(1000);
    }
    const before = await incidents(s, [{ field: 'status', filter_type: 'intersection', value: ['new'] }]);
    expect(before.total).toBeGreaterThanOrEqual(ADDED);
    const ids = before.items.map((i) => i.id);
    const startedAt = new Date(Date.now() - 1000).toISOString();
    const verifyBefore = (await incidents(s, [{ field: 'status', filter_type: 'intersection', value: ['verify_close'] }])).total;

    await openConsole(page, s, '#/incidents?status=new');
    await expect(page.getByTestId('total')).toHaveText(`${before.total.toLocaleString('en-GB')} incidents`);
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('selected-count')).toHaveText(`${before.total.toLocaleString('en-GB')} selected`);
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
    // The selection holds what the incidents are now: a new change starts from there.
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(ids.length)} selected`);

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
  }
});
