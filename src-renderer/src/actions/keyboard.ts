// Keyboard shortcuts: one listener runs the first declared action whose key matches and which
// applies now. Letters match by physical key too, so shortcuts work in the Russian layout.
import { useLayoutEffect } from 'react';
import { ACTIONS, appState, isMac } from './registry';

interface Combo {
  mod: boolean;
  alt: boolean;
  shift: boolean;
  key: string;
}

function parse(key: string): Combo {
  const parts = key.split('+');
  const k = parts.pop()!;
  return { mod: parts.includes('Mod'), alt: parts.includes('Alt'), shift: parts.includes('Shift'), key: k };
}

const combos = new Map(ACTIONS.map((a) => [a.id, (a.keys ?? []).map(parse)]));

const CODE_OF: Record<string, string> = { '/': 'Slash', '?': 'Slash' };

export function matches(c: Combo, e: KeyboardEvent): boolean {
  const mod = isMac ? e.metaKey : e.ctrlKey;
  const other = isMac ? e.ctrlKey : e.metaKey;
  if (c.mod !== mod || other || c.alt !== e.altKey) return false;
  if (c.key.length === 1 && /[a-z]/i.test(c.key)) {
    if (c.shift !== e.shiftKey) return false;
    return e.key.toLowerCase() === c.key.toLowerCase() || e.code === `Key${c.key.toUpperCase()}`;
  }
  if (c.key.length === 1 && /[0-9]/.test(c.key)) return e.code === `Digit${c.key}` || e.key === c.key;
  if (c.key.length === 1) return e.key === c.key || (!e.shiftKey && e.code === CODE_OF[c.key] && !c.shift);
  return e.key === c.key && c.shift === e.shiftKey;
}

function isTyping(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable) return true;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  if (t instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(t.type);
  return false;
}

const activates = (t: EventTarget | null): boolean =>
  t instanceof HTMLElement && !!t.closest('button, a[href], summary, [role="option"], [role="tab"], [role="menuitem"], [role="checkbox"]');

export function handleKey(e: KeyboardEvent): boolean {
  if (e.defaultPrevented || e.isComposing) return false;
  const typing = isTyping(e.target);
  const s = appState();
  const inDialog = e.target instanceof HTMLElement && !!e.target.closest('dialog, [role="dialog"], [role="menu"], [role="listbox"]');
  for (const a of ACTIONS) {
    if ((typing || s.dialogOpen || inDialog) && !a.global) continue;
    const list = combos.get(a.id) ?? [];
    if (!list.some((c) => matches(c, e)) && !a.keyTest?.(e, s)) continue;
    if (e.key === 'Enter' && activates(e.target)) continue;
    if (!a.predicate(s)) continue;
    e.preventDefault();
    void a.perform(s);
    return true;
  }
  return false;
}

export function useKeyboard(): void {
  // Listening from the commit that first draws the console, before it is painted: a key pressed
  // as soon as the list shows is not lost while the rest of the first frame's effects run after it.
  useLayoutEffect(() => {
    const on = (e: KeyboardEvent) => void handleKey(e);
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);
}
