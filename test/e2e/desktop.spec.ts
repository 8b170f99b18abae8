// The desktop bridge's contract, with the preload's API stood in by a script in Chromium
// (Electron itself cannot run here): the key comes from session(), the native menu is built
// from the declared actions in the console's language and passes the main process's checks,
// and a menu click runs the action.
import { parseMenu } from '../../src-main/electron/menu-spec';
import { expect, loadedRows, snap, test } from './fixtures';

test('desktop mode: the key from the bridge, the menu from the declared actions, a menu click runs an action', async ({ page, served }, testInfo) => {
  await page.addInitScript(
    ({ apiKey, main, routing }) => {
      const w = window as unknown as { __menus: unknown[]; __fire?: (id: string) => void; radarDesktop: unknown };
      w.__menus = [];
      w.radarDesktop = {
        session: async () => ({ apiKey, main, routing }),
        onAction: (listener: (id: string) => void) => {
          w.__fire = listener;
          return () => (w.__fire = undefined);
        },
        setMenu: (items: unknown) => w.__menus.push(items),
      };
    },
    { apiKey: served.apiKey, main: served.main, routing: served.routing },
  );
  await page.goto(`${served.main}/`);
  await expect(loadedRows(page).first()).toBeVisible();
  await expect(page.getByLabel('API key')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0);

  await expect.poll(() => page.evaluate(() => (window as unknown as { __menus: unknown[] }).__menus.length)).toBeGreaterThan(0);
  const menu = await page.evaluate(() => {
    const m = (window as unknown as { __menus: unknown[] }).__menus;
    return m[m.length - 1];
  });
  const items = parseMenu(menu);
  expect(items, 'the main process accepts the menu').not.toBeNull();
  const byId = new Map(items!.map((i) => [i.id, i]));
  expect(byId.get('incidents.setStatus')).toMatchObject({ label: 'Change the status…', groupLabel: 'Incidents', accelerator: 'S', enabled: true });
  expect(byId.get('palette.open')).toMatchObject({ accelerator: 'CmdOrCtrl+K' });
  expect(byId.get('incidents.undo')).toMatchObject({ enabled: false });

  // A click in the native menu arrives as an action id.
  await page.evaluate(() => (window as unknown as { __fire: (id: string) => void }).__fire('incidents.setStatus'));
  await expect(page.getByRole('dialog', { name: 'Change the status of 1 incident' })).toBeVisible();
  await snap(page, testInfo, 'desktop-menu-action');
  await page.keyboard.press('Escape');

  // The menu follows the language.
  await page.getByRole('combobox', { name: 'Language' }).selectOption('ru');
  await expect
    .poll(async () => {
      const m = await page.evaluate(() => {
        const all = (window as unknown as { __menus: unknown[] }).__menus;
        return all[all.length - 1];
      });
      return parseMenu(m)?.find((i) => i.id === 'incidents.setStatus')?.label;
    })
    .toBe('Изменить статус…');
  // Unknown ids from the menu are ignored.
  await page.evaluate(() => (window as unknown as { __fire: (id: string) => void }).__fire('nothing.here'));
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('the main process refuses a menu that is not the console\'s shape', () => {
  const ok = { id: 'incidents.setStatus', label: 'Status', group: 'incidents', groupLabel: 'Incidents', accelerator: 'S', enabled: true };
  expect(parseMenu([ok])).toEqual([ok]);
  expect(parseMenu([{ ...ok, id: 'x' }])).toBeNull();
  expect(parseMenu([{ ...ok, id: 'incidents.set Status' }])).toBeNull();
  expect(parseMenu([{ ...ok, group: 'file' }])).toBeNull();
  expect(parseMenu([{ ...ok, accelerator: 'Ctrl+Alt+Del+Shift+X' }])).toBeNull();
  expect(parseMenu([{ ...ok, label: 'x'.repeat(200) }])).toBeNull();
  expect(parseMenu([{ ...ok, enabled: 'yes' }])).toBeNull();
  expect(parseMenu(Array.from({ length: 101 }, () => ok))).toBeNull();
  expect(parseMenu({ items: [ok] })).toBeNull();
});
