/**
 * Runs one user action (a button's API call) and tracks pending / error / result, so every
 * button can disable itself while busy and show the bridge's error message next to it.
 */
import { useCallback, useRef, useState } from 'react';
import type { ApiError } from '../api/bridge-api';
import { toApiError } from '../api/bridge-api';

export interface ActionState<R> {
  pending: boolean;
  error: ApiError | null;
  result: R | null;
}

export interface Action<A extends unknown[], R> extends ActionState<R> {
  run: (...args: A) => void;
  reset: () => void;
}

export function useAction<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
  onSuccess?: (result: R) => void,
): Action<A, R> {
  const [state, setState] = useState<ActionState<R>>({ pending: false, error: null, result: null });
  const fnRef = useRef(fn);
  const onSuccessRef = useRef(onSuccess);
  fnRef.current = fn;
  onSuccessRef.current = onSuccess;
  const inFlight = useRef(false);

  const run = useCallback((...args: A) => {
    // A double click must not send the action twice.
    if (inFlight.current) return;
    inFlight.current = true;
    setState({ pending: true, error: null, result: null });
    void fnRef.current(...args).then(
      (result) => {
        inFlight.current = false;
        setState({ pending: false, error: null, result });
        onSuccessRef.current?.(result);
      },
      (error: unknown) => {
        inFlight.current = false;
        setState({ pending: false, error: toApiError(error), result: null });
      },
    );
  }, []);

  const reset = useCallback(() => setState({ pending: false, error: null, result: null }), []);
  return { ...state, run, reset };
}
