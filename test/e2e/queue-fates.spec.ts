// What happens to a waiting change besides being sent: Undo drops it while it waits (nothing is
// sent); once its instance answers, an incident someone else changed meanwhile is listed as a
// conflict with the value it holds now, and one deleted meanwhile is listed as refused with the
// reason; "Send mine anyway" applies the conflicting one, the refused one stays listed until it is
// discarded. Checked through the API.
import { api, expect, incidents, loadedRows, openConsole, snap, test } from './fixtures';

test.use({ viewport: { width: 1440, height: 900 } });

const risk = async (s: Parameters<typeof incidents>[0], id: string) => (await incidents(s, [{ field: 'id', filter_type: 'equal', value: id }])).items[0]?.risklevel;

test('a waiting change can be undone; a conflict and a refusal stay listed with the reason, a retry and a discard', async ({ page, served }, testInfo) => {
  test.setTimeout(180_000);
  const list = (await incidents(served)).items;
  const [a, b, c] = [list[0]!, list[1]!, list[2]!];
  const mine = [a.risklevel, b.risklevel, c.risklevel].includes(9.1) ? 9.2 : 9.1;
  const cBefore = c.risklevel;

  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  // Its requests get no answer: the changes wait.
  let tries = 0;
  await page.route('**/service_asset_findings/mass_update', (route) => {
    tries++;
    return route.abort('connectionrefused');
  });
  const scroll = page.getByTestId('incidents-scroll');
  await scroll.focus();
  // The first two rows, one change.
  await page.keyboard.press('x');
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await page.keyboard.press('r');
  await page.getByRole('dialog', { name: /^Change the risk level of 2 incidents/ }).getByRole('textbox').fill(String(mine));
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  const queueButton = page.getByTestId('queue-button');
  await expect(queueButton).toHaveText('2 waiting', { timeout: 30_000 });
  await page.keyboard.press('Escape');

  // The third row, another change, undone while it waits: nothing of it is ever sent.
  await scroll.focus();
  await page.keyboard.press('j');
  await page.keyboard.press('r');
  await page.getByRole('dialog', { name: /^Change the risk level of 1 incident/ }).getByRole('textbox').fill('0.7');
  await page.keyboard.press('Control+Enter');
  await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
  await expect(queueButton).toHaveText('3 waiting', { timeout: 30_000 });
  await expect(loadedRows(page).nth(2).getByTestId('queued-mark')).toHaveAttribute('data-state', 'waiting');
  await page.keyboard.press('u');
  await expect(queueButton).toHaveText('2 waiting');
  await expect(loadedRows(page).nth(2).getByTestId('queued-mark')).toHaveCount(0);
  // Its notice ("… waits for its instance") goes with it.
  await expect(page.getByTestId('change-result')).toHaveCount(0);

  // The queue tries again by itself, at most once in RETRY_AFTER_MS (3 s): right after a try,
  // someone else changes the first incident and deletes the second, and the instance answers
  // writes again, all before the next try reads the incidents.
  const seen = tries;
  await expect.poll(() => tries, { timeout: 20_000 }).toBeGreaterThan(seen);
  const triesBefore = tries;
  const other = await api<{ results: { error_code: number }[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/mass_update', { ids: [a.id], field: 'risklevel', value: 1.1 });
  expect(other.results[0]!.error_code).toBe(0);
  const del = await fetch(`${served.main}/cruddy/v2/service_asset_findings/${b.id}`, { method: 'DELETE', headers: { PgrApiKey: served.apiKey } });
  expect(del.status).toBe(200);

  // The instance answers again: nothing is overwritten, both are listed with why.
  await page.unroute('**/service_asset_findings/mass_update');
  await expect(queueButton).toHaveText('2 not applied', { timeout: 30_000 });
  expect(await risk(served, a.id)).toBe(1.1);
  expect(await risk(served, c.id)).toBe(cBefore);
  expect(tries).toBe(triesBefore);
  await queueButton.click();
  const entry = page.getByTestId('queue-entry');
  await expect(entry).toHaveCount(1);
  await expect(entry).toHaveAttribute('data-state', 'failed');
  await expect(entry).toContainText('Not applied: changed meanwhile by someone else.');
  await expect(entry).toContainText(`#${a.display_id}`);
  await expect(entry).toContainText('now 1.1');
  await expect(entry).toContainText(`#${b.display_id}`);
  await expect(entry).toContainText('no such incident');
  await snap(page, testInfo, 'queue-conflict-refused');

  // Sent anyway: the conflicting one is overwritten as chosen; the deleted one stays refused.
  await entry.getByRole('button', { name: 'Send mine anyway' }).click();
  await expect.poll(() => risk(served, a.id), { timeout: 30_000 }).toBe(mine);
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText('no such incident');
  await expect(entry).not.toContainText(`#${a.display_id}`);
  await expect(entry.getByRole('button', { name: 'Retry' })).toBeVisible();
  await entry.getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByTestId('queue-entry')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(queueButton).toHaveCount(0);
  // Nothing is kept for a reload either.
  await page.reload();
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  await expect(queueButton).toHaveCount(0);
  expect(await risk(served, c.id)).toBe(cBefore);
});
