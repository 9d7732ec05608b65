/**
 * An ADB host reached over SSH, as a person writes it: `ssh://user@host[:port]`, optionally
 * `?adb_port=N` when the host's ADB server is not on 5037. The bridge only ever forwards to
 * 127.0.0.1 on that host: the ADB server stays bound to the host's loopback, never exposed.
 */

export interface SshTarget {
  user: string;
  host: string;
  /** The SSH server's port on the host (22 by default). */
  port: number;
  /** The ADB server's port on the host's own loopback (5037 by default). */
  adbPort: number;
}

export const DEFAULT_SSH_PORT = 22;
export const DEFAULT_REMOTE_ADB_PORT = 5037;

function port(text: string, what: string, given: string): number {
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new TypeError(`${what} must be a port from 1 to 65535 (got ${JSON.stringify(given)})`);
  return value;
}

/** True when the text is meant as an SSH target (the caller then parses it with parseSshTarget). */
export function isSshTarget(text: string): boolean {
  return /^ssh:\/\//i.test(text.trim());
}

/**
 * Parses `ssh://user@host[:port][?adb_port=N]`. Throws a TypeError that names what is wrong;
 * no password may be given in the address (keys only).
 */
export function parseSshTarget(text: string): SshTarget {
  const given = text.trim();
  const match = /^ssh:\/\/([^@/?#\s:]+)@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::([^/?#]*))?\/?(?:\?([^#]*))?$/i.exec(
    given,
  );
  if (!match) {
    if (/^ssh:\/\/[^@]*:[^@]*@/i.test(given))
      throw new TypeError(
        'an ssh:// ADB host takes no password: the bridge signs in with a key (--ssh-key or ssh-agent)',
      );
    throw new TypeError(`an SSH ADB host must be ssh://USER@HOST[:PORT] (got ${JSON.stringify(given)})`);
  }
  const [, user = '', rawHost = '', rawPort, query] = match;
  let adbPort = DEFAULT_REMOTE_ADB_PORT;
  for (const pair of (query ?? '').split('&').filter((p) => p.length > 0)) {
    const [key, value = ''] = pair.split('=', 2);
    if (key !== 'adb_port')
      throw new TypeError(
        `an SSH ADB host takes only ?adb_port=PORT (got ${JSON.stringify(pair)} in ${JSON.stringify(given)})`,
      );
    adbPort = port(value, 'adb_port', given);
  }
  return {
    user,
    host: rawHost.replace(/^\[|\]$/g, ''),
    port: rawPort === undefined ? DEFAULT_SSH_PORT : port(rawPort, 'the SSH port', given),
    adbPort,
  };
}

/**
 * The host's stable name: what phones' device ids derive from and what the console and the
 * admin API show. It never contains the local forward port, which changes at every start.
 */
export function sshAddress(target: SshTarget): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const adb = target.adbPort === DEFAULT_REMOTE_ADB_PORT ? '' : `?adb_port=${target.adbPort}`;
  return `ssh://${target.user}@${host}:${target.port}${adb}`;
}
