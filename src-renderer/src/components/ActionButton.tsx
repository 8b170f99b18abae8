// A toolbar button for a declared action: its label, its shortcut, enabled when it applies.
import { actionContext, getAction, keyLabel, runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { useChanges } from '../state/changes';
import { useIncidents } from '../state/incidents';
import { useUi } from '../state/ui';

/** Re-renders when anything an action's `enabled` reads may have changed. */
export function useActionState(): void {
  useChanges((s) => s.progress);
  useChanges((s) => s.last);
  useIncidents((s) => s.selection);
  useIncidents((s) => s.detail);
  useIncidents((s) => s.focus);
  useIncidents((s) => s.queries);
  useUi((s) => s.dialog);
}

export function ActionButton({ id, className, short }: { id: string; className?: string; short?: boolean }) {
  const { t } = useI18n();
  useActionState();
  const a = getAction(id);
  if (!a) return null;
  const enabled = a.enabled(actionContext());
  const key = a.keys?.[0];
  const label = t(a.label);
  return (
    <button
      type="button"
      className={className}
      disabled={!enabled}
      onClick={() => runAction(id)}
      title={key ? `${label} (${keyLabel(key)})` : label}
      aria-keyshortcuts={key?.replace('Mod', 'Control')}
    >
      {short ? t(`${a.label}Short`, { defaultValue: label }) : label}
      {key && !short && <kbd>{keyLabel(key)}</kbd>}
    </button>
  );
}
