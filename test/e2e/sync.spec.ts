// Offline triage back to the platform, in Chromium: a snapshot of a second server (the origin)
// as an instance of the console's server; incidents changed there in the console show as
// changes waiting (the switcher's count, marks in the list); the Changes view pushes them; a
// field changed on both sides is resolved side by side; a reason the platform cannot link to its
// status change is pushed unlinked and the view says so. Screenshots in English and Russian,
// light and dark.
import { api, expect, expectHeaderFits, loadedRows, openConsole, routed, snap, startServe, test } from './fixtures';

const SNAP = 'Выезд на объект';

test('change incidents on a snapshot, see the count, push, resolve a conflict', async ({ page, served }, testInfo) => {
  test.setTimeout(240_000);
  const origin = await startServe();
  try {
    const res = await api<{ state: string; instance: { id: string }; error: unknown }>(served, 'POST', '/console/v1/snapshot?wait=1', {
      url: origin.main,
      api_key: origin.apiKey,
      name: SNAP,
      per_page: 500,
    });
    expect(res.state, JSON.stringify(res.error)).toBe('done');
    const snapId = res.instance.id;

    await openConsole(page, served);
    await expect(loadedRows(page).first()).toBeVisible();
    await page.getByRole('button', { name: /^Instance: / }).click();
    const options = page.getByRole('menu', { name: 'Instances' });
    // A snapshot shows its count in the switcher (nothing waiting yet).
    await expect(options.getByRole('menuitemradio', { name: new RegExp(SNAP) }).getByTestId('sync-count')).toHaveText('0 changes waiting');
    await options.getByRole('menuitemradio', { name: new RegExp(SNAP) }).click();
    await expect(page.getByRole('button', { name: new RegExp(`^Instance: ${SNAP}`) })).toBeVisible();
    // The snapshot's list, read to the end (not the first instance's rows still on screen).
    await expect(page.locator('.dt', { has: page.getByRole('table', { name: 'Incidents', exact: true }) })).toHaveAttribute('aria-busy', 'false');
    await expect(loadedRows(page).first()).toBeVisible();

    // Offline triage: the first three incidents of the list get a status none of them has.
    const shown = await loadedRows(page).locator('[data-status]').evaluateAll((els) => els.slice(0, 3).map((e) => e.getAttribute('data-status')));
    const [targetStatus, target] = (
      [
        ['working_customer', 'In progress'],
        ['verify_close', 'Awaiting verification'],
        ['feedback_required', 'Information requested'],
        ['assigned_customer', 'Assigned'],
      ] as const
    ).find(([s]) => !shown.includes(s))!;
    for (const n of [1, 2, 3]) {
      await page.keyboard.press('j');
      await page.keyboard.press('x');
      await expect(page.getByTestId('selected-count')).toHaveText(`${n} selected`);
    }
    await page.keyboard.press('s');
    const dialog = page.getByRole('dialog', { name: 'Change the status of 3 incidents' });
    await dialog.getByRole('radio', { name: new RegExp(target) }).check();
    await dialog.getByRole('button', { name: 'Change status of 3' }).click();
    // Held a few seconds with Undo; sent now.
    await expect(page.getByTestId('held-change')).toContainText(`Status of 3 incidents → ${target}`);
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('change-result')).toContainText('Status of 3 incidents changed', { timeout: 15_000 });
    // What the outbox recorded: the three incidents, each status before and after.
    const waiting = await api<{ items: { record_id: string; field: string; before: string; after: string; label: string }[] }>(served, 'GET', `/console/v1/sync/${snapId}/entries`);
    expect(waiting.items.map((e) => [e.field, e.after])).toEqual([
      ['status', targetStatus],
      ['status', targetStatus],
      ['status', targetStatus],
    ]);
    const chosen = waiting.items.map((e) => ({ id: e.record_id, title: e.label, status: e.before }));

    // The origin knows nothing yet; the console counts the changes and marks the incidents.
    for (const c of chosen) expect((await api<{ status: string }>(origin, 'GET', `/cruddy/v2/service_asset_findings/${c.id}?relations=`)).status).toBe(c.status);
    await expect(page.getByRole('button', { name: new RegExp(`^Instance: ${SNAP}`) }).getByTestId('sync-count')).toHaveAttribute('aria-label', '3 changes waiting');
    await expect(page.getByRole('button', { name: new RegExp(`^Instance: ${SNAP}`) }).getByTestId('sync-count')).toHaveText('3');
    await expect(page.getByRole('table', { name: 'Incidents' }).getByTestId('pending-mark')).toHaveCount(3);
    // The header at 1280 px with everything a snapshot adds (its count in the switcher, "Changes 3"
    // in the navigation) still fits on one line.
    await expect(page.getByRole('link', { name: /^Changes/ })).toContainText('3');
    await expectHeaderFits(page);
    await snap(page, testInfo, 'snapshot-incidents-marked');

    // Meanwhile on the platform, a colleague closes the third one: a conflict.
    const clash = chosen[2]!;
    await fetch(`${origin.main}/data/public/api/v1/incidents/update/status`, {
      method: 'PUT',
      headers: { PgrApiKey: origin.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: clash.id, status: 'closed' }),
    });

    // The Changes view: the entries, then one push.
    await page.getByRole('link', { name: /^Changes/ }).click();
    const view = page.getByTestId('changes-view');
    await expect(view.getByTestId('changes-counts')).toContainText('3 changes waiting');
    const table = view.getByTestId('changes-table');
    await expect(table.locator('tbody tr')).toHaveCount(3);
    for (const c of chosen) await expect(table).toContainText(c.title);
    await expect(table.locator('tbody tr').first()).toContainText(`→ ${target}`);
    await snap(page, testInfo, 'changes-en-light');

    await view.getByRole('button', { name: 'Push', exact: true }).click();
    await expect(view.getByTestId('sync-last')).toHaveText('Last push: pushed 2, conflicts 1, failed 0.', { timeout: 60_000 });
    await expect(view.getByTestId('changes-counts')).toContainText('1 change waiting');
    await expect(view.getByTestId('changes-counts')).toContainText('1 conflict');
    for (const c of chosen.slice(0, 2)) expect((await api<{ status: string }>(origin, 'GET', `/cruddy/v2/service_asset_findings/${c.id}?relations=`)).status).toBe(targetStatus);
    expect((await api<{ status: string }>(origin, 'GET', `/cruddy/v2/service_asset_findings/${clash.id}?relations=`)).status).toBe('closed');

    // The resolver: mine, theirs and the original side by side.
    const row = table.locator('tbody tr[data-state="conflict"]');
    await expect(row).toContainText(clash.title);
    await row.getByRole('button', { name: 'Resolve…' }).click();
    const resolver = page.getByRole('dialog', { name: /^Conflict: Status of/ });
    await expect(resolver.locator('[data-side="mine"]')).toHaveText(target);
    await expect(resolver.locator('[data-side="theirs"]')).toHaveText('Closed');
    await expect(resolver.locator('[data-side="original"]')).toHaveText(statusLabel(clash.status));
    await snap(page, testInfo, 'resolver-en-light');

    // Dark and Russian, the same view and the resolver.
    await resolver.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ru');
    await expect(view.getByRole('heading', { name: 'Изменения, ожидающие отправки на платформу' })).toBeVisible();
    await expect(view.getByTestId('changes-counts')).toContainText('1 изменение ждёт отправки');
    await expect(page.getByRole('link', { name: /^Изменения/ })).toBeVisible();
    await expectHeaderFits(page);
    await snap(page, testInfo, 'changes-ru-dark');
    await row.getByRole('button', { name: 'Разрешить…' }).click();
    const ruResolver = page.getByRole('dialog', { name: /^Конфликт:/ });
    await expect(ruResolver.locator('[data-side="theirs"]')).toHaveText('Закрыт');
    await snap(page, testInfo, 'resolver-ru-dark');
    await ruResolver.getByRole('button', { name: 'Отмена' }).click();
    await page.getByRole('combobox', { name: 'Тема' }).selectOption('light');
    await page.getByRole('combobox', { name: 'Язык' }).selectOption('en');

    // Keep mine: the next push sends it over the platform's value.
    await row.getByRole('button', { name: 'Resolve…' }).click();
    await page.getByRole('dialog', { name: /^Conflict:/ }).getByRole('button', { name: 'Keep mine' }).click();
    await expect(table.locator('tbody tr[data-state="pending"]')).toHaveCount(1);
    await view.getByRole('button', { name: 'Push', exact: true }).click();
    await expect(view.getByTestId('sync-last')).toHaveText('Last push: pushed 1, conflicts 0, failed 0.', { timeout: 60_000 });
    await expect(view.getByTestId('changes-counts')).toContainText('0 changes waiting');
    expect((await api<{ status: string }>(origin, 'GET', `/cruddy/v2/service_asset_findings/${clash.id}?relations=`)).status).toBe(targetStatus);
    await snap(page, testInfo, 'changes-pushed');
    // The origin recorded its own status change for each.
    for (const c of chosen) {
      const rows = await api<{ items: { status: string }[] }>(origin, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
        include_fields: [],
        exclude_fields: [],
        filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: c.id }],
        ordering: [{ field: 'created_at', direction: 'desc' }],
        virtual_search: { value: '', strict: false },
        extension_params: { chidlrens_all: false, parents_all: false },
        relations: [],
        limit: 1,
        offset: 0,
      });
      expect(rows.items[0]!.status).toBe(targetStatus);
    }

    // A status change with its reason, made here, whose status a colleague set on the platform
    // meanwhile: the platform makes no status-change row for it, so the message goes without
    // that link, its text intact, and the view says so with the push's notes.
    const dup = chosen[0]!;
    const made = await routed<{ results: { message_id: string | null }[] }>(served, snapId, 'POST', '/console/v1/incidents/status', {
      ids: [dup.id],
      status: 'invalid',
      note: { subject: 'Duplicate', body: 'Duplicate of an earlier incident' },
    });
    const messageId = made.results[0]!.message_id!;
    const put = await fetch(`${origin.main}/data/public/api/v1/incidents/update/status`, {
      method: 'PUT',
      headers: { PgrApiKey: origin.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: dup.id, status: 'invalid' }),
    });
    expect(put.status).toBe(200);
    await view.getByRole('tab', { name: 'Waiting' }).click();
    await expect(table.locator('tbody tr')).toHaveCount(2);
    await view.getByRole('tab', { name: 'All' }).click();
    await expect(view.getByTestId('sync-unlinked')).toHaveCount(0);
    await view.getByRole('button', { name: 'Push', exact: true }).click();
    await expect(view.getByTestId('sync-last')).toHaveText('Last push: pushed 2, conflicts 0, failed 0.', { timeout: 60_000 });
    const notice = view.getByTestId('sync-unlinked');
    await expect(notice).toContainText('1 record went to the platform without the status change it names');
    await expect(notice.getByRole('listitem')).toHaveText([
      `messages ${messageId}: sent without service_asset_finding_status_change_id (the platform already had that status: it made no row for it)`,
    ]);
    const sent = await api<{ subject: string; body: string; service_asset_finding_status_change_id: string | null }>(origin, 'GET', `/cruddy/v2/messages/${messageId}?relations=`);
    expect(sent).toMatchObject({ subject: 'Duplicate', body: 'Duplicate of an earlier incident', service_asset_finding_status_change_id: null });
    await snap(page, testInfo, 'changes-pushed-unlinked');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ru');
    await expect(notice).toContainText('1 запись отправлена на платформу без ссылки на смену статуса');
    await expect(notice.getByRole('listitem')).toHaveText([
      `messages ${messageId}: отправлено без service_asset_finding_status_change_id (на платформе уже был этот статус: записи о смене она не создала)`,
    ]);
    await snap(page, testInfo, 'changes-pushed-unlinked-ru');
    await page.getByRole('combobox', { name: 'Язык' }).selectOption('en');
  } finally {
    await origin.stop();
  }
});

function statusLabel(status: string): string {
  const labels: Record<string, string> = {
    new: 'New',
    assigned_customer: 'Assigned',
    working_customer: 'In progress',
    feedback_required: 'Information requested',
    verify_close: 'Awaiting verification',
    risk_accepted: 'Risk accepted',
    closed: 'Closed',
    invalid: 'Invalid',
  };
  return labels[status] ?? status;
}

