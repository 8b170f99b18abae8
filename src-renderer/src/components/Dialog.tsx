// A modal dialog on the native <dialog> element (focus trap, Escape, backdrop); the focus goes
// back where it was when the dialog closes.
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
