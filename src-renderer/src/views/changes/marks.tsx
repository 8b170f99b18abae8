// The marks of changes waiting for the platform, shown outside the Changes view: the count of a
// snapshot instance (switcher, navigation) and the mark of an incident with changes (lists).
import { useEffect } from 'react';
import { useI18n } from '../../i18n';
import { formatNumber } from '../../i18n/format';
import { hrefOf } from '../../router';
import { useInstances } from '../../state/instances';
import { usePendingMark, useSync, watchSync } from '../../state/sync';
import './changes.css';

/** "14 changes waiting" beside a snapshot instance (the number alone when compact); nothing for other instances. */
export function SyncCount({ instanceId, compact = false }: { instanceId: string; compact?: boolean }) {
  const { t, lang } = useI18n();
  const mainId = useInstances((s) => s.mainId);
  const id = instanceId === 'main' ? (mainId ?? 'main') : instanceId;
  const snap = useSync((s) => s.snapshots[id]);
  useEffect(() => watchSync(), []);
  if (!snap) return null;
  const c = snap.counts;
  const text = t('sync.waiting', { count: c.total, n: formatNumber(lang, c.total) });
  return (
    <span
      className={`sync-count${c.conflict ? ' has-conflicts' : c.total ? ' has-changes' : ''}`}
      title={`${text} — ${snap.origin}`}
      aria-label={compact ? text : undefined}
      data-testid="sync-count"
    >
      {compact ? formatNumber(lang, c.total) : text}
    </span>
  );
}

/** The navigation's link to the Changes view, with the count of all snapshots; only when there are snapshots. */
export function ChangesNavLink({ on }: { on: boolean }) {
  const { t, lang } = useI18n();
  const snapshots = useSync((s) => s.snapshots);
  useEffect(() => watchSync(), []);
  const list = Object.values(snapshots);
  if (!list.length) return null;
  const total = list.reduce((n, s) => n + s.counts.total, 0);
  return (
    <a href={hrefOf({ view: 'changes' })} aria-current={on ? 'page' : undefined} className={on ? 'is-on' : ''}>
      {t('sync.nav')}
      {total > 0 && <span className="nav-count">{formatNumber(lang, total)}</span>}
    </a>
  );
}

/** A dot before an incident's title when it has changes waiting for the platform. */
export function PendingMark({ instanceId, id }: { instanceId: string; id: string }) {
  const marked = usePendingMark(instanceId, id);
  return marked ? <PendingIcon /> : null;
}

/** The mark itself (a row without one, nearly every row of a list, asks no translation). */
function PendingIcon() {
  const { t } = useI18n();
  return <span className="pending-mark" role="img" aria-label={t('sync.pendingMark')} title={t('sync.pendingMark')} data-testid="pending-mark" />;
}
