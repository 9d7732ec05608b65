/**
 * The one way a view reads something from the bridge: fetched when the view opens and again
 * whenever `key` changes, on `refetch()`, and (with `refetchOn`) on the live events that say
 * it changed, or when the live channel comes back (events may have been missed meanwhile).
 * Fetches run one at a time through a RefetchScheduler: a refetch asked for during a fetch
 * runs once after it, and `minIntervalMs` spaces them, so a burst of events costs one fetch.
 * An answer that arrives after the view closed, or for another key, is dropped, so no view
 * writes state it no longer shows; the answer for one key is never shown under another.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminEvent, ApiError, BridgeApi } from './bridge-api';
import { toApiError } from './bridge-api';
import { useApi } from './api-context';
import { RefetchScheduler } from './refetch-scheduler';

export interface BridgeQuery<T> {
  /** The last answer for this key; null until the first arrives. */
  data: T | null;
  /** The last fetch failed (data may still hold the previous answer). */
  error: ApiError | null;
  loading: boolean;
  /** How many answers have arrived since the view opened, for views that follow this one. */
  version: number;
  refetch: () => void;
  /** Replaces the answer shown (what a save answered), without a fetch. */
  set: (next: T) => void;
}

export interface BridgeQueryOptions {
  /** Live events that make the answer stale. */
  refetchOn?: (event: AdminEvent) => boolean;
  /** The shortest time between the starts of two fetches (a long answer, a busy stream). */
  minIntervalMs?: number;
}

interface Answer<T> {
  key: string;
  value: T;
}

export function useBridgeQuery<T>(
  load: (api: BridgeApi) => Promise<T>,
  key: readonly unknown[],
  options: BridgeQueryOptions = {},
): BridgeQuery<T> {
  const api = useApi();
  const keyText = JSON.stringify(key);
  const [answer, setAnswer] = useState<Answer<T> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  // The latest `load` and `refetchOn`, read when a fetch starts: a caller's inline function is
  // new on every render and must not start a fetch by itself; `key` says when one is due.
  const latest = useRef({ load, refetchOn: options.refetchOn });
  useEffect(() => {
    latest.current = { load, refetchOn: options.refetchOn };
  });
  const scheduler = useRef<RefetchScheduler | null>(null);
  const refetch = useCallback(() => scheduler.current?.trigger(), []);
  const watches = options.refetchOn !== undefined;
  const minIntervalMs = options.minIntervalMs ?? 0;

  useEffect(() => {
    let current = true;
    setLoading(true);
    const fetches = new RefetchScheduler(async () => {
      try {
        const value = await latest.current.load(api);
        if (!current) return;
        setAnswer({ key: keyText, value });
        setError(null);
        setVersion((n) => n + 1);
      } catch (caught) {
        if (current) setError(toApiError(caught));
      } finally {
        if (current) setLoading(false);
      }
    }, minIntervalMs);
    scheduler.current = fetches;
    fetches.trigger();
    return () => {
      current = false;
      fetches.dispose();
      if (scheduler.current === fetches) scheduler.current = null;
    };
  }, [api, keyText, minIntervalMs]);

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

  const set = useCallback((next: T) => setAnswer({ key: keyText, value: next }), [keyText]);
  return { data: answer?.key === keyText ? answer.value : null, error, loading, version, refetch, set };
}
