// What the incident list exports: exactly the table's request (filters, search, order, resolved
// now), every match, whole records; the CSV's columns are the incident's fields, those on
// screen by default.
import type { TFunction } from 'i18next';
import { fieldOf, fieldsOf, getResource } from '../../../src-shared/resources/index';
import { columnsOf, visibleColumnIds } from '../components/DataTable';
import { useSession } from '../state/session';
import { useTriage } from '../state/triage';
import { useUi } from '../state/ui';
import { fieldLabel } from '../views/resources/labels';
import { toSearchRequest, type IncidentQuery } from '../views/incidents/query';
import type { ExportSource } from './exportTypes';

const RESOURCE = 'service_asset_findings';

export function incidentExportSource(q: IncidentQuery, t: TFunction): ExportSource {
  const r = getResource(RESOURCE);
  const req = toSearchRequest(q, { asOf: useTriage.getState().asOf, who: { me: useSession.getState().me?.id ?? null, myGroups: [] } }, []);
  // The columns on screen, as the table shows them (the user's choices over the defaults, Owner and Group included).
  const prefs = useUi.getState().columns.incidents;
  const onScreen = columnsOf('incidents');
  const visible = (q.columns ?? visibleColumnIds('incidents', onScreen, prefs)).filter((id) => fieldOf(r, id));
  // A column the table has is named as its header reads (user_id is "Owner" there).
  const header = new Map(onScreen.filter((c) => /\p{L}/u.test(c.header)).map((c) => [c.id, c.header]));
  return {
    resource: RESOURCE,
    search: { filters: req.filters, ordering: req.ordering, virtual_search: req.virtual_search },
    columns: fieldsOf(r)
      .filter((f) => !f.def?.secret)
      .map((f) => ({ id: f.name, label: header.get(f.name) ?? fieldLabel(t, f.name) })),
    visible: visible.length ? visible : ['display_id', 'title', 'status', 'risklevel', 'service_asset_id', 'created_at'],
    title: t('nav.incidents'),
  };
}
