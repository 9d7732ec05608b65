/**
 * The audit trail for the Activity view: fetched on open and again whenever the bridge state
 * changes (actions end in state changes), but at most every 2 s — the trail can be long.
 * The typed-text setting comes with it (a policies change is a state change too), so the
 * view says how the entries keep typed text.
 */
import { useEffect, useRef, useState } from 'react';
import type { AuditTypedText } from '../../../../main/contract/admin-api';
import type { ApiError, AuditEntry } from '../../api/bridge-api';
import { toApiError } from '../../api/bridge-api';
import { RefetchScheduler } from '../../api/refetch-scheduler';
import { useApi } from '../../api/api-context';

export interface AuditView {
  entries: AuditEntry[] | null;
  /** How the trail keeps typed text (policies `audit_typed_text`); null until known. */
  typedText: AuditTypedText | null;
  error: ApiError | null;
  refresh: () => void;
}

export function useAudit(stateVersion: number): AuditView {
  const api = useApi();
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [typedText, setTypedText] = useState<AuditTypedText | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const scheduler = useRef<RefetchScheduler | null>(null);

  useEffect(() => {
    let disposed = false;
    const refetch = new RefetchScheduler(async () => {
      try {
        const [answer, policies] = await Promise.all([api.getAudit(), api.getPolicies().catch(() => null)]);
        if (disposed) return;
        setEntries(answer.entries);
        setTypedText(policies?.audit_typed_text ?? null);
        setError(null);
      } catch (caught) {
        if (!disposed) setError(toApiError(caught));
      }
    }, 2_000);
    scheduler.current = refetch;
    return () => {
      disposed = true;
      refetch.dispose();
      scheduler.current = null;
    };
  }, [api]);

  useEffect(() => {
    scheduler.current?.trigger();
  }, [api, stateVersion]);

  return { entries, typedText, error, refresh: () => scheduler.current?.trigger() };
}
