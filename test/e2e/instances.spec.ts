// The instance switcher: a second local instance beside the main one, each with its health;
// switching shows that instance's incidents (routed with PgrSelectedInstance), and "All
// instances" merges the lists with an instance column.
import { emptySearch } from '../../src-shared/schemas/search';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, expect, incidents, loadedRows, openConsole, test, snap, routed as routedTo } from './fixtures';

const BRANCH = 'Филиал Казань';

test('switch instance, see its health, its incidents, the merged list, and a status change routed to it', async ({ page, served }, testInfo) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-e2e-branch-'));
  const inst = await api<{ id: string }>(served, 'POST', '/console/v1/instances', { kind: 'local', name: BRANCH, db_file: path.join(dir, 'branch.sqlite') });
  const routed = <T,>(method: string, p: string, body?: unknown): Promise<T> => routedTo<T>(served, inst.id, method, p, body);
  try {
    const created = await routed<{ items: { id: string; title: string }[] }>('POST', '/cruddy/v2/service_asset_findings/mass_create', [
      { title: 'Подозрительный вход в 1С — kzn-1c-01', status: 'new', risklevel: 8.1 },
      { title: 'Открыт порт RDP наружу — kzn-gw-01', status: 'new', risklevel: 6.2 },
      { title: 'Устаревший OpenSSH — kzn-srv-02', status: 'assigned_customer', risklevel: 5.0 },
    ]);
    expect(created.items).toHaveLength(3);

    await openConsole(page, served);
    await expect(loadedRows(page).first()).toBeVisible();
    // Health of every instance in the switcher.
    await page.getByRole('button', { name: /^Instance: / }).click();
    const options = page.getByRole('menu', { name: 'Instances' });
    await expect(options.getByRole('menuitemradio')).toHaveCount(3);
    await expect(options.getByRole('menuitemradio', { name: new RegExp(BRANCH) })).toContainText(/answering, \d+ ms/);
    await expect(options.getByRole('menuitemradio', { name: /Main/ })).toContainText('answering');
    await snap(page, testInfo, 'instance-switcher');

    // One instance: only its incidents.
    await options.getByRole('menuitemradio', { name: new RegExp(BRANCH) }).click();
    await expect(page.getByRole('button', { name: `Instance: ${BRANCH}` })).toBeVisible();
    await expect(page.getByTestId('total')).toHaveText('3 incidents');
    await expect(loadedRows(page)).toHaveCount(3);
    for (const c of created.items) await expect(page.getByRole('table', { name: 'Incidents' })).toContainText(c.title);
    await expect(page.getByTestId('count-status-new')).toHaveText('2');

    // A status change goes to that instance (and not to the main one).
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('selected-count')).toHaveText('3 selected');
    await page.keyboard.press('s');
    const dialog = page.getByRole('dialog', { name: 'Change the status of 3 incidents' });
    await dialog.getByRole('radio', { name: /In progress/ }).check();
    await dialog.getByRole('button', { name: 'Change status of 3' }).click();
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('change-result')).toContainText('Status of 3 incidents changed to In progress');
    const branch = await routed<{ items: { id: string; status: string }[] }>('POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(10), include_fields: ['id', 'status'] });
    expect(branch.items.map((i) => i.status)).toEqual(['working_customer', 'working_customer', 'working_customer']);
    const mainIds = new Set((await incidents(served)).items.map((i) => i.id));
    for (const c of created.items) expect(mainIds.has(c.id)).toBe(false);

    // All instances: merged, newest first, with the instance column.
    await page.getByRole('button', { name: `Instance: ${BRANCH}` }).click();
    await page.getByRole('menu', { name: 'Instances' }).getByRole('menuitemradio', { name: /All instances/ }).click();
    const main = await incidents(served);
    await expect(page.getByTestId('total')).toHaveText(`${main.total + 3} incidents`);
    await expect(page.getByRole('columnheader', { name: /^Instance/ })).toBeVisible();
    // The branch's incidents were created now, after every demo incident: they come first.
    for (let i = 0; i < 3; i++) await expect(loadedRows(page).nth(i)).toContainText(BRANCH);
    await expect(loadedRows(page).nth(3)).toContainText(main.items[0]!.title);
    await expect(loadedRows(page).nth(3)).not.toContainText(BRANCH);
    await expect(page.getByTestId('count-status-working_customer')).toHaveText(
      String(main.items.filter((i) => i.status === 'working_customer').length + 3),
    );
    await snap(page, testInfo, 'all-instances');
  } finally {
    await api(served, 'DELETE', `/console/v1/instances/${inst.id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
