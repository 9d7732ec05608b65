/**
 * ADB hosts as the person sees them (Settings → Hosts, `GET /admin/api/hosts`, `/metrics`): one
 * row per ADB server link, its state folded from the link's and, for an SSH host, the tunnel's
 * (a refused host key or sign-in outranks "reconnecting"), with its phones counted; and the
 * adding and removing of hosts while the bridge runs (devices/adb-hosts.ts), each request
 * checked here, once.
 */
import { z } from 'zod';
import type { AdminAddHostRequest, AdminAddHostResponse, AdminHost } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { AdbServerHealth } from '../devices/adb-server-link';
import type { DeviceRecord } from '../devices/device-registry';
import type { AdminRouter } from './admin-router';

export interface HostRouteDeps {
  adbLinks: readonly { getHealth(): AdbServerHealth }[];
  registry: { list(): DeviceRecord[] };
}

/** What the add and remove routes change (devices/adb-hosts.ts). */
export interface HostChangeDeps {
  add(request: AdminAddHostRequest): Promise<AdminAddHostResponse>;
  remove(address: string): Promise<unknown>;
}

const addHostSchema = z
  .object({
    url: z.string().min(1).max(500),
    key_path: z.string().min(1).max(4096).optional(),
    host_key_fingerprint: z
      .string()
      .regex(
        /^\s*SHA256:[A-Za-z0-9+/]{43}\s*$/,
        'host_key_fingerprint must be SHA256: and 43 base64 characters, as shown',
      )
      .optional(),
  })
  .strict();

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
  return deps.adbLinks.map((link) => hostView(link.getHealth(), devices));
}

/** One host's row; `devices`: the registry's list (read once for every host). */
export function hostView(h: AdbServerHealth, devices: readonly DeviceRecord[]): AdminHost {
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
    origin: h.origin,
  };
}

export function registerHostRoutes(router: AdminRouter, deps: HostRouteDeps & { hosts: HostChangeDeps }): void {
  router.add('GET /admin/api/hosts', () => ({ hosts: hostViews(deps) }));

  router.add('POST /admin/api/hosts', async ({ request }) => {
    const parsed = addHostSchema.safeParse(await request());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = String(issue?.path[0] ?? '');
      throw new BridgeError(
        'invalid_arguments',
        issue?.code === 'unrecognized_keys'
          ? `${issue.keys.join(', ').slice(0, 60)} is not a field of a host (only url, key_path, host_key_fingerprint)`
          : `${field || 'the body'}: ${issue?.message ?? 'invalid'}`,
        field ? { field } : undefined,
      );
    }
    const { url, key_path, host_key_fingerprint } = parsed.data;
    return deps.hosts.add({
      url,
      ...(key_path !== undefined ? { key_path } : {}),
      ...(host_key_fingerprint !== undefined ? { host_key_fingerprint: host_key_fingerprint.trim() } : {}),
    });
  });

  router.add('DELETE /admin/api/hosts/:address', async ({ params }) => {
    await deps.hosts.remove(params.address);
    return { status: 'removed' };
  });
}
