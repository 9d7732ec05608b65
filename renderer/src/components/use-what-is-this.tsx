/**
 * "What is this?" beside one option on a card: the option keeps one line (its name, state and
 * buttons) and what it does, costs or exposes opens under it on demand. A button, not a
 * <details>, so it sits inside the option's line and says whether it is open (aria-expanded);
 * the hook hands back the button for the line and the words for under it (null while closed).
 */
import { useId, useState } from 'react';
import { useT } from '../i18n/i18n-context';

export function useWhatIsThis(
  testId: string,
  words: React.ReactNode,
): { button: React.JSX.Element; text: React.JSX.Element | null } {
  const { t } = useT();
  const [open, setOpen] = useState(false);
  const id = useId();
  return {
    button: (
      <button
        type="button"
        className="btn-what"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
        data-testid={testId}
      >
        {open ? t('common.whatIsThisHide') : t('common.whatIsThis')}
      </button>
    ),
    text: open ? (
      <div className="what-is-this muted small" id={id} data-testid={`${testId}-text`}>
        {words}
      </div>
    ) : null,
  };
}
