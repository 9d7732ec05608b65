/**
 * Error displays: a page-level banner (bridge unreachable, with Retry) and an inline message
 * next to the form or button whose action failed. Both show the bridge's own message.
 */
import type { ApiError } from '../api/bridge-api';

export function ErrorBanner(props: { title: string; error: ApiError; onRetry?: () => void; testId?: string }): React.JSX.Element {
  return (
    <div className="banner banner-error" role="alert" data-testid={props.testId ?? 'error-banner'}>
      <div>
        <strong>{props.title}</strong> <span>{props.error.message}</span>
      </div>
      {props.onRetry ? (
        <button type="button" className="btn btn-small" onClick={props.onRetry} data-testid={`${props.testId ?? 'error-banner'}-retry`}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

// Codes the UI made up itself: showing them adds nothing for the person.
const LOCAL_CODES = new Set(['unreachable', 'input_check', 'bad_response']);

export function ErrorText(props: { error: ApiError | null; testId?: string }): React.JSX.Element | null {
  if (!props.error) return null;
  return (
    <p className="error-text" role="alert" data-testid={props.testId}>
      {props.error.message}
      {props.error.code && !LOCAL_CODES.has(props.error.code) ? <span className="error-code"> ({props.error.code})</span> : null}
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
