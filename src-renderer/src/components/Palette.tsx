// The command palette (cmdk): every declared action that applies now, the instances, the views
// and the registry's resources.
import { Command } from 'cmdk';
import { RESOURCES } from '../../../src-shared/resources/index';
import { ACTIONS, actionContext, keyLabel, runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { sortByText } from '../i18n/format';
import { navigate } from '../router';
import { useInstances } from '../state/instances';
import { useUi } from '../state/ui';

export function Palette() {
  const { t, lang } = useI18n();
  const open = useUi((s) => s.paletteOpen);
  const setOpen = useUi((s) => s.setPalette);
  const instances = useInstances((s) => s.list);
  const select = useInstances((s) => s.select);
  if (!open) return null;
  const ctx = actionContext();
  const close = () => setOpen(false);
  const groups = ['incidents', 'view', 'go', 'app'] as const;
  const resources = sortByText(lang, RESOURCES, (r) => r.title[lang]);
  return (
    <Command.Dialog open={open} onOpenChange={setOpen} label={t('palette.label')} className="palette-cmd" contentClassName="palette" overlayClassName="palette-overlay" loop>
      <Command.Input placeholder={t('palette.placeholder')} aria-label={t('palette.label')} />
      <Command.List>
        <Command.Empty>{t('palette.empty')}</Command.Empty>
        {groups.map((g) => (
          <Command.Group key={g} heading={t(`palette.groups.${g}`)}>
            {ACTIONS.filter((a) => a.group === g && a.id !== 'palette.open' && a.enabled({ ...ctx, dialogOpen: false })).map((a) => (
              <Command.Item
                key={a.id}
                value={`${a.id} ${t(a.label)}`}
                onSelect={() => {
                  close();
                  // The palette closes first, so actions opening dialogs see it closed.
                  setTimeout(() => runAction(a.id), 0);
                }}
              >
                <span>{t(a.label)}</span>
                {a.keys?.[0] && <kbd>{keyLabel(a.keys[0])}</kbd>}
              </Command.Item>
            ))}
          </Command.Group>
        ))}
        <Command.Group heading={t('palette.groups.instances')}>
          <Command.Item
            value={`instance all ${t('instances.all')}`}
            onSelect={() => {
              select('all');
              close();
            }}
          >
            {t('palette.switchTo', { name: t('instances.all') })}
          </Command.Item>
          {instances.map((i) => (
            <Command.Item
              key={i.id}
              value={`instance ${i.id} ${i.name}`}
              onSelect={() => {
                select(i.id);
                close();
              }}
            >
              {t('palette.switchTo', { name: i.name })}
            </Command.Item>
          ))}
        </Command.Group>
        <Command.Group heading={t('palette.groups.resources')}>
          {resources.map((r) => (
            <Command.Item
              key={r.name}
              value={`resource ${r.name} ${r.title.en} ${r.title.ru}`}
              onSelect={() => {
                navigate(r.name === 'service_asset_findings' ? { view: 'incidents' } : { view: 'resource', resource: r.name });
                close();
              }}
            >
              <span>{r.title[lang]}</span>
              <span className="mono muted">{r.name}</span>
            </Command.Item>
          ))}
        </Command.Group>
      </Command.List>
    </Command.Dialog>
  );
}
