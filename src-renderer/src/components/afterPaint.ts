// Menus and popovers mounted after the console's first paint. A Radix trigger's anchor and a
// closed menu's presence each update their state while React commits the tree that holds them,
// which makes React run every effect and render again before the browser paints: at opening,
// with the first rows, that was the whole tree's effects in the first frame. Until that frame is
// painted a trigger is a plain button of the same look and name; a click (or Enter, Space) on it
// mounts the menu at once and opens it, and focus on it moves to the menu's own trigger.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';

let painted = false;
let scheduled = false;
const waiting = new Set<() => void>();

function whenPainted(l: () => void): () => void {
  waiting.add(l);
  if (!scheduled) {
    scheduled = true;
    // The frame's paint comes after its animation frame callbacks: a task queued from one runs once it is on screen.
    requestAnimationFrame(() =>
      setTimeout(() => {
        painted = true;
        for (const w of [...waiting]) w();
        waiting.clear();
      }, 0),
    );
  }
  return () => waiting.delete(l);
}

export interface AfterPaint {
  /** The menu's own parts may be mounted. */
  ready: boolean;
  /** The plain button was clicked before the paint: the menu opens as it mounts. */
  openedEarly: boolean;
  /** The plain button's props: a closed trigger's state; a click opens, focus is carried over. */
  plain: { type: 'button'; 'aria-expanded': false; 'data-state': 'closed'; onClick(): void; onFocus(): void; onBlur(): void };
  /** For the menu's trigger: focused when the plain button had the focus. */
  triggerRef: RefObject<HTMLButtonElement | null>;
}

/** `onEarlyOpen`: what a click on the plain button does besides mounting the menu (a controlled popover opens itself). */
export function useAfterPaint(onEarlyOpen?: () => void): AfterPaint {
  const [ready, setReady] = useState(painted);
  const [openedEarly, setOpenedEarly] = useState(false);
  const focused = useRef(false);
  const triggerRef = useRef<HTMLButtonElement | null>(null);
  useEffect(() => (ready ? undefined : whenPainted(() => setReady(true))), [ready]);
  useLayoutEffect(() => {
    if (ready && focused.current) {
      focused.current = false;
      triggerRef.current?.focus();
    }
  }, [ready]);
  const early = useRef(onEarlyOpen);
  early.current = onEarlyOpen;
  const onClick = useCallback(() => {
    early.current?.();
    setOpenedEarly(true);
    setReady(true);
  }, []);
  const onFocus = useCallback(() => {
    focused.current = true;
  }, []);
  const onBlur = useCallback(() => {
    focused.current = false;
  }, []);
  return { ready, openedEarly, plain: { type: 'button', 'aria-expanded': false, 'data-state': 'closed', onClick, onFocus, onBlur }, triggerRef };
}

/** For parts that only need to wait (a closed menu's content): true once the first paint is done. */
export function usePainted(): boolean {
  const [ready, setReady] = useState(painted);
  useEffect(() => (ready ? undefined : whenPainted(() => setReady(true))), [ready]);
  return ready;
}
