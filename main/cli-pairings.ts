/**
 * The terminal's word on pairing requests (serve, demo): each request is announced as it
 * arrives — who asks, for which phone, its code — with the console link that opens Pairing
 * requests, so a person watching the terminal knows there is something to approve. A request
 * whose code was refreshed is announced again with its new code (the one xAgent shows now).
 */
import type { AuthSession } from './core/bindings/auth-sessions';
import { displayName, type DeviceRegistry } from './core/devices/device-registry';
import { consoleLink } from './contract/console-route';

/** The pending requests and their "changed" event (core/bindings/binding-service.ts). */
export interface PairingSource {
  pendingSessions(): AuthSession[];
  on(event: 'changed', listener: () => void): unknown;
  off(event: 'changed', listener: () => void): unknown;
}

/** Two ends of an id (`cch_Ab3…x9Qz`), as the console shows it. */
function shortId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 7)}…${id.slice(-4)}` : id;
}

/** One request in plain words. `link`: the console page where it is approved. */
export function pairingLine(session: AuthSession, phone: string | null, link: string): string {
  const asker = `xAgent (channel ${shortId(session.channelId)})`;
  const target = phone ?? 'a phone you pick';
  return `Pairing request from ${asker} for ${target} — code ${session.code}; approve it in the console: ${link}`;
}

/**
 * Writes a line for every new pending request (and every new code) until the returned
 * function is called. `consoleUrl` ends in `/console/`; its links carry `adminToken`, as the
 * start-up line's does, so they open in a new tab too.
 */
export function announcePairings(
  deps: { bindings: PairingSource; registry: Pick<DeviceRegistry, 'get'> },
  consoleUrl: string,
  adminToken: string,
  write: (line: string) => void,
): () => void {
  const announced = new Set<string>();
  const link = consoleLink(consoleUrl, { section: 'pairings' }, adminToken);
  const check = (): void => {
    const pending = deps.bindings.pendingSessions();
    for (const session of pending) {
      const key = `${session.authSessionId}:${session.code}`;
      if (announced.has(key)) continue;
      announced.add(key);
      const device = session.deviceId === null ? undefined : deps.registry.get(session.deviceId);
      write(pairingLine(session, device ? displayName(device) : null, link));
    }
    // Forget the ones that ended, so the set stays as small as the list of pending requests.
    const open = new Set(pending.map((s) => `${s.authSessionId}:${s.code}`));
    for (const key of announced) if (!open.has(key)) announced.delete(key);
  };
  // Read once the change is complete: a device claim is announced with its phone, and one
  // refused at once (a wrong access code) is never announced.
  let scheduled: NodeJS.Immediate | undefined;
  const schedule = (): void => {
    scheduled ??= setImmediate(() => {
      scheduled = undefined;
      check();
    });
  };
  deps.bindings.on('changed', schedule);
  check();
  return () => {
    deps.bindings.off('changed', schedule);
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
  };
}
