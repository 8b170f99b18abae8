// A modal dialog on the native <dialog> element (focus trap, Escape, backdrop); the focus goes
// back where it was when the dialog closes. Ctrl+Enter (⌘Enter) submits it from any field: its
// form, else its primary button.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export function Dialog(props: { title: string; onClose(): void; children: ReactNode; wide?: boolean; footer?: ReactNode; className?: string; describedBy?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const { onClose } = props;
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    return () => {
      if (before && before.isConnected && before !== document.body) before.focus({ preventScroll: true });
    };
  }, []);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (!d.open) d.showModal();
    const cancel = (e: Event) => {
      e.preventDefault();
      onClose();
    };
    d.addEventListener('cancel', cancel);
    return () => d.removeEventListener('cancel', cancel);
  }, [onClose]);
  return (
    <dialog
      ref={ref}
      className={`dialog${props.wide ? ' is-wide' : ''}${props.className ? ` ${props.className}` : ''}`}
      aria-labelledby={titleId}
      aria-describedby={props.describedBy}
      onClick={(e) => e.target === ref.current && onClose()}
      onKeyDown={(e) => {
        if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
        const d = ref.current;
        if (!d) return;
        const form = (e.target as HTMLElement).closest('form') ?? d.querySelector('form');
        const primary = d.querySelector<HTMLButtonElement>('.dialog-footer button.primary, .dialog-actions button.primary');
        e.preventDefault();
        e.stopPropagation();
        if (form) form.requestSubmit();
        else if (primary && !primary.disabled) primary.click();
      }}
    >
      <div className="dialog-body">
        <h2 id={titleId} className="dialog-title">
          {props.title}
        </h2>
        {props.children}
      </div>
      {props.footer && <div className="dialog-footer">{props.footer}</div>}
    </dialog>
  );
}
