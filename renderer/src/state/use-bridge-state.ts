/**
 * Keeps the bridge state (`GET state`) fresh: fetched once, then refetched on every live
 * event (≤ 4 fetches a second however bursty the events), and polled every 5 s while the
 * live channel is down so the screen never silently freezes.
 */
import { useEffect, useState } from 'react';
import type { AdminState, ApiError, LiveStatus } from '../api/bridge-api';
import { useApi } from '../api/api-context';
import { useBridgeQuery } from '../api/use-bridge-query';

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
const MIN_INTERVAL_MS = 250;

export function useBridgeState(): BridgeStateView {
  const query = useBridgeQuery((api) => api.getState(), [], {
    refetchOn: () => true,
    minIntervalMs: MIN_INTERVAL_MS,
  });
  const live = useLiveStatus();
  const { refetch } = query;

  useEffect(() => {
    if (live === 'live' || live === 'unauthorized') return;
    const timer = setInterval(refetch, FALLBACK_POLL_MS);
    return () => clearInterval(timer);
  }, [live, refetch]);

  return { state: query.data, error: query.error, live, version: query.version, refresh: refetch };
}

/** The live channel's status, followed while the caller is mounted. */
function useLiveStatus(): LiveStatus {
  const api = useApi();
  const [live, setLive] = useState<LiveStatus>('connecting');
  useEffect(
    () =>
      api.subscribe(
        () => undefined,
        (status) => setLive(status),
      ),
    [api],
  );
  return live;
}
