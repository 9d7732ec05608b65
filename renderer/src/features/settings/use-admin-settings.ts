/**
 * The bridge's settings (GET /admin/api/settings) for a view: loaded when the view opens,
 * again on `retry`, replaced by what a save answers (`set`).
 */
import type { AdminSettings } from '../../../../main/contract/admin-api';
import type { ApiError } from '../../api/bridge-api';
import { useBridgeQuery } from '../../api/use-bridge-query';

export function useAdminSettings(): {
  settings: AdminSettings | null;
  error: ApiError | null;
  retry: () => void;
  set: (next: AdminSettings) => void;
} {
  const query = useBridgeQuery((api) => api.getSettings(), []);
  return { settings: query.data, error: query.error, retry: query.refetch, set: query.set };
}
