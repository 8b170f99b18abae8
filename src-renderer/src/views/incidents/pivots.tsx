// Pivots: from an incident (its detail panel, its row's menu) to the list filtered in or out by
// its asset, finding type, correlation rules, owner or group, one click each (Elastic's filter
// in / out, TheHive's observable pivots). Each pivot is a step in the address, so Back returns;
// the conditions pivots added are listed above the list, each removable.
import { getRecord, type Rec } from '../../api/radar';
import { RecordLabel } from '../../components/Label';
import { failureText, type Row } from '../../data/source';
import { useI18n } from '../../i18n';
import { groupName, personName, usePeople } from '../../state/people';
import { checkAuth, useSession } from '../../state/session';
import { targetOf } from '../../state/instances';
import { useTriage } from '../../state/triage';
import { create } from 'zustand';
import { announce } from '../../actions/notices';
import type { IncidentQuery } from './query';

export type PivotKind = 'asset' | 'finding' | 'rule' | 'owner' | 'group';

const without = (list: readonly string[], ids: readonly string[]) => list.filter((x) => !ids.includes(x));
const plus = (list: readonly string[], ids: readonly string[]) => [...list, ...ids.filter((x) => !list.includes(x))];

/** The query with the list filtered in (only these) or out (not these) by one kind of value. */
export function pivoted(q: IncidentQuery, kind: PivotKind, ids: readonly string[], mode: 'in' | 'out'): IncidentQuery {
  const v = ids.map((x) => x.toLowerCase());
  switch (kind) {
    case 'asset':
      return mode === 'in' ? { ...q, assets: v, notAssets: without(q.notAssets, v) } : { ...q, assets: without(q.assets, v), notAssets: plus(q.notAssets, v) };
    case 'finding':
      return mode === 'in' ? { ...q, findings: v, notFindings: without(q.notFindings, v) } : { ...q, findings: without(q.findings, v), notFindings: plus(q.notFindings, v) };
    case 'rule':
      return mode === 'in' ? { ...q, rules: v, notRules: without(q.notRules, v) } : { ...q, rules: without(q.rules, v), notRules: plus(q.notRules, v) };
    case 'owner':
      return mode === 'in' ? { ...q, owner: v[0] ?? 'any', notOwners: without(q.notOwners, v) } : { ...q, owner: v.includes(q.owner) ? 'any' : q.owner, notOwners: plus(q.notOwners, v) };
    case 'group':
      return mode === 'in' ? { ...q, team: v[0] ?? 'any', notTeams: without(q.notTeams, v) } : { ...q, team: v.includes(q.team) ? 'any' : q.team, notTeams: plus(q.notTeams, v) };
  }
}

/** Where the last pivot was made from, so that the list offers the way back. */
export const usePivotTrail = create<{ at: string | null }>(() => ({ at: null }));

/** Filters the list in or out; the address keeps the step (Back returns to the list before it). */
export function pivot(kind: PivotKind, ids: readonly string[], mode: 'in' | 'out'): void {
  if (!ids.length) return;
  useTriage.getState().setQuery((q) => pivoted(q, kind, ids, mode), { push: true });
  usePivotTrail.setState({ at: window.location.hash });
}

/** The way back from a pivot: the list as it was before it. */
export function pivotBack(): void {
  usePivotTrail.setState({ at: null });
  history.back();
}

/** The value of a row for a kind of pivot (rules are read from the incident). */
export async function rowValues(row: Row, kind: PivotKind): Promise<string[]> {
  const s = (v: unknown) => (typeof v === 'string' && v ? [v] : []);
  switch (kind) {
    case 'asset':
      return s(row.service_asset_id);
    case 'finding':
      return s(row.finding_id);
    case 'owner':
      return s(row.user_id);
    case 'group':
      return s(row.group_id);
    case 'rule': {
      const api = useSession.getState().api;
      if (!api) return [];
      try {
        const rec = await getRecord(api, targetOf(row._instance.id), 'service_asset_findings', row.id, ['engine_go_rules']);
        return ((rec.engine_go_rules as Rec[] | undefined) ?? []).map((r) => r.id);
      } catch (e) {
        checkAuth(e);
        announce('error', 'pivots.failed', { error: failureText(e) });
        return [];
      }
    }
  }
}

/** The two buttons of a value in the detail panel: only incidents with it, or none with it. */
export function PivotButtons({ kind, ids, name }: { kind: PivotKind; ids: string[]; name: string }) {
  const { t } = useI18n();
  if (!ids.length) return null;
  return (
    <span className="pivot-buttons">
      <button type="button" className="pivot" aria-label={t(`pivots.in.${kind}`, { name })} title={t(`pivots.in.${kind}`, { name })} onClick={() => pivot(kind, ids, 'in')} data-testid={`pivot-in-${kind}`}>
        <svg viewBox="0 0 12 12" width="10" height="10" aria-hidden="true">
          <path d="M6 1.5v9M1.5 6h9" stroke="currentColor" strokeWidth="1.6" />
        </svg>
      </button>
      <button type="button" className="pivot" aria-label={t(`pivots.out.${kind}`, { name })} title={t(`pivots.out.${kind}`, { name })} onClick={() => pivot(kind, ids, 'out')} data-testid={`pivot-out-${kind}`}>
        <svg viewBox="0 0 12 12" width="10" height="10" aria-hidden="true">
          <path d="M1.5 6h9" stroke="currentColor" strokeWidth="1.6" />
        </svg>
      </button>
    </span>
  );
}

function Name({ kind, id, instance }: { kind: PivotKind; id: string; instance: string }) {
  usePeople((s) => s.version);
  if (kind === 'owner') return <>{personName(instance, id, true) ?? id}</>;
  if (kind === 'group') return <>{groupName(instance, id) ?? id}</>;
  const resource = kind === 'asset' ? 'service_assets' : kind === 'finding' ? 'findings' : 'engine_go_rules';
  return <RecordLabel instance={instance} resource={resource} id={id} />;
}

const UUID = /^[0-9a-f]{8}-/i;

/** The conditions pivots hold, each removable, and the way back from the last pivot. */
export function PivotBar({ query: q, instance }: { query: IncidentQuery; instance: string }) {
  const { t } = useI18n();
  const at = usePivotTrail((s) => s.at);
  const setQuery = useTriage((s) => s.setQuery);
  const items: { kind: PivotKind; mode: 'in' | 'out'; id: string; remove(x: IncidentQuery): IncidentQuery }[] = [
    ...q.assets.map((id) => ({ kind: 'asset' as const, mode: 'in' as const, id, remove: (x: IncidentQuery) => ({ ...x, assets: without(x.assets, [id]) }) })),
    ...q.notAssets.map((id) => ({ kind: 'asset' as const, mode: 'out' as const, id, remove: (x: IncidentQuery) => ({ ...x, notAssets: without(x.notAssets, [id]) }) })),
    ...q.findings.map((id) => ({ kind: 'finding' as const, mode: 'in' as const, id, remove: (x: IncidentQuery) => ({ ...x, findings: without(x.findings, [id]) }) })),
    ...q.notFindings.map((id) => ({ kind: 'finding' as const, mode: 'out' as const, id, remove: (x: IncidentQuery) => ({ ...x, notFindings: without(x.notFindings, [id]) }) })),
    ...q.rules.map((id) => ({ kind: 'rule' as const, mode: 'in' as const, id, remove: (x: IncidentQuery) => ({ ...x, rules: without(x.rules, [id]) }) })),
    ...q.notRules.map((id) => ({ kind: 'rule' as const, mode: 'out' as const, id, remove: (x: IncidentQuery) => ({ ...x, notRules: without(x.notRules, [id]) }) })),
    ...(UUID.test(q.owner) ? [{ kind: 'owner' as const, mode: 'in' as const, id: q.owner, remove: (x: IncidentQuery) => ({ ...x, owner: 'any' }) }] : []),
    ...q.notOwners.map((id) => ({ kind: 'owner' as const, mode: 'out' as const, id, remove: (x: IncidentQuery) => ({ ...x, notOwners: without(x.notOwners, [id]) }) })),
    ...(UUID.test(q.team) ? [{ kind: 'group' as const, mode: 'in' as const, id: q.team, remove: (x: IncidentQuery) => ({ ...x, team: 'any' }) }] : []),
    ...q.notTeams.map((id) => ({ kind: 'group' as const, mode: 'out' as const, id, remove: (x: IncidentQuery) => ({ ...x, notTeams: without(x.notTeams, [id]) }) })),
  ];
  const back = at !== null && at === window.location.hash;
  if (!items.length && !back) return null;
  return (
    <div className="pivot-bar" role="group" aria-label={t('pivots.label')} data-testid="pivot-bar">
      {back && (
        <button type="button" className="ghost" onClick={pivotBack} data-testid="pivot-back">
          ← {t('pivots.back')}
        </button>
      )}
      {items.map((i) => (
        <span key={`${i.kind}-${i.mode}-${i.id}`} className={`pivot-chip is-${i.mode}`} data-testid="pivot-chip">
          <span className="pivot-kind">{t(`pivots.${i.mode === 'in' ? 'only' : 'not'}.${i.kind}`)}</span>
          <span className="pivot-name">
            <Name kind={i.kind} id={i.id} instance={instance} />
          </span>
          <button type="button" className="icon" aria-label={t('pivots.remove')} title={t('pivots.remove')} onClick={() => setQuery(i.remove)}>
            ×
          </button>
        </span>
      ))}
    </div>
  );
}
