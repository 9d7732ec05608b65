/**
 * ADB hosts as the person sees them (Settings → Hosts, `GET /admin/api/hosts`, `/metrics`): one
 * row per ADB server link, its state folded from the link's and, for an SSH host, the tunnel's
 * (a refused host key or sign-in outranks "reconnecting"), with its phones counted.
 */
import type { AdminHost } from '../../contract/admin-api';
import type { AdbServerHealth } from '../devices/adb-server-link';
import type { DeviceRecord } from '../devices/device-registry';
import type { AdminRouter } from './admin-router';

export interface HostRouteDeps {
  adbLinks: readonly { getHealth(): AdbServerHealth }[];
  registry: { list(): DeviceRecord[] };
}

function stateOf(h: AdbServerHealth): Pick<AdminHost, 'state' | 'reason' | 'since'> {
  const ssh = h.ssh;
  if (ssh && ssh.status !== 'connected') return { state: ssh.status, reason: ssh.reason, since: ssh.since };
  if (h.status === 'connected') return { state: 'connected', reason: null, since: h.since };
  // Never up yet is "connecting"; down after a failure is "reconnecting", with adb's reason.
  const never = h.status === 'connecting' && h.reconnects === 0 && h.lastError === null;
  if (never) return { state: 'connecting', reason: null, since: h.since };
  return {
    state: 'reconnecting',
    reason: h.lastError ?? (ssh ? 'ADB server on the SSH host unreachable' : 'ADB server unreachable'),
    since: h.since,
  };
}

/** Every host, in the order the ADB servers were given. */
export function hostViews(deps: HostRouteDeps): AdminHost[] {
  const devices = deps.registry.list();
  return deps.adbLinks.map((link) => {
    const h = link.getHealth();
    const mine = devices.filter((d) => d.adbServer === h.address && d.state !== 'gone');
    const key = h.ssh?.hostKey ?? null;
    return {
      address: h.address,
      via: h.via,
      ...stateOf(h),
      phones: mine.length,
      phones_online: mine.filter((d) => d.state === 'device').length,
      rtt_ms: h.rttMs,
      // The ADB tracking coming back counts once, whether the SSH link or the server itself had gone.
      reconnects: h.reconnects,
      last_error: h.lastError ?? h.ssh?.reason ?? null,
      next_retry_at: h.ssh && h.ssh.status !== 'connected' ? h.ssh.nextRetryAt : h.nextRetryAt,
      host_key: key ? { type: key.type, fingerprint: key.fingerprint, pinned_by: key.pinnedBy } : null,
    };
  });
}

export function registerHostRoutes(router: AdminRouter, deps: HostRouteDeps): void {
  router.add('GET /admin/api/hosts', () => ({ hosts: hostViews(deps) }));
}
