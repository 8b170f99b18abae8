// What the page may send for the native menu, checked field by field (no Electron here, so the
// check can be tested under plain Node).

import { ACTION_ID, type MenuItemSpec } from '../../src-shared/desktop';

export type { MenuItemSpec };

export const MENU_GROUPS = ['incidents', 'view', 'go', 'app'] as const;
const ACCELERATOR = /^(?:(?:CmdOrCtrl|Alt|Shift)\+){0,3}(?:[A-Z0-9/]|Esc|Return)$/;

/** The menu items as sent by the page, or null when anything in them is not as expected. */
export function parseMenu(raw: unknown): MenuItemSpec[] | null {
  if (!Array.isArray(raw) || raw.length > 100) return null;
  const out: MenuItemSpec[] = [];
  for (const v of raw) {
    if (!v || typeof v !== 'object') return null;
    const x = v as Record<string, unknown>;
    if (typeof x.id !== 'string' || !ACTION_ID.test(x.id)) return null;
    if (typeof x.label !== 'string' || x.label.length === 0 || x.label.length > 120) return null;
    if (typeof x.group !== 'string' || !(MENU_GROUPS as readonly string[]).includes(x.group)) return null;
    if (typeof x.groupLabel !== 'string' || x.groupLabel.length === 0 || x.groupLabel.length > 60) return null;
    if (x.accelerator !== undefined && (typeof x.accelerator !== 'string' || !ACCELERATOR.test(x.accelerator))) return null;
    if (typeof x.enabled !== 'boolean') return null;
    out.push({ id: x.id, label: x.label, group: x.group, groupLabel: x.groupLabel, accelerator: x.accelerator as string | undefined, enabled: x.enabled });
  }
  return out;
}
