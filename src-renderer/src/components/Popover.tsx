// A button with a popover (Radix UI: focus moves in and returns to the button, Escape and
// outside clicks close it, placement kept on screen).
import * as RP from '@radix-ui/react-popover';
import { useState, type ReactNode } from 'react';
import { useAfterPaint } from './afterPaint';

export function Popover(props: {
  label: ReactNode;
  ariaLabel?: string;
  className?: string;
  buttonClass?: string;
  align?: 'left' | 'right';
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  // A plain button until the console's first paint (afterPaint.ts).
  const late = useAfterPaint(() => setOpen(true));
  if (!late.ready)
    return (
      <button className={props.buttonClass ?? ''} aria-label={props.ariaLabel} aria-haspopup="dialog" {...late.plain}>
        {props.label}
      </button>
    );
  return (
    <RP.Root open={open} onOpenChange={setOpen}>
      <RP.Trigger ref={late.triggerRef} type="button" className={props.buttonClass ?? ''} aria-label={props.ariaLabel}>
        {props.label}
      </RP.Trigger>
      <RP.Portal>
        <RP.Content className={`popover ${props.className ?? ''}`} align={props.align === 'right' ? 'end' : 'start'} sideOffset={4} collisionPadding={8} aria-label={props.ariaLabel}>
          {props.children(() => setOpen(false))}
        </RP.Content>
      </RP.Portal>
    </RP.Root>
  );
}
