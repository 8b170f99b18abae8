// The opening's first page, asked before the console's code is loaded: the entry (main.tsx)
// calls askFirstPageAhead before it loads the application, so the server reads the first rows
// while the browser parses, evaluates and renders the console. The request is the one the
// incident list's source sends for its first rows (data/incidentList.ts, PagedSource's first
// read), computed by the same functions from the same state (the address, the column settings,
// the view's instant); the client's transport takes its answer only when the list's own request
// is equal in every part (api/primed.ts), so a request computed otherwise is simply sent again.
// This module and its imports stay light: no component, no schema, no translation.
import { sendAhead } from '../api/primed';
import { currentRoute } from '../router';
import { keyInHand } from '../session';
import { initialSelection } from '../state/selection';
import { currentQuery, useTriage } from '../state/triage';
import { useUi } from '../state/ui';
import { NO_IDENTITY, toSearchRequest } from '../views/incidents/query';
import { openingFields } from './incidentFields';
import { FIRST_READ } from './paging';

/** The incident search of the main instance (the typed client's address for it). */
const INCIDENT_SEARCH = '/cruddy/v2/service_asset_findings/search';

/** Sends the incident list's first request now, when the address opens the main instance's list. */
export async function askFirstPageAhead(): Promise<void> {
  // The main instance's list (the one the address names, or for a bare address the one last selected).
  if (currentRoute().view !== 'incidents' || initialSelection() !== 'main') return;
  const q = currentQuery();
  // A grouped view reads its groups, not rows.
  if (q.groupBy) return;
  const key = await keyInHand();
  if (!key) return;
  // Resolved as the list resolves it before anything else is known: no analyst, no group, no rows
  // held back, the status sort in workflow order (the main instance is this server).
  const req = toSearchRequest(q, { asOf: useTriage.getState().asOf, who: NO_IDENTITY, until: null, statusRank: true }, openingFields(q.columns, useUi.getState().columns.incidents), FIRST_READ, 0);
  sendAhead({ url: INCIDENT_SEARCH, method: 'POST', headers: { PgrApiKey: key, 'Content-Type': 'application/json' }, body: JSON.stringify(req) });
}
