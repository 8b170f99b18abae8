// Outages, said at once: the server not answering (the heartbeat and every call notice it), or
// the instance shown not answering (its health). Each clears by itself when it answers again.
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n';
import { formatDuration } from '../i18n/format';
import { useConnection } from '../state/connection';
import { formatNumber } from '../i18n/format';
import { healthOf, instancesOf, useInstances } from '../state/instances';
import { queuedCount, useQueue } from '../state/queue';
import { displayName } from './InstanceSwitcher';

function useNow(every: number, on: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), every);
    return () => clearInterval(timer);
  }, [every, on]);
  return now;
}

export function ConnectionBanner() {
  const { t, lang } = useI18n();
  const up = useConnection((s) => s.up);
  const since = useConnection((s) => s.downSince);
  const checking = useConnection((s) => s.checking);
  const selected = useInstances((s) => s.selected);
  const list = useInstances((s) => s.list);
  const health = useInstances((s) => s.health);
  const mainId = useInstances((s) => s.mainId);
  const now = useNow(1000, up === false);
  const entries = useQueue((s) => s.entries);
  const waitingFor = (ids: string[] | null) => entries.filter((e) => e.state === 'waiting' && (!ids || ids.includes(e.instance))).reduce((n, e) => n + queuedCount(e), 0);
  const waitingNote = (n: number) =>
    n > 0 && (
      <span className="banner-queue" data-testid="banner-queue">
        {t('queue.bannerWaiting', { count: n, n: formatNumber(lang, n) })}{' '}
        <button type="button" className="link" onClick={() => useQueue.getState().setOpen(true)}>
          {t('queue.show')}
        </button>
      </span>
    );
  if (up === false) {
    return (
      <div className="banner is-down" role="alert" data-testid="outage">
        <strong>{t('outage.server')}</strong>
        <span>{t('outage.since', { time: formatDuration(lang, ((now - (since ?? now)) / 1000) | 0) })}</span>
        <span className="muted">{t('outage.retrying')}</span>
        {waitingNote(waitingFor(null))}
        <button type="button" disabled={checking} onClick={() => void useConnection.getState().check()}>
          {t('outage.checkAgain')}
        </button>
      </div>
    );
  }
  const down = instancesOf(selected, { list, mainId })
    .map((tag) => ({ tag, h: healthOf(tag.id, { health, mainId }) }))
    .filter((x) => x.h && !x.h.ok);
  if (!down.length) return null;
  return (
    <div className="banner is-down" role="alert" data-testid="instance-outage">
      {down.map(({ tag, h }) => {
        const inst = list.find((i) => (tag.id === 'main' ? i.kind === 'main' : i.id === tag.id));
        return (
          <span key={tag.id}>
            <strong>{t('outage.instance', { name: inst ? displayName(inst, t) : tag.name })}</strong> {t('outage.reason', { status: h!.status, error: h!.error.slice(0, 160) })}
          </span>
        );
      })}
      {waitingNote(waitingFor(down.map((d) => d.tag.id)))}
      <button type="button" onClick={() => void Promise.all(down.map((d) => useInstances.getState().check(d.tag.id)))}>
        {t('outage.checkAgain')}
      </button>
    </div>
  );
}
