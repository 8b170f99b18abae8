// Sorting the incident table by Status in Chromium: the rows come in workflow order (new first,
// invalid last, as the spec lists the states), the order the API gives for `status_rank`, both
// ways; "All instances" merges a second local instance's rows into the same order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { INCIDENT_STATUSES } from '../../src-shared/resources/fields';
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, incidents, loadedRows, openConsole, test, snap, type Served, routed as routedTo } from './fixtures';

const BRANCH = 'Филиал Самара';
const rank = (s: string) => INCIDENT_STATUSES.indexOf(s as (typeof INCIDENT_STATUSES)[number]);

/** Status and title of the first `n` loaded rows, as the table shows them. */
async function shown(page: Page, n: number): Promise<{ status: string; title: string }[]> {
  const rows = loadedRows(page);
  await expect(rows.nth(n - 1)).toBeVisible();
  return rows.evaluateAll(
    (els, max) =>
      els.slice(0, max).map((tr) => ({
        status: tr.querySelector('[data-status]')?.getAttribute('data-status') ?? '',
        title: tr.textContent ?? '',
      })),
    n,
  );
}

/** Clicks Status until it sorts `direction`; answers the sort the header shows. */
async function sortStatus(page: Page, direction: 'ascending' | 'descending'): Promise<void> {
  const header = page.getByRole('columnheader', { name: 'Status' });
  for (let i = 0; i < 3 && (await header.getAttribute('aria-sort')) !== direction; i++) await header.getByRole('button').click();
  await expect(header).toHaveAttribute('aria-sort', direction);
}

async function byRank(s: Served, direction: 'asc' | 'desc') {
  return (await incidents(s, [], { ordering: [{ field: 'status_rank', direction }] })).items;
}

test('clicking Status sorts the incidents in workflow order, both ways, as the API orders status_rank', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const N = 20;
  for (const direction of ['ascending', 'descending'] as const) {
    await sortStatus(page, direction);
    const api = await byRank(served, direction === 'ascending' ? 'asc' : 'desc');
    const rows = await shown(page, N);
    // The demo data has every status; the first rows are the first of the workflow (or the last).
    expect(rows[0]!.status).toBe(direction === 'ascending' ? 'new' : api[0]!.status);
    expect(rows.map((r) => r.status)).toEqual(api.slice(0, N).map((i) => i.status));
    for (let i = 0; i < N; i++) expect(rows[i]!.title, `row ${i}`).toContain(api[i]!.title);
    // Not the text order of the values.
    const text = (await incidents(served, [], { ordering: [{ field: 'status', direction: direction === 'ascending' ? 'asc' : 'desc' }] })).items;
    expect(text[0]!.status).not.toBe(api[0]!.status);
  }
  expect(new URL(page.url()).hash).toContain('sort=-status');
  await snap(page, testInfo, 'status-workflow-order');
});

test('"All instances" merges the instances by workflow status', async ({ page, served }, testInfo) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-e2e-rank-'));
  const inst = await api<{ id: string }>(served, 'POST', '/console/v1/instances', { kind: 'local', name: BRANCH, db_file: path.join(dir, 'branch.sqlite') });
  const routed = <T,>(method: string, p: string, body?: unknown): Promise<T> => routedTo<T>(served, inst.id, method, p, body);
  try {
    // Two statuses whose text order is the reverse of their workflow order.
    const chosen = ['verify_close', 'risk_accepted'];
    const filters = [{ field: 'status', filter_type: 'intersection', value: chosen }];
    await routed('POST', '/cruddy/v2/service_asset_findings/mass_create', [
      { title: 'Самара: принят риск', status: 'risk_accepted', risklevel: 3 },
      { title: 'Самара: ждёт проверки', status: 'verify_close', risklevel: 7 },
      { title: 'Самара: новый', status: 'new', risklevel: 5 },
    ]);
    const branch = await routed<{ items: { title: string; status: string; created_at: string }[] }>('POST', '/cruddy/v2/service_asset_findings/search', {
      ...emptySearch(100),
      filters,
      ordering: [{ field: 'status_rank', direction: 'asc' }],
    });
    expect(branch.items.map((i) => i.status)).toEqual(['verify_close', 'risk_accepted']);

    await openConsole(page, served, `#/incidents?status=${chosen.join(',')}`);
    await expect(loadedRows(page).first()).toBeVisible();
    await page.getByRole('button', { name: /^Instance: / }).click();
    await page.getByRole('menu', { name: 'Instances' }).getByRole('menuitemradio', { name: /All instances/ }).click();
    await expect(page.getByRole('columnheader', { name: /^Instance/ })).toBeVisible();
    await sortStatus(page, 'ascending');

    // The expected merge: both instances' rows by rank, then creation time.
    const main = (await incidents(served, filters, { ordering: [{ field: 'status_rank', direction: 'asc' }] })).items;
    const merged = [...main, ...branch.items].sort((a, b) => rank(a.status) - rank(b.status) || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
    await expect(page.getByTestId('total')).toHaveText(`${merged.length} incidents`);
    const verify = merged.filter((i) => i.status === 'verify_close').length;
    // Every "verify_close" row (the branch's, created last, ends them), then the first "risk_accepted" one.
    const rows = await shown(page, verify + 1);
    expect(rows.map((r) => r.status)).toEqual([...Array(verify).fill('verify_close'), 'risk_accepted']);
    expect(rows[verify - 1]!.title).toContain('Самара: ждёт проверки');
    expect(rows[verify - 1]!.title).toContain(BRANCH);
    for (let i = 0; i <= verify; i++) expect(rows[i]!.title, `row ${i}`).toContain(merged[i]!.title);
    await snap(page, testInfo, 'all-instances-status-order');
  } finally {
    await api(served, 'DELETE', `/console/v1/instances/${inst.id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
