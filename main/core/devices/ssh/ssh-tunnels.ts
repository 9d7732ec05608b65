/**
 * Makes the SSH tunnels of the ADB hosts given as `ssh://`: the sign-in key is read and parsed
 * once, at creation, so a missing, unreadable or passphrase-protected key stops the start with
 * a precise message instead of failing at every reconnect. A host added at runtime may bring
 * its own key file (Settings → Hosts, `POST /admin/api/hosts`); it is read and checked the
 * same way when it is added.
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

/** Reads and checks an unencrypted private key; throws a TypeError that says what to do. */
export function readSshKey(file: string): Buffer {
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

const NO_AUTH =
  'an ssh:// ADB host needs a key to sign in: give --ssh-key PATH, or run ssh-agent (SSH_AUTH_SOCK) with the key added';

export interface SshTunnelContext {
  dataDir: string;
  logger: Logger;
  clock: () => number;
  warn: (message: string) => void;
}

/** The SSH side of the ADB hosts: one host-key policy, the start options' sign-in, tunnels made from them. */
export class SshTunnels {
  readonly hostKeys: HostKeyPolicy;
  private startAuth: SshAuth | undefined;

  constructor(
    private readonly options: SshOptions | undefined,
    private readonly context: SshTunnelContext,
  ) {
    this.hostKeys = new HostKeyPolicy({
      knownHostsFile: options?.knownHostsFile,
      pinsFile: join(context.dataDir, SSH_PINS_FILE),
      clock: context.clock,
    });
  }

  /**
   * How the start options sign in (--ssh-key, ssh-agent); the key file is read the first time.
   * Throws a TypeError when they give no way to sign in or the key cannot be used.
   */
  defaultAuth(): SshAuth {
    if (this.startAuth) return this.startAuth;
    const auth: SshAuth = {};
    if (this.options?.privateKeyFile) {
      auth.privateKey = readSshKey(this.options.privateKeyFile);
      auth.privateKeyOrigin = `the key ${this.options.privateKeyFile}`;
    }
    if (this.options?.agentSocket) auth.agentSocket = this.options.agentSocket;
    if (!auth.privateKey && !auth.agentSocket) throw new TypeError(NO_AUTH);
    this.startAuth = auth;
    return auth;
  }

  /** Sign-in with one key file (a host added with its own key), ssh-agent still tried alongside. */
  authWithKeyFile(file: string): SshAuth {
    return {
      privateKey: readSshKey(file),
      privateKeyOrigin: `the key ${file}`,
      ...(this.options?.agentSocket ? { agentSocket: this.options.agentSocket } : {}),
    };
  }

  tunnel(target: SshTarget, auth: SshAuth): SshAdbTunnel {
    const { logger, clock, warn } = this.context;
    return new SshAdbTunnel({
      target,
      auth,
      hostKeys: this.hostKeys,
      logger,
      clock,
      onFirstUse: (message) => {
        warn(message);
        logger.warn('ssh host key trusted on first use', { message });
      },
      ...(this.options?.keepaliveMs !== undefined ? { keepaliveMs: this.options.keepaliveMs } : {}),
      ...(this.options?.backoff ? { backoff: this.options.backoff } : {}),
    });
  }
}

/**
 * Returns a maker of tunnels, or throws a TypeError when an `ssh://` host is given without a
 * way to sign in. Called only when at least one ADB host is reached over SSH.
 */
export function sshTunnelMaker(
  options: SshOptions | undefined,
  context: SshTunnelContext,
): (target: SshTarget) => SshAdbTunnel {
  const tunnels = new SshTunnels(options, context);
  const auth = tunnels.defaultAuth();
  return (target) => tunnels.tunnel(target, auth);
}
