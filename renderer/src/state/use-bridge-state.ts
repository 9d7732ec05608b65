/**
 * Keeps the bridge state (`GET state`) fresh: fetched once, then refetched on every live
 * event through a RefetchScheduler (≤ 4 fetches a second however bursty the events), and
 * polled every 5 s while the live channel is down so the screen never silently freezes.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminState, ApiError, LiveStatus } from '../api/bridge-api';
import { useApi } from '../api/api-context';
import { toApiError } from '../api/bridge-api';
import { RefetchScheduler } from '../api/refetch-scheduler';

export interface BridgeStateView {
  state: AdminState | null;
  /** The last refetch failed (state may still hold the previous, stale answer). */
  error: ApiError | null;
  live: LiveStatus;
  /** Increments on every successful fetch, for views that follow state changes. */
  version: number;
  refresh: () => void;
}

const FALLBACK_POLL_MS = 5_000;

export function useBridgeState(): BridgeStateView {
  const api = useApi();
  const [state, setState] = useState<AdminState | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [live, setLive] = useState<LiveStatus>('connecting');
  const [version, setVersion] = useState(0);
  const scheduler = useRef<RefetchScheduler | null>(null);

  useEffect(() => {
    let disposed = false;
    const refetch = new RefetchScheduler(async () => {
      try {
        const next = await api.getState();
        if (disposed) return;
        setState(next);
        setError(null);
        setVersion((v) => v + 1);
      } catch (caught) {
        if (!disposed) setError(toApiError(caught));
      }
    }, 250);
    scheduler.current = refetch;
    refetch.trigger();
    const unsubscribe = api.subscribe(
      () => refetch.trigger(),
      (status) => {
        if (disposed) return;
        setLive(status);
        // Events may have been missed while the stream was down.
        if (status === 'live') refetch.trigger();
      },
    );
    return () => {
      disposed = true;
      refetch.dispose();
      unsubscribe();
      scheduler.current = null;
    };
  }, [api]);

  useEffect(() => {
    if (live === 'live' || live === 'unauthorized') return;
    const timer = setInterval(() => scheduler.current?.trigger(), FALLBACK_POLL_MS);
    return () => clearInterval(timer);
  }, [live]);

  const refresh = useCallback(() => scheduler.current?.trigger(), []);
  return { state, error, live, version, refresh };
}
