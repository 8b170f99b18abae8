// Links open where they were made: the list's address names its instance, and a link copied on a
// second instance, opened in a new tab of the same console, shows the same view on that
// instance, signed in by the tab already open (the key never in the link). A tab with no console
// open asks for the key; signing out in one tab signs out the other.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, expect, loadedRows, openConsole, routed, snap, test, type Served } from './fixtures';

const BRANCH = 'Филиал Самара';

test.use({ viewport: { width: 1440, height: 900 } });

/** A second instance (a local database, the branch office) holding `incidents`; `remove` deletes both. */
async function branchWith(served: Served, incidents: { title: string; status: string; risklevel: number }[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-e2e-links-'));
  const inst = await api<{ id: string }>(served, 'POST', '/console/v1/instances', { kind: 'local', name: BRANCH, db_file: path.join(dir, 'branch.sqlite') });
  await routed(served, inst.id, 'POST', '/cruddy/v2/service_asset_findings/mass_create', incidents);
  const remove = async () => {
    await api(served, 'DELETE', `/console/v1/instances/${inst.id}`);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { inst, remove };
}

test('a link copied on a second instance opens in a new tab on that instance, signed in', async ({ page, served, context }, testInfo) => {
  test.setTimeout(180_000);
  const { inst, remove } = await branchWith(served, [
    { title: 'Подбор пароля к VPN — smr-gw-01', status: 'new', risklevel: 7.4 },
    { title: 'Устаревший OpenSSL — smr-web-01', status: 'new', risklevel: 5.3 },
    { title: 'Вход под служебной учётной записью — smr-dc-01', status: 'assigned_customer', risklevel: 8.8 },
  ]);
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await openConsole(page, served);
    await expect(loadedRows(page).first()).toBeVisible();
    await page.getByRole('button', { name: /^Instance: / }).click();
    await page.getByRole('menu', { name: 'Instances' }).getByRole('menuitemradio', { name: new RegExp(BRANCH) }).click();
    await expect(page.getByTestId('total')).toHaveText('3 incidents');
    // The address names the instance; a sort makes the view its own.
    expect(new URL(page.url()).hash).toContain(`instance=${inst.id}`);
    await page.getByRole('columnheader', { name: /^Risk/ }).getByRole('button').click();
    await expect(loadedRows(page).first()).toContainText('smr-dc-01');
    await page.getByRole('button', { name: /^Views/ }).click();
    const share = await page.getByTestId('share-url').inputValue();
    expect(share).toContain(`instance=${inst.id}`);
    expect(share).toContain('sort=');
    expect(share).not.toContain(served.apiKey);
    await page.getByRole('dialog').getByRole('button', { name: 'Copy link' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(share);
    await page.keyboard.press('Escape');

    // A new tab of the same console, from the link alone: the same view on the same instance, signed in.
    const tab = await context.newPage();
    await tab.goto(share);
    await expect(tab.getByRole('button', { name: `Instance: ${BRANCH}` })).toBeVisible({ timeout: 30_000 });
    await expect(tab.getByTestId('total')).toHaveText('3 incidents');
    await expect(loadedRows(tab).first()).toContainText('smr-dc-01');
    await expect(tab.getByLabel('API key')).toHaveCount(0);
    expect(tab.url()).not.toContain(served.apiKey);
    await snap(tab, testInfo, 'link-new-tab');

    // An incident's own link on that instance, too.
    await tab.locator('tbody tr[data-loaded="true"]').first().click();
    await expect(tab.getByRole('complementary')).toContainText('smr-dc-01');
    const incidentLink = tab.url();
    expect(incidentLink).toContain(`instance=${inst.id}`);
    const third = await context.newPage();
    await third.goto(incidentLink);
    await expect(third.getByRole('complementary')).toContainText('smr-dc-01', { timeout: 30_000 });
    await third.close();

    // Signing out in one tab signs out the other; a tab then opened asks for the key.
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByLabel('API key')).toBeVisible({ timeout: 10_000 });
    const lone = await context.newPage();
    await lone.goto(share);
    await expect(lone.getByLabel('API key')).toBeVisible({ timeout: 15_000 });
  } finally {
    await remove();
  }
});

test('a link naming an instance this console does not have says so and shows the main instance', async ({ page, served }) => {
  await openConsole(page, served, '#/incidents?instance=00000000-0000-4000-8000-000000000000&sort=-risklevel');
  await expect(page.getByRole('alert').filter({ hasText: 'does not have' })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('button', { name: /^Instance: Main/ })).toBeVisible();
  expect(new URL(page.url()).hash).not.toContain('instance=');
});

test('a list opened by its address reads that instance from the start: the main instance is never asked for its incidents', async ({ page, served }) => {
  const { inst, remove } = await branchWith(served, [
    { title: 'Подбор пароля к VPN — smr-gw-01', status: 'new', risklevel: 7.4 },
    { title: 'Устаревший OpenSSL — smr-web-01', status: 'new', risklevel: 5.3 },
  ]);
  try {
    // Before the instance list answered, the list used to read the instance selected last in this
    // browser (the main one): its incidents were drawn, and could be selected, under the address
    // of the other instance until the selection followed.
    const asked: string[] = [];
    page.on('request', (r) => {
      const p = new URL(r.url()).pathname;
      if (/\/service_asset_findings\/search$|\/stats\/incidents$/.test(p)) asked.push(p);
    });
    await openConsole(page, served, `#/incidents?instance=${inst.id}&sort=-risklevel`);
    await expect(page.getByRole('button', { name: `Instance: ${BRANCH}` })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('total')).toHaveText('2 incidents');
    await expect(loadedRows(page).first()).toContainText('smr-gw-01');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((p) => !p.startsWith('/console/v1/route/'))).toEqual([]);
  } finally {
    await remove();
  }
});
