/**
 * A button for consequential actions: the first press asks, a second explicit button
 * confirms. Focus moves to the confirm button so keyboard users can answer at once, and
 * Escape or Cancel backs out.
 */
import { useEffect, useRef, useState } from 'react';
import { useT } from '../i18n/i18n-context';

export interface ConfirmButtonProps {
  label: string;
  /** The question shown in place of the button, e.g. "Revoke this binding?". */
  prompt: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  danger?: boolean;
  testId: string;
  confirmTestId: string;
  cancelTestId: string;
}

export function ConfirmButton(props: ConfirmButtonProps): React.JSX.Element {
  const { t } = useT();
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);

  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (wasAsking.current) triggerRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (!asking) {
    return (
      <button
        ref={triggerRef}
        type="button"
        className={`btn${props.danger ? ' btn-danger-outline' : ''}`}
        disabled={props.disabled}
        onClick={() => setAsking(true)}
        data-testid={props.testId}
      >
        {props.label}
      </button>
    );
  }
  return (
    <span
      className="confirm"
      role="group"
      aria-label={props.prompt}
      onKeyDown={(event) => {
        if (event.key === 'Escape') setAsking(false);
      }}
    >
      <span className="confirm-prompt">{props.prompt}</span>
      <button
        ref={confirmRef}
        type="button"
        className={`btn ${props.danger ? 'btn-danger' : 'btn-primary'}`}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
        data-testid={props.confirmTestId}
      >
        {props.confirmLabel}
      </button>
      <button type="button" className="btn" onClick={() => setAsking(false)} data-testid={props.cancelTestId}>
        {t('common.cancel')}
      </button>
    </span>
  );
}
