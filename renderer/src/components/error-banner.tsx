/**
 * Error displays: a page-level banner (bridge unreachable, with Retry) and an inline message
 * next to the form or button whose action failed. A known error code is explained in the UI's
 * language (catalogue area `errors`), the code itself shown unchanged, and the bridge's own
 * message (which may name a field or a fix) kept next to it.
 */
import { hasMessage } from '../../../main/contract/i18n';
import type { ApiError } from '../api/bridge-api';
import { useT, type I18n } from '../i18n/i18n-context';

/** The explanation of an error code in the UI's language, or null when the code is not known. */
export function explainError(t: I18n['t'], code: string): string | null {
  const key = `errors.${code}`;
  return hasMessage(key) ? t(key) : null;
}

export function ErrorBanner(props: {
  title: string;
  error: ApiError;
  onRetry?: () => void;
  testId?: string;
}): React.JSX.Element {
  const { t } = useT();
  return (
    <div className="banner banner-error" role="alert" data-testid={props.testId ?? 'error-banner'}>
      <div>
        <strong>{props.title}</strong> <span>{props.error.message}</span>
      </div>
      {props.onRetry ? (
        <button
          type="button"
          className="btn btn-small"
          onClick={props.onRetry}
          data-testid={`${props.testId ?? 'error-banner'}-retry`}
        >
          {t('common.retry')}
        </button>
      ) : null}
    </div>
  );
}

// Codes the UI made up itself: showing them adds nothing for the person.
const LOCAL_CODES = new Set(['unreachable', 'input_check', 'bad_response']);

export function ErrorText(props: { error: ApiError | null; testId?: string }): React.JSX.Element | null {
  const { t, locale } = useT();
  if (!props.error) return null;
  const { code, message } = props.error;
  // A refused input already says what is wrong, in the UI's language (lib checks take t).
  const explanation = code === 'input_check' ? null : explainError(t, code);
  // English keeps the bridge's own sentence (it is already the most precise); other
  // languages lead with the explanation and keep the bridge's words as detail.
  const lead = explanation !== null && locale !== 'en' ? explanation : message;
  const detail = lead === message ? null : message;
  return (
    <p className="error-text" role="alert" data-testid={props.testId} data-code={code}>
      {lead}
      {code && !LOCAL_CODES.has(code) ? <span className="error-code"> ({code})</span> : null}
      {detail ? <span className="error-detail"> {t('common.error.detail', { message: detail })}</span> : null}
    </p>
  );
}

export function WarningBanner(props: { messages: string[] }): React.JSX.Element | null {
  if (props.messages.length === 0) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="warning-banner">
      <ul>
        {props.messages.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    </div>
  );
}
