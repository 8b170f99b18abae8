// Notices raised by actions: translated here, shown by the shell (state/ui).
import { i18n } from '../i18n';
import { useUi } from '../state/ui';

export function announce(kind: 'info' | 'error' | 'success', key: string, values?: Record<string, unknown>, action?: { id: string; label: string }): void {
  useUi.getState().notify(kind, i18n.t(key, values ?? {}), action ? { id: action.id, label: i18n.t(action.label) } : undefined);
}
