// The command palette (cmdk): every declared action (those that cannot run now greyed), the
// instances, the views and the registry's resources, ranked by how well they match the text;
// `#398` opens that incident.
import { Command } from 'cmdk';
import { useState, type ReactNode } from 'react';
import { jumpTo } from '../actions/incidents';
import { RESOURCES } from '../../../src-shared/resources/index';
import { ACTIONS, appState, keyLabel, runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { sortByText } from '../i18n/format';
import { navigate } from '../router';
import { useInstances } from '../state/instances';
import { useUi } from '../state/ui';
import { displayName } from '../lib/instanceName';
import { viewOfLink } from '../links';

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

interface Entry {
  key: string;
  group: string;
  /** What is matched (and the item's identity). */
  value: string;
  disabled?: boolean;
  onSelect(): void;
  content: ReactNode;
}

/**
 * The entries matching the text, best first: by score (exact words, then word starts, then
 * substrings), those that can run now before those that cannot, else in their declared order;
 * groups in the order of their best entry. The palette ranks them itself: cmdk's own sort leaves
 * disabled entries where they were, above better matches.
 */
export function rankEntries<T extends { group: string; value: string; disabled?: boolean }>(entries: readonly T[], text: string): { group: string; entries: T[] }[] {
  const scored = entries.map((e, i) => ({ e, i, score: text.trim() ? paletteScore(e.value, text) : 1 })).filter((x) => x.score > 0);
  if (text.trim()) scored.sort((a, b) => b.score - a.score || Number(!!a.e.disabled) - Number(!!b.e.disabled) || a.i - b.i);
  const groups = new Map<string, T[]>();
  for (const x of scored) groups.set(x.e.group, [...(groups.get(x.e.group) ?? []), x.e]);
  return [...groups].map(([group, list]) => ({ group, entries: list }));
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
  // A console link pasted here opens its view (the instance it names included).
  const link = viewOfLink(text);
  const groups = ['incidents', 'view', 'go', 'app'] as const;
  const resources = sortByText(lang, RESOURCES, (r) => r.title[lang]);
  const entries: Entry[] = [
    ...groups.flatMap((g) =>
      ACTIONS.filter((a) => a.group === g && a.id !== 'palette.open').map(
        (a): Entry => ({
          key: a.id,
          group: g,
          value: `${t(a.label)} ${a.id}`,
          disabled: !a.predicate({ ...st, dialogOpen: false }),
          onSelect: () => {
            close();
            // The palette closes first, so actions opening dialogs see it closed.
            setTimeout(() => runAction(a.id), 0);
          },
          content: (
            <>
              <span>{t(a.label)}</span>
              {a.keys?.[0] && <kbd>{keyLabel(a.keys[0])}</kbd>}
            </>
          ),
        }),
      ),
    ),
    {
      key: 'instance:all',
      group: 'instances',
      value: `instance all ${t('instances.all')}`,
      onSelect: () => {
        select('all');
        close();
      },
      content: t('palette.switchTo', { name: t('instances.all') }),
    },
    ...instances.map(
      (i): Entry => ({
        key: `instance:${i.id}`,
        group: 'instances',
        value: `instance ${i.id} ${i.name} ${displayName(i, t)}`,
        onSelect: () => {
          select(i.id);
          close();
        },
        content: t('palette.switchTo', { name: displayName(i, t) }),
      }),
    ),
    ...resources.map(
      (r): Entry => ({
        key: `resource:${r.name}`,
        group: 'resources',
        value: `resource ${r.name} ${r.title.en} ${r.title.ru}`,
        onSelect: () => {
          navigate(r.name === 'service_asset_findings' ? { view: 'incidents' } : { view: 'resource', resource: r.name });
          close();
        },
        content: (
          <>
            <span>{r.title[lang]}</span>
            <span className="mono muted">{r.name}</span>
          </>
        ),
      }),
    ),
  ];
  const ranked = rankEntries(entries, text);
  return (
    <Command.Dialog
      open={open}
      onOpenChange={(o) => (o ? setOpen(true) : close())}
      label={t('palette.label')}
      className="palette-cmd"
      contentClassName="palette"
      overlayClassName="palette-overlay"
      loop
      shouldFilter={false}
    >
      <Command.Input placeholder={t('palette.placeholder')} aria-label={t('palette.label')} value={text} onValueChange={setText} />
      <Command.List>
        <Command.Empty>{t('palette.empty')}</Command.Empty>
        {link && (
          <Command.Item
            value={`link ${link}`}
            onSelect={() => {
              close();
              window.location.hash = link;
            }}
          >
            <span>{t('links.open')}</span>
            <span className="mono muted">{link.length > 60 ? `${link.slice(0, 60)}…` : link}</span>
          </Command.Item>
        )}
        {number && (
          <Command.Item
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
        {ranked.map(({ group, entries: list }) => (
          <Command.Group key={group} heading={t(`palette.groups.${group}`)}>
            {list.map((e) => (
              <Command.Item key={e.key} value={e.value} disabled={e.disabled} onSelect={e.onSelect}>
                {e.content}
              </Command.Item>
            ))}
          </Command.Group>
        ))}
      </Command.List>
    </Command.Dialog>
  );
}
