// The command palette (cmdk): every declared action that applies now, the instances, the views
// and the registry's resources.
import { Command } from 'cmdk';
import { useState } from 'react';
import { jumpTo } from '../actions/incidents';
import { RESOURCES } from '../../../src-shared/resources/index';
import { ACTIONS, appState, keyLabel, runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { sortByText } from '../i18n/format';
import { navigate } from '../router';
import { useInstances } from '../state/instances';
import { useUi } from '../state/ui';
import { displayName } from '../lib/instanceName';

/** Ranks exact words first, then words starting with what was typed, then any substring. */
export function paletteScore(value: string, search: string, keywords: readonly string[] = []): number {
  const terms = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!terms.length) return 1;
  const text = `${value} ${keywords.join(' ')}`.toLowerCase();
  const words = text.split(/[\s.,·:()«»"'/-]+/).filter(Boolean);
  let score = 0;
  for (const term of terms) {
    if (words.includes(term)) score += 3;
    else if (words.some((w) => w.startsWith(term))) score += 2;
    else if (text.includes(term)) score += 1;
    else return 0;
  }
  return score / (terms.length * 3);
}

export function Palette() {
  const { t, lang } = useI18n();
  const open = useUi((s) => s.paletteOpen);
  const setOpen = useUi((s) => s.setPalette);
  const instances = useInstances((s) => s.list);
  const select = useInstances((s) => s.select);
  const [text, setText] = useState('');
  if (!open) return null;
  const st = appState();
  const close = () => {
    setOpen(false);
    setText('');
  };
  const number = /^\s*#?(\d{1,12})\s*$/.exec(text);
  const groups = ['incidents', 'view', 'go', 'app'] as const;
  const resources = sortByText(lang, RESOURCES, (r) => r.title[lang]);
  return (
    <Command.Dialog
      open={open}
      onOpenChange={(o) => (o ? setOpen(true) : close())}
      label={t('palette.label')}
      className="palette-cmd"
      contentClassName="palette"
      overlayClassName="palette-overlay"
      loop
      filter={paletteScore}
    >
      <Command.Input placeholder={t('palette.placeholder')} aria-label={t('palette.label')} value={text} onValueChange={setText} />
      <Command.List>
        <Command.Empty>{t('palette.empty')}</Command.Empty>
        {number && (
          <Command.Item
            forceMount
            value={`#${number[1]}`}
            onSelect={() => {
              close();
              void jumpTo(Number(number[1]));
            }}
          >
            <span>{t('palette.openIncident', { n: number[1] })}</span>
            <kbd>Enter</kbd>
          </Command.Item>
        )}
        {groups.map((g) => (
          <Command.Group key={g} heading={t(`palette.groups.${g}`)}>
            {ACTIONS.filter((a) => a.group === g && a.id !== 'palette.open').map((a) => (
              <Command.Item
                key={a.id}
                value={`${t(a.label)} ${a.id}`}
                disabled={!a.predicate({ ...st, dialogOpen: false })}
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
              value={`instance ${i.id} ${i.name} ${displayName(i, t)}`}
              onSelect={() => {
                select(i.id);
                close();
              }}
            >
              {t('palette.switchTo', { name: displayName(i, t) })}
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
