/**
 * Makes the SSH tunnels of the ADB hosts given as `ssh://`: the sign-in key is read and parsed
 * once, at creation, so a missing, unreadable or passphrase-protected key stops the start with
 * a precise message instead of failing at every reconnect.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { utils } from 'ssh2';
import type { Logger } from '../../logging/logger';
import { HostKeyPolicy } from './host-keys';
import { SshAdbTunnel, type SshAuth } from './ssh-adb-tunnel';
import type { SshTarget } from './ssh-target';

export interface SshOptions {
  /** A private key file (--ssh-key); unencrypted (an encrypted key belongs in ssh-agent). */
  privateKeyFile?: string;
  /** ssh-agent's socket (SSH_AUTH_SOCK). */
  agentSocket?: string;
  /** The person's known_hosts file (--ssh-known-hosts; the CLI defaults to ~/.ssh/known_hosts). */
  knownHostsFile?: string;
  /** Tunnel timings, for tests (defaults in ssh-adb-tunnel.ts). */
  keepaliveMs?: number;
  backoff?: { firstMs: number; maxMs: number };
}

/** The file in the data folder where host keys trusted on first use are pinned. */
export const SSH_PINS_FILE = 'ssh-host-keys.json';

function readKey(file: string): Buffer {
  let key: Buffer;
  try {
    key = readFileSync(file);
  } catch (error) {
    throw new TypeError(
      `the SSH key ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) {
    const encrypted = /encrypted|passphrase/i.test(parsed.message);
    throw new TypeError(
      encrypted
        ? `the SSH key ${file} is protected by a passphrase: add it to ssh-agent (ssh-add ${file}) and start the bridge without --ssh-key`
        : `the SSH key ${file} is not a private key the bridge can use: ${parsed.message}`,
    );
  }
  return key;
}

/**
 * Returns a maker of tunnels, or throws a TypeError when an `ssh://` host is given without a
 * way to sign in. Called only when at least one ADB host is reached over SSH.
 */
export function sshTunnelMaker(
  options: SshOptions | undefined,
  context: { dataDir: string; logger: Logger; clock: () => number; warn: (message: string) => void },
): (target: SshTarget) => SshAdbTunnel {
  const auth: SshAuth = {};
  if (options?.privateKeyFile) {
    auth.privateKey = readKey(options.privateKeyFile);
    auth.privateKeyOrigin = `the key ${options.privateKeyFile}`;
  }
  if (options?.agentSocket) auth.agentSocket = options.agentSocket;
  if (!auth.privateKey && !auth.agentSocket)
    throw new TypeError(
      'an ssh:// ADB host needs a key to sign in: give --ssh-key PATH, or run ssh-agent (SSH_AUTH_SOCK) with the key added',
    );
  const hostKeys = new HostKeyPolicy({
    knownHostsFile: options?.knownHostsFile,
    pinsFile: join(context.dataDir, SSH_PINS_FILE),
    clock: context.clock,
  });
  return (target) =>
    new SshAdbTunnel({
      target,
      auth,
      hostKeys,
      logger: context.logger,
      clock: context.clock,
      onFirstUse: (message) => {
        context.warn(message);
        context.logger.warn('ssh host key trusted on first use', { message });
      },
      ...(options?.keepaliveMs !== undefined ? { keepaliveMs: options.keepaliveMs } : {}),
      ...(options?.backoff ? { backoff: options.backoff } : {}),
    });
}
