// The instance switcher, always in the header: each instance with its health (answer of a cheap
// public API call, and its time), and "All instances" for the merged lists.
import { useEffect } from 'react';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { useInstances } from '../state/instances';
import { HealthDot } from './Badges';
import { Popover } from './Popover';
import { SyncCount } from '../views/changes/marks';

const HEALTH_EVERY_MS = 60_000;

export function InstanceSwitcher() {
  const { t, lang } = useI18n();
  const { list, selected, health, healthLoading, mainId, select, refreshHealth } = useInstances();
  useEffect(() => {
    const timer = setInterval(() => void useInstances.getState().refreshHealth(), HEALTH_EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  const current = selected === 'all' ? null : list.find((i) => (selected === 'main' ? i.kind === 'main' : i.id === selected));
  const name = selected === 'all' ? t('instances.all') : (current?.name ?? t('instances.main'));
  const okCount = list.filter((i) => health[i.id]?.ok).length;
  const known = list.some((i) => health[i.id]);
  const currentOk = selected === 'all' ? (known ? okCount === list.length : undefined) : current ? health[current.id]?.ok : undefined;
  const healthText = (id: string) => {
    const h = health[id];
    if (!h) return t('instances.unknown');
    return h.ok ? t('instances.ok', { ms: formatNumber(lang, h.time_ms, 0) }) : t('instances.down', { status: h.status, error: h.error || '' });
  };
  const currentHealth = selected === 'all' ? t('instances.allHealth', { ok: okCount, count: list.length }) : current ? healthText(current.id) : t('instances.unknown');
  return (
    <Popover
      className="instance-switcher"
      buttonClass="instance-button"
      role="listbox"
      ariaLabel={t('instances.label', { name })}
      label={
        <>
          <HealthDot ok={currentOk} title={currentHealth} />
          <span className="instance-name">{name}</span>
          {current && <SyncCount instanceId={current.id} compact />}
          <span className="caret" aria-hidden="true">
            ▾
          </span>
        </>
      }
    >
      {(close) => (
        <div className="instance-menu">
          <ul role="listbox" aria-label={t('instances.choose')}>
            <li
              role="option"
              aria-selected={selected === 'all'}
              tabIndex={0}
              className={selected === 'all' ? 'is-selected' : ''}
              onClick={() => {
                select('all');
                close();
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  select('all');
                  close();
                }
              }}
            >
              <HealthDot ok={known ? okCount === list.length : undefined} title={t('instances.allHealth', { ok: okCount, count: list.length })} />
              <span className="instance-name">{t('instances.all')}</span>
              <span className="muted">{t('instances.allHealth', { ok: okCount, count: list.length })}</span>
            </li>
            {list.map((i) => {
              const isSel = selected === i.id || (selected === 'main' && i.id === mainId);
              return (
                <li
                  key={i.id}
                  role="option"
                  aria-selected={isSel}
                  tabIndex={0}
                  className={isSel ? 'is-selected' : ''}
                  onClick={() => {
                    select(i.id);
                    close();
                  }}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' || e.key === ' ') {
                      e.preventDefault();
                      select(i.id);
                      close();
                    }
                  }}
                >
                  <HealthDot ok={health[i.id]?.ok} title={healthText(i.id)} />
                  <span className="instance-name">{i.name}</span>
                  <span className="tag">{t(`instances.kind.${i.kind}`)}</span>
                  <SyncCount instanceId={i.id} />
                  <span className="muted">{healthText(i.id)}</span>
                </li>
              );
            })}
          </ul>
          <div className="instance-foot">
            <button type="button" onClick={() => void refreshHealth()} disabled={healthLoading}>
              {healthLoading ? t('instances.checking') : t('instances.check')}
            </button>
          </div>
        </div>
      )}
    </Popover>
  );
}
