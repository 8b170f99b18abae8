// Menus (Radix UI): a button's drop-down menu and a context menu, with arrow keys, typeahead,
// Home/End and the focus returned to where it was. Items are declared actions or plain items.
import * as CM from '@radix-ui/react-context-menu';
import * as DM from '@radix-ui/react-dropdown-menu';
import type { ReactNode } from 'react';
import { appState, getAction, keyLabel, runAction } from '../actions/registry';
import { useI18n } from '../i18n';
import { useActionState } from './ActionButton';
import { useAfterPaint, usePainted } from './afterPaint';

export interface MenuEntry {
  /** A declared action's id, or a plain item. */
  action?: string;
  label?: string;
  hint?: string;
  disabled?: boolean;
  onSelect?(): void;
  checked?: boolean;
  /** A line between groups of entries. */
  separator?: boolean;
}

function useEntries(entries: readonly MenuEntry[]) {
  const { t } = useI18n();
  useActionState();
  const s = appState();
  return entries.map((e) => {
    const a = e.action ? getAction(e.action) : undefined;
    return {
      separator: !!e.separator,
      key: e.action ?? e.label ?? (e.separator ? `sep-${Math.random()}` : ''),
      label: a ? t(a.label) : (e.label ?? ''),
      hint: a?.keys?.[0] ? keyLabel(a.keys[0]) : e.hint,
      disabled: a ? !a.predicate(s) : !!e.disabled,
      checked: e.checked,
      select: () => (a ? runAction(a.id) : e.onSelect?.()),
    };
  });
}

export function DropdownMenu(props: { trigger: ReactNode; label: string; triggerClass?: string; triggerTitle?: string; entries: readonly MenuEntry[]; align?: 'start' | 'end'; children?: ReactNode; contentClass?: string }) {
  const items = useEntries(props.entries);
  const late = useAfterPaint();
  if (!late.ready)
    return (
      <button className={props.triggerClass} title={props.triggerTitle} aria-haspopup="menu" {...late.plain}>
        {props.trigger}
      </button>
    );
  return (
    <DM.Root defaultOpen={late.openedEarly}>
      <DM.Trigger ref={late.triggerRef} type="button" className={props.triggerClass} title={props.triggerTitle}>
        {props.trigger}
      </DM.Trigger>
      <DM.Portal>
        <DM.Content className={`menu ${props.contentClass ?? ''}`} aria-label={props.label} aria-labelledby={undefined} align={props.align ?? 'end'} sideOffset={4} collisionPadding={8} loop>
          {props.children}
          {items.map((i) =>
            i.checked === undefined ? (
              <DM.Item key={i.key} className="menu-item" disabled={i.disabled} onSelect={i.select}>
                <span>{i.label}</span>
                {i.hint && <kbd>{i.hint}</kbd>}
              </DM.Item>
            ) : (
              <DM.CheckboxItem key={i.key} className="menu-item" checked={i.checked} disabled={i.disabled} onSelect={i.select}>
                <span className="check-mark" aria-hidden="true">
                  {i.checked ? '✓' : ''}
                </span>
                <span>{i.label}</span>
              </DM.CheckboxItem>
            ),
          )}
        </DM.Content>
      </DM.Portal>
    </DM.Root>
  );
}

export function ContextMenu(props: { label: string; entries: readonly MenuEntry[]; children: ReactNode }) {
  const items = useEntries(props.entries);
  // The trigger (the area the menu opens on) is there from the start; the closed menu's parts
  // after the first paint (afterPaint.ts).
  const painted = usePainted();
  return (
    <CM.Root>
      <CM.Trigger asChild>{props.children}</CM.Trigger>
      {painted && (
      <CM.Portal>
        <CM.Content className="menu row-menu" aria-label={props.label} aria-labelledby={undefined} collisionPadding={8} loop>
          {items.map((i, n) =>
            i.separator ? (
              <CM.Separator key={`sep-${n}`} className="menu-sep" />
            ) : (
              <CM.Item key={i.key} className="menu-item" disabled={i.disabled} onSelect={i.select}>
                <span>{i.label}</span>
                {i.hint && <kbd>{i.hint}</kbd>}
              </CM.Item>
            ),
          )}
        </CM.Content>
      </CM.Portal>
      )}
    </CM.Root>
  );
}

export { DM };
