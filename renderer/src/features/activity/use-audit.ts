/**
 * The audit trail for the Activity view: fetched on open and again whenever the bridge state
 * changes (actions end in state changes), but at most every 2 s — the trail can be long.
 * The typed-text setting comes with it (a policies change is a state change too), so the
 * view says how the entries keep typed text.
 */
import { useEffect, useRef } from 'react';
import type { AuditTypedText } from '../../../../main/contract/admin-api';
import type { ApiError, AuditEntry } from '../../api/bridge-api';
import { useBridgeQuery } from '../../api/use-bridge-query';

export interface AuditView {
  entries: AuditEntry[] | null;
  /** How the trail keeps typed text (policies `audit_typed_text`); null until known. */
  typedText: AuditTypedText | null;
  error: ApiError | null;
  refresh: () => void;
}

const MIN_INTERVAL_MS = 2_000;

export function useAudit(stateVersion: number): AuditView {
  const query = useBridgeQuery(
    async (api) => {
      const [answer, policies] = await Promise.all([api.getAudit(), api.getPolicies().catch(() => null)]);
      return { entries: answer.entries, typedText: policies?.audit_typed_text ?? null };
    },
    [],
    { minIntervalMs: MIN_INTERVAL_MS },
  );
  const { refetch } = query;
  // The state the first fetch already follows is not a change.
  const followed = useRef(stateVersion);
  useEffect(() => {
    if (followed.current === stateVersion) return;
    followed.current = stateVersion;
    refetch();
  }, [stateVersion, refetch]);

  return {
    entries: query.data?.entries ?? null,
    typedText: query.data?.typedText ?? null,
    error: query.error,
    refresh: refetch,
  };
}
