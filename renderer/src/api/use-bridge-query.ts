/**
 * The one way a view reads something from the bridge: fetched when the view opens and again
 * whenever `key` changes, on `refetch()`, and (with `refetchOn`) on the live events that say
 * it changed, or when the live channel comes back (events may have been missed meanwhile).
 * An answer that arrives after the view closed, or after a newer fetch started, is dropped,
 * so no view writes state it no longer shows.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminEvent, ApiError, BridgeApi } from './bridge-api';
import { toApiError } from './bridge-api';
import { useApi } from './api-context';

export interface BridgeQuery<T> {
  /** The last answer; null until the first arrives. */
  data: T | null;
  /** The last fetch failed (data may still hold the previous answer). */
  error: ApiError | null;
  loading: boolean;
  refetch: () => void;
  /** Replaces the answer shown (what a save answered), without a fetch. */
  set: (next: T) => void;
}

export interface BridgeQueryOptions {
  /** Live events that make the answer stale. */
  refetchOn?: (event: AdminEvent) => boolean;
}

export function useBridgeQuery<T>(
  load: (api: BridgeApi) => Promise<T>,
  key: readonly unknown[],
  options: BridgeQueryOptions = {},
): BridgeQuery<T> {
  const api = useApi();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);
  // The latest `load` and `refetchOn`, read when a fetch starts: a caller's inline function is
  // new on every render and must not start a fetch by itself; `key` says when one is due.
  const latest = useRef({ load, refetchOn: options.refetchOn });
  useEffect(() => {
    latest.current = { load, refetchOn: options.refetchOn };
  });
  const keyText = JSON.stringify(key);
  const refetch = useCallback(() => setAttempt((n) => n + 1), []);
  const watches = options.refetchOn !== undefined;

  useEffect(() => {
    let current = true;
    setLoading(true);
    latest.current.load(api).then(
      (answer) => {
        if (!current) return;
        setData(answer);
        setError(null);
        setLoading(false);
      },
      (caught: unknown) => {
        if (!current) return;
        setError(toApiError(caught));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [api, keyText, attempt]);

  useEffect(() => {
    if (!watches) return;
    return api.subscribe(
      (event) => {
        if (latest.current.refetchOn?.(event)) refetch();
      },
      (status) => {
        if (status === 'live') refetch();
      },
    );
  }, [api, watches, refetch]);

  return { data, error, loading, refetch, set: setData };
}
