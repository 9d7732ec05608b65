/**
 * What just happened after the person answered something that then leaves the screen (a
 * pairing request, a held call): one sentence and the next step ("Pixel 7 is bound to xAgent —
 * Watch it"), kept until the person dismisses it or answers the next one, so an answered card
 * does not simply vanish.
 */
import { useT } from '../i18n/i18n-context';

export interface Done {
  text: string;
  /** The next step: where it leads, its words and tooltip. */
  next?: { href: string; text: string; title: string };
}

export function DoneNote(props: {
  done: Done | null;
  onDismiss: () => void;
  testId: string;
}): React.JSX.Element | null {
  const { t } = useT();
  const { done } = props;
  if (!done) return null;
  return (
    <p className="done-note" role="status" data-testid={props.testId}>
      <span data-testid={`${props.testId}-text`}>{done.text}</span>
      {done.next ? (
        <a
          className="btn btn-primary btn-small"
          href={done.next.href}
          title={done.next.title}
          data-testid={`${props.testId}-next`}
        >
          {done.next.text}
        </a>
      ) : null}
      <button
        type="button"
        className="btn btn-link btn-small"
        onClick={props.onDismiss}
        aria-label={t('common.dismiss')}
        title={t('common.dismiss')}
        data-testid={`${props.testId}-dismiss`}
      >
        ×
      </button>
    </p>
  );
}
