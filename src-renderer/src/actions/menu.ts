// The desktop window's native menu, built from the declared actions (labels in the console's
// language, enabled as they apply now); clicks come back as action ids and run like shortcuts.
import { useEffect } from 'react';
import { desktop, type DesktopMenuItem } from '../desktop';
import { i18n } from '../i18n';
import { useChanges } from '../state/changes';
import { useTriage } from '../state/triage';
import { subscribeLists } from '../data/listCache';
import { useSession } from '../state/session';
import { useUi } from '../state/ui';
import { ACTIONS, appState, runAction } from './registry';

/** Electron's accelerator syntax for a declared key. */
export function accelerator(key: string): string {
  return key
    .split('+')
    .map((p) => (p === 'Mod' ? 'CmdOrCtrl' : p === 'Escape' ? 'Esc' : p === 'Enter' ? 'Return' : p.length === 1 ? p.toUpperCase() : p))
    .join('+');
}

export function menuItems(): DesktopMenuItem[] {
  const s = appState();
  return ACTIONS.map((a) => ({
    id: a.id,
    label: i18n.t(a.label),
    group: a.group,
    groupLabel: i18n.t(`palette.groups.${a.group}`),
    accelerator: a.keys?.[0] ? accelerator(a.keys[0]) : undefined,
    enabled: a.predicate({ ...s, dialogOpen: false }),
  }));
}

export function useDesktopMenu(): void {
  useEffect(() => {
    const bridge = desktop();
    if (!bridge) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const push = () => {
      clearTimeout(timer);
      timer = setTimeout(() => bridge.setMenu(menuItems()), 100);
    };
    push();
    const offAction = bridge.onAction((id) => void runAction(id));
    const unsubs = [
      useChanges.subscribe(push),
      useTriage.subscribe(push),
      subscribeLists(push),
      useUi.subscribe(push),
      useSession.subscribe(push),
    ];
    const onLang = () => push();
    i18n.on('languageChanged', onLang);
    window.addEventListener('hashchange', push);
    return () => {
      clearTimeout(timer);
      offAction();
      for (const u of unsubs) u();
      i18n.off('languageChanged', onLang);
      window.removeEventListener('hashchange', push);
    };
  }, []);
}
