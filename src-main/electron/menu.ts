// The native menu: the console sends its declared actions (translated labels, shortcuts,
// enabled states) over one checked channel; a click is sent back as the action's id.
import { app, Menu, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import { MENU_GROUPS, type MenuItemSpec } from './menu-spec';

/** Builds the application menu; the page's keyboard handler runs the shortcuts, so they are
 * shown in the menu but not registered with the system. */
export function applyMenu(win: BrowserWindow, items: MenuItemSpec[], allowed: ReadonlySet<string>): void {
  const template: MenuItemConstructorOptions[] = [];
  if (process.platform === 'darwin') template.push({ role: 'appMenu' });
  template.push({ role: 'editMenu' });
  for (const g of MENU_GROUPS) {
    const list = items.filter((i) => i.group === g);
    if (!list.length) continue;
    template.push({
      label: list[0]!.groupLabel,
      submenu: list.map((i) => ({
        label: i.label,
        enabled: i.enabled,
        accelerator: i.accelerator,
        registerAccelerator: false,
        click: () => {
          if (!win.isDestroyed() && allowed.has(i.id)) win.webContents.send('radar:action', i.id);
        },
      })),
    });
  }
  template.push({ role: 'windowMenu' });
  if (!app.isPackaged) template.push({ role: 'viewMenu' });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
