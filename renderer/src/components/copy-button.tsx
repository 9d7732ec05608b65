/**
 * Copies text to the clipboard and says so; when the clipboard is blocked it says that
 * instead of failing silently.
 */
import { useEffect, useState } from 'react';
import { useT } from '../i18n/i18n-context';

export function CopyButton(props: {
  getText: () => Promise<string> | string;
  label?: string;
  testId: string;
  disabled?: boolean;
}): React.JSX.Element {
  const { t } = useT();
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (status === 'idle') return;
    const timer = setTimeout(() => setStatus('idle'), 2500);
    return () => clearTimeout(timer);
  }, [status]);

  const copy = async (): Promise<void> => {
    try {
      const text = await props.getText();
      await navigator.clipboard.writeText(text);
      setStatus('copied');
    } catch {
      setStatus('failed');
    }
  };

  return (
    <span className="copy">
      <button
        type="button"
        className="btn"
        onClick={() => void copy()}
        data-testid={props.testId}
        disabled={props.disabled}
      >
        {props.label ?? t('common.copy')}
      </button>
      <span className="copy-status" role="status">
        {status === 'copied' ? t('common.copied') : status === 'failed' ? t('common.copyBlocked') : ''}
      </span>
    </span>
  );
}
