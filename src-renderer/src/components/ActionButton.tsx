// A toolbar button for a declared action: its label, its shortcut, enabled when it applies.
import { focusList } from '../actions/incidents';
import { appState, getAction, keyLabel, runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { useChanges } from '../state/changes';
import { useSyncExternalStore } from 'react';
import { listsVersion, subscribeLists } from '../data/listCache';
import { useRoute } from '../router';
import { useSession } from '../state/session';
import { useTriage } from '../state/triage';
import { useUi } from '../state/ui';

/** Re-renders when anything an action's `enabled` reads may have changed. */
export function useActionState(): void {
  useChanges((s) => s.running);
  useChanges((s) => s.pending);
  useChanges((s) => s.last);
  useTriage((s) => s.selection);
  useTriage((s) => s.detail);
  useTriage((s) => s.focus);
  useTriage((s) => s.fresh);
  useTriage((s) => s.live);
  useSession((s) => s.me);
  useUi((s) => s.dialog);
  useUi((s) => s.chartsOpen);
  useRoute();
  useSyncExternalStore(subscribeLists, listsVersion);
}

export function ActionButton({ id, className, short }: { id: string; className?: string; short?: boolean }) {
  const { t } = useI18n();
  useActionState();
  const a = getAction(id);
  if (!a) return null;
  const enabled = a.predicate(appState());
  const key = a.keys?.[0];
  const label = t(a.label);
  return (
    <button
      type="button"
      className={className}
      disabled={!enabled}
      onClick={(e) => {
        runAction(id);
        // Clicked with the mouse on the list's toolbars: the keyboard stays with the list, so
        // Enter then opens the row under the cursor rather than pressing this button again (a
        // button pressed from the keyboard keeps the focus).
        if (e.detail > 0 && !e.currentTarget.closest('aside, dialog, [role="dialog"]')) focusList();
      }}
      title={key ? `${label} (${keyLabel(key)})` : label}
      aria-keyshortcuts={key?.replace('Mod', 'Control')}
      aria-pressed={a.pressed ? a.pressed() : undefined}
    >
      {short ? t(`${a.label}Short`, { defaultValue: label }) : label}
      {key && !short && <kbd>{keyLabel(key)}</kbd>}
    </button>
  );
}
