// "Select all N matching" selects the whole query, past the search's 10,000 limit: a bulk status
// change over more than 10,000 incidents changes every one of them (checked through the API, one
// status-change row each) as one job of the server, with its progress shown; a second one,
// cancelled while it runs, changes none of them and says so. Screenshots of the confirmation and
// the progress in both languages and both themes.
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, LOOK, openConsole, snap, startServe, test, type Served } from './fixtures';

/** The requests that send a change in chunks: mass_update, and a status with its reason in one operation. */
const SENDS = /\/(service_asset_findings\/mass_update|console\/v1\/incidents\/status)(\?|$)/;
/** The server's job over a query: started, followed, cancelled. */
const JOB = /\/console\/v1\/incidents\/bulk(\/[^/?]+)?(\?|$)/;

test.use({ viewport: { width: 1440, height: 900 } });

const count = async (s: Served, status: string) =>
  (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'status', filter_type: 'equal', value: status }] })).total;

const statusRows = async (s: Served, status: string, since: string) =>
  (
    await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
      ...emptySearch(1),
      include_fields: ['id'],
      filters: [
        { field: 'status', filter_type: 'equal', value: status },
        { field: 'created_at', filter_type: 'range', value: [since, null] },
      ],
    })
  ).total;

test('a bulk status change over all of more than 10,000 matching incidents changes every one as one job, with progress; another, cancelled, changes none', async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  const s = await startServe();
  const jobCalls: string[] = [];
  let chunked = 0;
  page.on('request', (r) => {
    if (JOB.test(r.url())) jobCalls.push(r.method());
    if (SENDS.test(r.url())) chunked++;
  });
  try {
    const ADDED = 10_600;
    for (let i = 0; i < ADDED; i += 1000) {
      const n = Math.min(1000, ADDED - i);
      const items = Array.from({ length: n }, (_, k) => ({ title: `Массовая проверка ${i + k} — host-${(i + k) % 211}`, status: 'new', risklevel: 3 + ((i + k) % 60) / 10 }));
      const res = await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/mass_create', items);
      expect(res.total).toBe(n);
    }
    const matching = await count(s, 'new');
    expect(matching).toBeGreaterThan(10_000);
    const verifyBefore = await count(s, 'verify_close');
    await new Promise((r) => setTimeout(r, 20));
    const startedAt = new Date().toISOString();
    const n = (x: number) => x.toLocaleString('en-GB');

    await openConsole(page, s, '#/incidents?status=new');
    await expect(page.getByTestId('total')).toHaveText(`${n(matching)} incidents`, { timeout: 60_000 });
    await page.getByRole('button', { name: `Select all ${n(matching)} matching` }).click();
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(matching)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('s');
    // The confirmation names N: the whole query, not the rows loaded.
    const dialog = page.getByRole('dialog', { name: `Change the status of ${n(matching)} incidents` });
    await expect(dialog.getByTestId('scope-summary')).toHaveText(`All ${n(matching)} incidents the list matches (the whole query, not only the rows loaded).`);
    await expect(dialog).toContainText(`New — ${n(matching)}`);
    await page.keyboard.press('5');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    const progress = page.locator('.notice.is-progress');
    // The job's own count moves (it is read from the server while the job runs).
    await expect(progress).toContainText(new RegExp(`Changing status: [1-9][\\d,]* of ${n(matching)}`), { timeout: 60_000 });
    await snap(page, testInfo, 'bulk-query-progress');
    const result = page.getByTestId('change-result');
    await expect(result).toContainText(`Status of ${n(matching)} incidents changed to Awaiting verification.`, { timeout: 300_000 });
    // One job of the server, not chunks sent from the page.
    expect(jobCalls.filter((m) => m === 'POST')).toHaveLength(1);
    expect(jobCalls.filter((m) => m === 'GET').length).toBeGreaterThan(1);
    expect(chunked).toBe(0);
    expect(await count(s, 'new')).toBe(0);
    expect(await count(s, 'verify_close')).toBe(verifyBefore + matching);
    expect(await statusRows(s, 'verify_close', startedAt)).toBe(matching);
    await expect(page.getByTestId('total')).toHaveText('0 incidents');

    // A second change over the whole query, cancelled while the job runs: the job's transaction
    // rolls back, none of them is changed, and the notice says so.
    const all = await count(s, 'verify_close');
    const workingBefore = await count(s, 'working_customer');
    const secondAt = new Date().toISOString();
    await page.goto(`${s.main}/#/incidents?status=verify_close`);
    await expect(page.getByTestId('total')).toHaveText(`${n(all)} incidents`, { timeout: 60_000 });
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(all)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('s');
    await page.keyboard.press('3');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    // Cancelled part-way through the job: what it had written is rolled back.
    await expect(progress).toContainText(new RegExp(`Changing status: [1-9][\\d,]* of ${n(all)}`), { timeout: 60_000 });
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await expect(result).toContainText(`Cancelled: none of the ${n(all)} incidents was changed.`, { timeout: 120_000 });
    // Nothing of it to revert: the notice offers no Revert (which would undo the change before it).
    await expect(result.getByRole('button', { name: 'Revert' })).toHaveCount(0);
    await snap(page, testInfo, 'bulk-query-cancelled');
    expect(jobCalls.filter((m) => m === 'DELETE')).toHaveLength(1);
    expect(chunked).toBe(0);
    expect(await count(s, 'working_customer')).toBe(workingBefore);
    expect(await count(s, 'verify_close')).toBe(all);
    expect(await statusRows(s, 'working_customer', secondAt)).toBe(0);
  } finally {
    await s.stop();
  }
});

test('an instance that answers fewer incidents per page than asked is read to its total: the change covers all of the query', async ({ page }) => {
  test.setTimeout(180_000);
  const s = await startServe();
  try {
    const total = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'] })).total;
    expect(total).toBeGreaterThan(300);
    // The search answers at most 150 per page when the console asks for the whole query's pages.
    let capped = 0;
    await page.route('**/service_asset_findings/search', async (route) => {
      const body = route.request().postDataJSON() as { limit?: number } | null;
      if (body && body.limit === 10_000) {
        capped++;
        return route.continue({ postData: JSON.stringify({ ...body, limit: 150 }) });
      }
      return route.continue();
    });
    await openConsole(page, s);
    const n = (x: number) => x.toLocaleString('en-GB');
    await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`, { timeout: 60_000 });
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(total)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: `Change the risk level of ${n(total)} incidents` }).getByRole('textbox').fill('6.6');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('change-result')).toContainText(`Risk level of ${n(total)} incidents set to 6.6`, { timeout: 120_000 });
    expect(capped).toBeGreaterThanOrEqual(Math.ceil(total / 150));
    const other = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'risklevel', filter_type: 'equal', value: 6.6, negation: true }] })).total;
    expect(other).toBe(0);
  } finally {
    await s.stop();
  }
});

test('on a remote platform the whole query is sent in pages with progress; incidents deleted meanwhile are named and the rest changed', async ({ page }) => {
  test.setTimeout(180_000);
  const s = await startServe();
  const remote = await startServe();
  try {
    const inst = await api<{ id: string }>(s, 'POST', '/console/v1/instances', { kind: 'remote', name: 'ЦОД Москва', url: remote.main, api_key: remote.apiKey });
    const total = (await api<{ total: number }>(remote, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'] })).total;
    expect(total).toBeGreaterThan(300);
    const newest = (
      await api<{ items: { id: string; display_id: number }[] }>(remote, 'POST', '/cruddy/v2/service_asset_findings/search', {
        ...emptySearch(2),
        include_fields: ['id', 'display_id'],
        ordering: [{ field: 'created_at', direction: 'desc' }],
      })
    ).items;
    // Someone else deletes two incidents after the console has read the query, before it writes.
    let deleted = false;
    let pages = 0;
    let jobs = 0;
    page.on('request', (r) => {
      if (JOB.test(r.url())) jobs++;
    });
    await page.route('**/console/v1/route/**', async (route) => {
      const url = decodeURIComponent(route.request().url());
      if (url.includes('service_asset_findings/mass_update')) {
        pages++;
        if (!deleted) {
          deleted = true;
          for (const x of newest) await api(remote, 'DELETE', `/cruddy/v2/service_asset_findings/${x.id}`);
        }
      }
      await route.continue();
    });
    const n = (x: number) => x.toLocaleString('en-GB');
    await openConsole(page, s, `#/incidents?instance=${inst.id}`);
    await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`, { timeout: 60_000 });
    // Selected as soon as the list shows its total: the selection stays while the list settles
    // (the remote instance's clock is read, and its list is read from the first request).
    await page.getByRole('button', { name: `Select all ${n(total)} matching` }).click();
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(total)} selected`);
    await page.waitForLoadState('networkidle');
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(total)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: `Change the risk level of ${n(total)} incidents` }).getByRole('textbox').fill('4.4');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    const result = page.getByTestId('change-result');
    await expect(result).toContainText(`Risk level of ${n(total - 2)} incidents set to 4.4`, { timeout: 120_000 });
    const names = newest.map((x) => `#${x.display_id}`);
    await expect(result).toContainText(`2 no longer existed (deleted by someone else meanwhile): ${names.join(', ')}; the rest were changed.`);
    // Pages with progress, no job: the remote platform has none.
    expect(pages).toBeGreaterThan(1);
    expect(jobs).toBe(0);
    const left = (await api<{ total: number }>(remote, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'risklevel', filter_type: 'equal', value: 4.4, negation: true }] })).total;
    expect(left).toBe(0);
  } finally {
    await remote.stop();
    await s.stop();
  }
});

test('a query that no longer matches the N incidents the confirmation named is refused whole, with the reason', async ({ page }) => {
  test.setTimeout(120_000);
  const s = await startServe();
  try {
    const total = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'] })).total;
    const one = (await api<{ items: { id: string }[] }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'] })).items[0]!;
    // Someone else deletes an incident after the console has read the query, before the job starts.
    await page.route(JOB, async (route) => {
      if (route.request().method() === 'POST') await api(s, 'DELETE', `/cruddy/v2/service_asset_findings/${one.id}`);
      await route.continue();
    });
    const n = (x: number) => x.toLocaleString('en-GB');
    await openConsole(page, s);
    await expect(page.getByTestId('total')).toHaveText(`${n(total)} incidents`, { timeout: 60_000 });
    await page.getByRole('button', { name: `Select all ${n(total)} matching` }).click();
    await expect(page.getByTestId('selected-count')).toHaveText(`${n(total)} selected`);
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: `Change the risk level of ${n(total)} incidents` }).getByRole('textbox').fill('1.1');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('change-result')).toContainText(`the query matches ${total - 1} incidents now, not ${total}: nothing was changed`, { timeout: 60_000 });
    const changed = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'], filters: [{ field: 'risklevel', filter_type: 'equal', value: 1.1 }] })).total;
    expect(changed).toBe(0);
  } finally {
    await s.stop();
  }
});

// The confirmation (it names N) and the progress of a change over a whole query, as an analyst
// sees them in both languages and both themes.
for (const c of [
  { theme: 'light', locale: 'en-GB' },
  { theme: 'dark', locale: 'en-GB' },
  { theme: 'light', locale: 'ru-RU' },
  { theme: 'dark', locale: 'ru-RU' },
] as const) {
  test.describe(`${c.theme}, ${c.locale}`, { tag: LOOK }, () => {
    test.use({ colorScheme: c.theme, locale: c.locale });
    test('the confirmation names N; the progress of the job', async ({ page }, testInfo) => {
      test.setTimeout(180_000);
      const s = await startServe();
      try {
        // Over a thousand, so that N is shown with the language's digit grouping.
        for (let i = 0; i < 1200; i += 600) {
          const items = Array.from({ length: 600 }, (_, k) => ({ title: `Проверка ${i + k} — host-${(i + k) % 97}`, status: 'new', risklevel: 2 + ((i + k) % 70) / 10 }));
          await api(s, 'POST', '/cruddy/v2/service_asset_findings/mass_create', items);
        }
        const matching = (await api<{ total: number }>(s, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), include_fields: ['id'] })).total;
        expect(matching).toBeGreaterThan(1000);
        const n = (x: number) => x.toLocaleString(c.locale);
        // The job's progress is held on screen: its answers come late.
        await page.route(JOB, async (route) => {
          if (route.request().method() === 'GET') await new Promise((r) => setTimeout(r, 1500));
          await route.continue();
        });
        await openConsole(page, s);
        await expect(page.getByTestId('total')).toContainText(n(matching), { timeout: 60_000 });
        await page.keyboard.press('Shift+X');
        await expect(page.getByTestId('selected-count')).toContainText(n(matching));
        await page.getByTestId('incidents-scroll').focus();
        await page.keyboard.press('s');
        const dialog = page.getByRole('dialog');
        await expect(dialog.getByTestId('scope-summary')).toContainText(n(matching));
        await expect(dialog).toHaveAccessibleName(new RegExp(n(matching)));
        await snap(page, testInfo, `bulk-query-confirm-${c.locale}-${c.theme}`);
        await page.keyboard.press('5');
        await page.keyboard.press('Control+Enter');
        await page.getByTestId('held-change').getByRole('button').nth(1).click();
        const progress = page.locator('.notice.is-progress');
        await expect(progress).toContainText(n(matching), { timeout: 60_000 });
        await snap(page, testInfo, `bulk-query-progress-${c.locale}-${c.theme}`);
        await expect(page.getByTestId('change-result')).toContainText(n(matching), { timeout: 120_000 });
        expect(await count(s, 'verify_close')).toBe(matching);
      } finally {
        await s.stop();
      }
    });
  });
}
