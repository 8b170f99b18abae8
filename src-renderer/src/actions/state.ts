// The snapshot of the stores the actions read (derived on each use; nothing is copied).
import { cachedSource } from '../data/listCache';
import { incidentExportSource } from '../data/incidentExport';
import { i18n } from '../i18n';
import { currentRoute } from '../router';
import { canUndo, useChanges } from '../state/changes';
import { useInstances } from '../state/instances';
import { useQueue } from '../state/queue';
import { useSession } from '../state/session';
import { currentQuery, EMPTY_SELECTION, scopeOf, useTriage } from '../state/triage';
import { useUi } from '../state/ui';
import type { AppState } from './types';

export function appState(): AppState {
  const route = currentRoute();
  const ui = useUi.getState();
  const ch = useChanges.getState();
  const tr = useTriage.getState();
  const view = useInstances.getState().selected;
  const signedIn = useSession.getState().status === 'ready';
  const onIncidents = signedIn && route.view === 'incidents';
  const query = currentQuery();
  // The export's description (every field's label) is made only when an action reads it.
  let exportSource: AppState['exportSource'] | undefined;
  return {
    route,
    signedIn,
    dialogOpen: ui.dialog !== null || ui.paletteOpen || useQueue.getState().open,
    view,
    query,
    selection: tr.selection[view] ?? EMPTY_SELECTION,
    scope: onIncidents ? scopeOf(view, tr) : null,
    focus: tr.focus[view] ?? 0,
    detail: tr.detail,
    source: onIncidents ? cachedSource(view) : null,
    busy: ch.running !== null,
    pending: ch.pending !== null,
    canUndo: canUndo(ch),
    get exportSource() {
      if (exportSource === undefined) exportSource = !signedIn ? null : onIncidents ? incidentExportSource(query, i18n.t.bind(i18n)) : ui.exportSource;
      return exportSource;
    },
  };
}
