// The live list's mark (the newest incident the view has read) comes from the first page when
// the list is sorted newest first: no extra request after the rows, and a new incident is still
// announced. Sorted otherwise, the mark is asked for (a request of one row, newest first).
import type { Page, Request } from '@playwright/test';
import { api, expect, incidents, loadedRows, openConsole, test } from './fixtures';

/** Searches of one row ordered newest first that read only id and created_at: the mark's request. */
function markRequests(page: Page): { n: () => number } {
  let n = 0;
  page.on('request', (r: Request) => {
    if (!r.url().includes('/service_asset_findings/search') || r.method() !== 'POST') return;
    const body = r.postDataJSON() as { limit?: number; include_fields?: string[]; ordering?: { field: string; direction: string }[] } | null;
    if (body?.limit === 1 && body.include_fields?.join(',') === 'id,created_at' && body.ordering?.[0]?.field === 'created_at') n++;
  });
  return { n: () => n };
}

test('the mark comes from the first page when the list is newest first, and a new incident is announced', async ({ page, served }) => {
  const marks = markRequests(page);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const before = await incidents(served);
  await expect(page.getByTestId('total')).toHaveText(`${before.total} incidents`);
  await page.getByRole('combobox', { name: 'Refresh the list' }).selectOption({ label: 'Every 10 s' });
  await page.waitForTimeout(1000);
  expect(marks.n(), 'no request for the mark after the rows').toBe(0);
  await api(served, 'POST', '/cruddy/v2/service_asset_findings/create', {
    title: 'Newest first probe',
    status: 'new',
    risklevel: 5,
    service_asset_id: before.items[0]!.service_asset_id,
    finding_id: before.items[0]!.finding_id,
  });
  await expect(page.getByTestId('fresh')).toHaveText('1 new incident — show', { timeout: 25_000 });
  await expect(page.getByTestId('total')).toHaveText(`${before.total} incidents`);
});

test('sorted by title, the mark is asked for and a new incident is announced', async ({ page, served }) => {
  const marks = markRequests(page);
  await openConsole(page, served, '#/incidents?sort=title');
  await expect(loadedRows(page).first()).toBeVisible();
  await expect.poll(() => marks.n(), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  const before = await incidents(served);
  await page.getByRole('combobox', { name: 'Refresh the list' }).selectOption({ label: 'Every 10 s' });
  await api(served, 'POST', '/cruddy/v2/service_asset_findings/create', {
    title: 'Sorted by title probe',
    status: 'new',
    risklevel: 5,
    service_asset_id: before.items[0]!.service_asset_id,
    finding_id: before.items[0]!.finding_id,
  });
  await expect(page.getByTestId('fresh')).toHaveText('1 new incident — show', { timeout: 25_000 });
});
