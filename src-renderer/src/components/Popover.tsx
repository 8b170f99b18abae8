// A button with a popover below it; closes on Escape and outside clicks.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export function Popover(props: {
  label: ReactNode;
  ariaLabel?: string;
  className?: string;
  buttonClass?: string;
  role?: 'dialog' | 'listbox' | 'menu';
  align?: 'left' | 'right';
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const down = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        setOpen(false);
      }
    };
    document.addEventListener('mousedown', down);
    document.addEventListener('keydown', key, true);
    return () => {
      document.removeEventListener('mousedown', down);
      document.removeEventListener('keydown', key, true);
    };
  }, [open]);
  return (
    <div className={`popover-wrap ${props.className ?? ''}`} ref={ref}>
      <button
        type="button"
        className={props.buttonClass ?? ''}
        aria-haspopup={props.role ?? 'dialog'}
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-label={props.ariaLabel}
        onClick={() => setOpen(!open)}
      >
        {props.label}
      </button>
      {open && (
        <div id={id} className={`popover align-${props.align ?? 'left'}`} role={props.role === 'menu' ? 'menu' : props.role === 'listbox' ? undefined : 'dialog'} aria-label={props.ariaLabel}>
          {props.children(() => setOpen(false))}
        </div>
      )}
    </div>
  );
}
