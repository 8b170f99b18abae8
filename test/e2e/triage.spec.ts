// Incident triage in Chromium: filter, sort, open, change status and risk for one incident or a
// selection (from the keyboard, the row menu and the command palette), with the effect checked
// through the API, and the undo.
import type { Page } from '@playwright/test';
import { INCIDENT_STATUSES } from '../../src-shared/resources/fields';
import { api, expect, incidents, loadedRows, openConsole, test, type Incident, type Served, snap } from './fixtures';

/** The requests that send a change: mass_update, and a status with its reason in one operation. */
const SENDS = /\/(service_asset_findings\/mass_update|console\/v1\/incidents\/status)(\?|$)/;

const blur = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

async function statusCounts(s: Served): Promise<Map<string, number>> {
  const res = await api<{ items: { value: string; count: number }[] }>(s, 'POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'status' });
  return new Map(res.items.map((i) => [i.value, i.count]));
}

async function statusesOf(s: Served, ids: string[]): Promise<Map<string, Incident>> {
  const res = await incidents(s, [{ field: 'id', filter_type: 'intersection', value: ids }]);
  return new Map(res.items.map((i) => [i.id, i]));
}

test('filter by status, sort by risk, open an incident: the table shows what the API answers', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  // Counts by status, one per chip.
  const counts = await statusCounts(served);
  for (const s of INCIDENT_STATUSES) await expect(page.getByTestId(`count-status-${s}`)).toHaveText(String(counts.get(s) ?? 0));

  const statuses = page.getByRole('group', { name: 'Statuses' });
  await statuses.getByRole('button', { name: /^Information requested/ }).click();
  const expected = await incidents(served, [{ field: 'status', filter_type: 'intersection', value: ['feedback_required'] }]);
  await expect(page.getByTestId('total')).toHaveText(`${expected.total} incidents`);
  await expect(loadedRows(page)).toHaveCount(expected.total);
  expect(await loadedRows(page).locator('[data-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual(
    expected.items.map(() => 'feedback_required'),
  );

  // Sort by risk: the server's order (risk level descending first).
  await page.getByRole('columnheader', { name: 'Risk' }).getByRole('button').click();
  await expect(page.getByRole('columnheader', { name: 'Risk' })).toHaveAttribute('aria-sort', 'descending');
  const byRisk = await incidents(served, [{ field: 'status', filter_type: 'intersection', value: ['feedback_required'] }], {
    ordering: [{ field: 'risklevel', direction: 'desc' }],
  });
  for (let i = 0; i < 3; i++) await expect(loadedRows(page).nth(i).locator('td').nth(1)).toHaveText(String(byRisk.items[i]!.display_id));
  // Once more: ascending.
  await page.getByRole('columnheader', { name: 'Risk' }).getByRole('button').click();
  await expect(page.getByRole('columnheader', { name: 'Risk' })).toHaveAttribute('aria-sort', 'ascending');
  const asc = [...byRisk.items].sort((a, b) => a.risklevel - b.risklevel);
  await expect(loadedRows(page).first().locator('.risk-level')).toHaveText(asc[0]!.risklevel.toFixed(1));

  // Open the first row: the detail panel, the address, the incident's relations.
  const first = asc[0]!;
  await loadedRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Incident' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(first.title);
  // The address keeps the view (filter and order) with the open incident.
  expect(new URL(page.url()).hash).toBe(`#/incidents/${first.id}?status=feedback_required&sort=risklevel`);
  const full = await api<{ occurrences: unknown[]; status_changes: unknown[]; service_asset: { name: string } | null }>(
    served,
    'GET',
    `/cruddy/v2/service_asset_findings/${first.id}?relations=occurrences,status_changes,service_asset`,
  );
  if (full.service_asset) await expect(detail).toContainText(full.service_asset.name);
  await detail.getByRole('tab', { name: /^Occurrences/ }).click();
  await expect(detail.getByRole('table', { name: 'Occurrences' }).locator('tbody tr')).toHaveCount(Math.max(1, full.occurrences.length));
  await detail.getByRole('tab', { name: /^Timeline/ }).click();
  await expect(detail.getByTestId('history-item')).toHaveCount(full.status_changes.length);
  await snap(page, testInfo, 'filtered-sorted-detail');
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);
  expect(new URL(page.url()).hash).toBe('#/incidents?status=feedback_required&sort=risklevel');
});

test('keyboard triage: j/k move, x selects, s changes the status of the selection, u undoes it', async ({ page, served }) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const newest = (await incidents(served)).items;
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await expect(page.locator('tr.is-focused')).toHaveAttribute('data-index', '1');
  await page.keyboard.press('x');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await expect(page.getByTestId('selected-count')).toHaveText('2 selected');
  // A few rows selected: the header's checkbox is neither checked nor clear.
  const headCheck = page.getByRole('table', { name: 'Incidents' }).getByRole('checkbox', { name: 'Select all matching' });
  await expect(headCheck).toHaveJSProperty('indeterminate', true);
  await expect(headCheck).not.toBeChecked();
  const chosen = [newest[1]!, newest[3]!];
  const target = INCIDENT_STATUSES.find((s) => chosen.every((c) => c.status !== s))!;
  await page.keyboard.press('s');
  const dialog = page.getByRole('dialog', { name: 'Change the status of 2 incidents' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio', { name: new RegExp(`^${INCIDENT_STATUSES.indexOf(target) + 1}`) }).check();
  await dialog.getByRole('button', { name: 'Change status of 2' }).click();
  // Held first (the rows show it at once), sent when the countdown ends.
  await expect(page.getByTestId('held-change')).toContainText('Status of 2 incidents →');
  await expect(loadedRows(page).nth(1).locator('[data-status]')).toHaveAttribute('data-status', target);
  await expect(page.getByTestId('change-result')).toContainText('Status of 2 incidents changed', { timeout: 15_000 });
  const after = await statusesOf(served, chosen.map((c) => c.id));
  for (const c of chosen) expect(after.get(c.id)!.status).toBe(target);
  // The table shows the new status without a reload.
  await expect(loadedRows(page).nth(1).locator('[data-status]')).toHaveAttribute('data-status', target);
  // Each change recorded a status change row (the side effects ran per incident).
  const changes = await api<{ items: { service_asset_finding_id: string; status: string; previous_status: string }[] }>(
    served,
    'POST',
    '/cruddy/v2/service_asset_finding_status_changes/search',
    {
      include_fields: [],
      exclude_fields: [],
      filters: [
        { field: 'service_asset_finding_id', filter_type: 'intersection', value: chosen.map((c) => c.id) },
        { field: 'status', filter_type: 'equal', value: target },
      ],
      ordering: [],
      virtual_search: { value: '', strict: false },
      extension_params: { chidlrens_all: false, parents_all: false },
      relations: [],
      limit: 100,
      offset: 0,
    },
  );
  for (const c of chosen) expect(changes.items.some((x) => x.service_asset_finding_id === c.id && x.previous_status === c.status)).toBe(true);

  // A change already sent is reverted as a new change.
  await blur(page);
  await page.keyboard.press('u');
  await expect(page.getByTestId('change-result')).toContainText('Reverted for 2 incidents');
  const undone = await statusesOf(served, chosen.map((c) => c.id));
  for (const c of chosen) expect(undone.get(c.id)!.status).toBe(c.status);
});

test('bulk status change of every matching incident: confirmed, with progress, seen through the API, and undone', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const before = await incidents(served);
  expect(before.total).toBeGreaterThan(200);
  // Slow each chunk down a little so the progress can be seen.
  await page.route(SENDS, async (route) => {
    await new Promise((r) => setTimeout(r, 250));
    await route.continue();
  });
  await page.keyboard.press('Shift+X');
  await expect(page.getByTestId('selected-count')).toHaveText(`${before.total} selected`);
  await page.getByRole('button', { name: 'Status…' }).click();
  const dialog = page.getByRole('dialog', { name: `Change the status of ${before.total} incidents` });
  await expect(dialog).toContainText(`This changes ${before.total} incidents at once`);
  await dialog.getByRole('radio', { name: /Awaiting verification/ }).check();
  await dialog.getByRole('button', { name: `Change status of ${before.total}` }).click();
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  const progress = page.getByRole('progressbar', { name: 'Progress' });
  await expect(progress).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /Changing status: \d+ of/ })).toBeVisible();
  await snap(page, testInfo, 'bulk-progress');
  await expect(page.getByTestId('change-result')).toContainText(`Status of ${before.total} incidents changed to Awaiting verification`, { timeout: 30_000 });
  const counts = await statusCounts(served);
  expect(counts.get('verify_close')).toBe(before.total);
  await expect(page.getByTestId('count-status-verify_close')).toHaveText(String(before.total));

  // Revert from the notice: every incident gets its own previous status back.
  await page.getByTestId('change-result').getByRole('button', { name: 'Revert' }).click();
  await expect(page.getByTestId('change-result')).toContainText(`Reverted for ${before.total} incidents`, { timeout: 30_000 });
  const after = await incidents(served);
  expect(new Map(after.items.map((i) => [i.id, i.status]))).toEqual(new Map(before.items.map((i) => [i.id, i.status])));
});

test('risk level of the open incident from the row menu, with the band following; undone with Ctrl+Z', async ({ page, served }) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const first = (await incidents(served)).items[0]!;
  const level = first.risklevel >= 9 ? 2.5 : 9.4;
  await loadedRows(page).first().click({ button: 'right' });
  const menu = page.getByRole('menu', { name: 'Incident actions' });
  await menu.getByRole('menuitem', { name: /Change the risk level/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Change the risk level of 1 incident' });
  await dialog.getByRole('textbox', { name: /Risk level/ }).fill(String(level));
  await dialog.getByRole('button', { name: 'Change risk level' }).click();
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  await expect(page.getByTestId('change-result')).toContainText('Risk level of 1 incident set to');
  const changed = (await statusesOf(served, [first.id])).get(first.id)!;
  expect(changed.risklevel).toBe(level);
  expect(changed.risk).toBe(level >= 9 ? 'critical' : 'low');
  await expect(loadedRows(page).first().locator('.risk-level')).toHaveText(level.toFixed(1));
  await blur(page);
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('change-result')).toContainText('Reverted for 1 incident');
  const back = (await statusesOf(served, [first.id])).get(first.id)!;
  expect(back.risklevel).toBe(first.risklevel);
  expect(back.risk).toBe(first.risk);
});

test('the public API front_link opens the incident; the command palette runs every action', async ({ page, served }) => {
  const list = await api<{ objects: { id: string; title: string; front_link: string }[] }>(served, 'GET', '/data/public/api/v1/incidents?per_page=3&order=-display_id');
  const inc = list.objects[2]!;
  expect(inc.front_link).toBe(`${served.main}/#/incidents/${inc.id}`);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await page.goto(inc.front_link);
  const detail = page.getByRole('complementary', { name: 'Incident' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(inc.title);

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await palette.getByRole('combobox').fill('change the status');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Change the status of 1 incident' })).toBeVisible();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+k');
  await palette.getByRole('combobox').fill('go to the search builder');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/search$/);
});

test('quick filters (asset, finding type, text), columns chosen, ordered and resized, kept across a reload', async ({ page, served }) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const asset = (await api<{ items: { id: string; name: string }[] }>(served, 'POST', '/cruddy/v2/service_assets/search', {
    include_fields: ['id', 'name'],
    exclude_fields: [],
    filters: [{ field: 'name', filter_type: 'substr', value: 'srv-db' }],
    ordering: [{ field: 'name', direction: 'asc' }],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 1,
    offset: 0,
  })).items[0]!;
  await page.getByRole('button', { name: 'Assets' }).click();
  await page.getByRole('searchbox', { name: 'Search Assets' }).fill(asset.name);
  await page.getByRole('listbox', { name: 'Assets' }).getByRole('option', { name: asset.name }).getByRole('checkbox').check();
  await page.keyboard.press('Escape');
  const byAsset = await incidents(served, [{ field: 'service_asset_id', filter_type: 'intersection', value: [asset.id] }]);
  await expect(page.getByTestId('total')).toHaveText(`${byAsset.total} incident${byAsset.total === 1 ? '' : 's'}`);
  // The counts follow the asset filter too.
  const newOnAsset = byAsset.items.filter((i) => i.status === 'new').length;
  await expect(page.getByTestId('count-status-new')).toHaveText(String(newOnAsset));

  // Text search (virtual_search) on top.
  await page.getByRole('button', { name: /Clear filters/ }).click();
  await expect(page.getByTestId('total')).toHaveText(`${(await incidents(served)).total} incidents`);
  await page.getByRole('searchbox', { name: 'Search incidents' }).fill('ssh');
  const ssh = await incidents(served, [], { virtual_search: { value: 'ssh', strict: false } });
  await expect(page.getByTestId('total')).toHaveText(`${ssh.total} incidents`);
  await page.getByRole('searchbox', { name: 'Search incidents' }).fill('');

  // Columns: show the finding type, move it up, resize the title; kept after a reload.
  await page.getByRole('button', { name: 'Columns' }).click();
  const dialog = page.getByRole('dialog', { name: 'Columns' });
  await dialog.getByRole('checkbox', { name: 'Finding type' }).check();
  // Shown, it comes after the owner (hidden columns are listed after the shown ones): up past the
  // owner and the asset.
  for (let i = 0; i < 2; i++) await dialog.getByRole('button', { name: 'Move Finding type up' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  const headers = page.getByRole('table', { name: 'Incidents' }).getByRole('columnheader');
  await expect(headers.nth(5)).toHaveText(/^Finding type/);
  await expect(headers.nth(6)).toHaveText(/^Asset/);
  await expect(loadedRows(page).first().locator('td').nth(5)).not.toHaveText('…');
  // The columns are in the address too (a shared view shows the same ones).
  expect(new URL(page.url()).hash).toContain('cols=display_id,title,status,risklevel,finding_id,service_asset_id,user_id,created_at');
  const title = page.getByRole('columnheader', { name: /^Title/ });
  const before = (await title.boundingBox())!.width;
  const handle = page.getByRole('separator', { name: 'Resize Title' });
  const box = (await handle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x - 100, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  // The drag moved the edge from the handle's centre to 100 px left of the handle's left side.
  const expected = Math.round(before - 100 - box.width / 2);
  await expect.poll(async () => Math.round((await title.boundingBox())!.width)).toBe(expected);
  await page.reload();
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(headers.nth(5)).toHaveText(/^Finding type/);
  expect(Math.round((await title.boundingBox())!.width)).toBe(expected);
});
