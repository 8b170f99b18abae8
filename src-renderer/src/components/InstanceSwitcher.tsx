// The instance switcher, always in the header: each instance with its health (the answer of a
// cheap public API call and its time, tested every few seconds), "All instances" for the merged
// lists, "Check again" (a real test of each instance now) and "Manage instances…".
import { useState } from 'react';
import { useI18n } from '../i18n';
import { displayName } from '../lib/instanceName';
import { formatNumber } from '../i18n/format';
import { answering, useConnection } from '../state/connection';
import { healthOf, useInstances } from '../state/instances';
import { useUi } from '../state/ui';
import { HealthDot } from './Badges';
import { SyncCount } from '../views/changes/marks';
import { DM } from './Menu';
import { useAfterPaint } from './afterPaint';

export { displayName } from '../lib/instanceName';

export function InstanceSwitcher() {
  const { t, lang } = useI18n();
  const { list, selected, health, mainId, select } = useInstances();
  const up = useConnection((s) => s.up);
  const [checking, setChecking] = useState(false);
  const current = selected === 'all' ? null : list.find((i) => (selected === 'main' ? i.kind === 'main' : i.id === selected));
  const name = selected === 'all' ? t('instances.all') : current ? displayName(current, t) : t('instances.main');
  // What answers, as the banners and the rows tell it: nothing while the server does not answer.
  const answers = (id: string) => answering(id, { up }, { health, mainId });
  const okCount = list.filter((i) => answers(i.id) === true).length;
  const known = up === false || list.some((i) => answers(i.id) !== undefined);
  // While the server does not answer nothing does, whether or not the instance list was read before it stopped.
  const currentOk = up === false ? false : selected === 'all' ? (known ? okCount === list.length : undefined) : current ? answers(current.id) : answers(selected);
  const healthText = (id: string) => {
    if (up === false) return t('instances.serverDown');
    const h = healthOf(id, { health, mainId });
    if (!h) return answers(id) ? t('instances.answering') : t('instances.unknown');
    return h.ok ? t('instances.ok', { ms: formatNumber(lang, h.time_ms, 0) }) : t('instances.down', { status: h.status, error: h.error || '' });
  };
  const currentHealth = selected === 'all' ? t('instances.allHealth', { ok: okCount, count: list.length }) : healthText(current ? current.id : selected);
  const value = selected === 'main' ? (mainId ?? 'main') : selected;
  const late = useAfterPaint();
  const checkAll = async () => {
    setChecking(true);
    try {
      await Promise.all(list.map((i) => useInstances.getState().check(i.id)));
    } finally {
      setChecking(false);
    }
  };
  const face = (
    <>
      <HealthDot ok={currentOk} title={currentHealth} />
      <span className="instance-name">{name}</span>
      {current && <SyncCount instanceId={current.id} compact />}
      <span className="caret" aria-hidden="true">
        ▾
      </span>
    </>
  );
  const healthAttr = currentOk === undefined ? 'unknown' : currentOk ? 'ok' : 'down';
  if (!late.ready)
    return (
      <button className="instance-button" aria-label={t('instances.label', { name })} data-health={healthAttr} aria-haspopup="menu" {...late.plain}>
        {face}
      </button>
    );
  return (
    <DM.Root defaultOpen={late.openedEarly}>
      <DM.Trigger ref={late.triggerRef} type="button" className="instance-button" aria-label={t('instances.label', { name })} data-health={healthAttr}>
        {face}
      </DM.Trigger>
      <DM.Portal>
        <DM.Content className="menu instance-menu" aria-label={t('instances.choose')} aria-labelledby={undefined} align="start" sideOffset={4} collisionPadding={8} loop>
          <DM.RadioGroup value={value} onValueChange={(v) => select(v)}>
            <DM.RadioItem value="all" className="menu-item instance-item">
              <HealthDot ok={known ? okCount === list.length : undefined} title={t('instances.allHealth', { ok: okCount, count: list.length })} />
              <span className="instance-name">{t('instances.all')}</span>
              <span className="muted">{t('instances.allHealth', { ok: okCount, count: list.length })}</span>
            </DM.RadioItem>
            {list.map((i) => (
              <DM.RadioItem key={i.id} value={i.id} className="menu-item instance-item" data-health={answers(i.id) === undefined ? 'unknown' : answers(i.id) ? 'ok' : 'down'}>
                <HealthDot ok={answers(i.id)} title={healthText(i.id)} />
                <span className="instance-name">{displayName(i, t)}</span>
                <span className="tag">{t(`instances.kind.${i.kind}`)}</span>
                <SyncCount instanceId={i.id} />
                <span className="muted">{healthText(i.id)}</span>
              </DM.RadioItem>
            ))}
          </DM.RadioGroup>
          <DM.Separator className="menu-sep" />
          <DM.Item
            className="menu-item"
            disabled={checking}
            onSelect={(e) => {
              e.preventDefault();
              void checkAll();
            }}
          >
            {checking ? t('instances.checking') : t('instances.check')}
          </DM.Item>
          <DM.Item className="menu-item" onSelect={() => useUi.getState().openDialog({ kind: 'instances' })}>
            {t('instances.manage')}
          </DM.Item>
        </DM.Content>
      </DM.Portal>
    </DM.Root>
  );
}
