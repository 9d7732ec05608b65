/**
 * The bridge's settings (GET /admin/api/settings) for a view: loaded when the view opens,
 * again on `retry`, replaced by what a save answers (`set`); a load that ends after the view
 * closed is dropped.
 */
import { useEffect, useState } from 'react';
import type { AdminSettings } from '../../../../main/contract/admin-api';
import { toApiError, type ApiError, type BridgeApi } from '../../api/bridge-api';

export function useAdminSettings(api: BridgeApi): {
  settings: AdminSettings | null;
  error: ApiError | null;
  retry: () => void;
  set: (next: AdminSettings) => void;
} {
  const [settings, setSettings] = useState<AdminSettings | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let active = true;
    api.getSettings().then(
      (answer) => {
        if (!active) return;
        setSettings(answer);
        setError(null);
      },
      (caught: unknown) => {
        if (active) setError(toApiError(caught));
      },
    );
    return () => {
      active = false;
    };
  }, [api, attempt]);
  return { settings, error, retry: () => setAttempt((n) => n + 1), set: setSettings };
}
