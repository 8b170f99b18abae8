// A status change with its reason, made in the console on a remote platform whose clock is five
// minutes behind this machine's: the reason is linked to the status-change row the platform made
// for that change (read from what the platform answered), not guessed from the workstation's
// clock. The platform is a real server in a child process with its clock shifted.
import path from 'node:path';
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, openConsole, snap, startServe, test } from './fixtures';

const BEHIND_MS = -5 * 60_000;
const NAME = 'Площадка заказчика';

interface Row {
  id: string;
  status: string;
  previous_status: string | null;
  created_at: string;
}

test('the reason of a status change on a platform whose clock is behind is linked to the platform’s own row', async ({ page, served }, testInfo) => {
  test.setTimeout(120_000);
  const platform = await startServe([], undefined, {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${path.resolve('test/helpers/clock-offset.mjs')}`.trim(),
    RADAR_TEST_CLOCK_OFFSET_MS: String(BEHIND_MS),
  });
  try {
    const inst = await api<{ id: string }>(served, 'POST', '/console/v1/instances', { kind: 'remote', name: NAME, url: platform.main, api_key: platform.apiKey });
    const target = (
      await api<{ items: { id: string; title: string }[] }>(platform, 'POST', '/cruddy/v2/service_asset_findings/search', {
        ...emptySearch(1),
        filters: [{ field: 'status', filter_type: 'equal', value: 'working_customer' }],
        ordering: [{ field: 'display_id', direction: 'asc' }],
      })
    ).items[0]!;
    const rowsOf = async () =>
      (
        await api<{ items: Row[] }>(platform, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
          ...emptySearch(500),
          filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: target.id }],
          ordering: [{ field: 'created_at', direction: 'desc' }],
        })
      ).items;
    const before = new Set((await rowsOf()).map((r) => r.id));

    await openConsole(page, served, `#/incidents/${target.id}?instance=${inst.id}`);
    await expect(page.getByRole('button', { name: `Instance: ${NAME}` })).toBeVisible({ timeout: 30_000 });
    const detail = page.getByRole('complementary', { name: 'Incident' });
    await expect(detail.getByRole('heading', { level: 2 })).toHaveText(target.title);
    // The incident of the platform, not the main instance's incident with the same id.
    await expect(detail.getByTestId('detail-instance')).toHaveText(NAME);
    await detail.getByRole('button', { name: 'Status…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the status of 1 incident' });
    await dialog.getByRole('radio', { name: /Closed/ }).check();
    await dialog.getByRole('combobox', { name: 'Reason' }).selectOption({ label: 'False positive' });
    await dialog.getByRole('textbox', { name: 'Comment' }).fill('Часы площадки отстают на пять минут.');
    await dialog.getByRole('button', { name: /^Change status/ }).click();
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('change-result')).toContainText('Status of 1 incident changed to Closed', { timeout: 20_000 });

    // The platform made one row for the change, stamped by its own clock (minutes behind ours).
    const made = (await rowsOf()).filter((r) => !before.has(r.id));
    expect(made).toEqual([expect.objectContaining({ status: 'closed', previous_status: 'working_customer' })]);
    expect(Date.parse(made[0]!.created_at) - Date.now()).toBeLessThan(-4 * 60_000);
    // The reason is a message on the platform, linked to that row.
    const msgs = await api<{ items: { subject: string; body: string; service_asset_finding_status_change_id: string | null }[] }>(platform, 'POST', '/cruddy/v2/messages/search', {
      ...emptySearch(50),
      filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: target.id }],
    });
    const reason = msgs.items.filter((m) => m.body === 'Часы площадки отстают на пять минут.');
    expect(reason).toEqual([expect.objectContaining({ subject: 'Closed: False positive', service_asset_finding_status_change_id: made[0]!.id })]);
    // And the console's timeline shows the reason with the change.
    await detail.getByRole('tab', { name: /^Timeline/ }).click();
    await expect(detail.getByTestId('history-note').first()).toContainText('Closed: False positive');
    await snap(page, testInfo, 'remote-clock-behind-reason');
  } finally {
    await platform.stop();
  }
});
