/**
 * The ADB hosts the bridge takes phones from, as one changing list: those given at start and
 * those a person adds or removes while it runs (Settings → Hosts, `POST`/`DELETE
 * /admin/api/hosts`), the added ones kept in the settings store and started again at every
 * start. Everything that reads the links (the shells, the hosts view, the LAN phones) holds
 * the same array, so an added host is seen at once and a removed one is gone at once.
 *
 * The one rule for an SSH host added here: its key is never trusted before a person has seen
 * it. The host is asked for its key first (no sign-in is offered); a key known_hosts or an
 * earlier pin vouches for goes ahead, a key they contradict is refused with its fingerprint,
 * and a key nobody vouches for is answered back for the person to compare and confirm by
 * sending its fingerprint again; only then is it pinned and the host added.
 */
import { isIP } from 'node:net';
import type { AdminAddHostRequest, AdminAddHostResponse, AdminHost } from '../../contract/admin-api';
import { exposedAdbServerWarning } from './adb-server-exposure';
import { BridgeError } from '../errors';
import type { AdbServerLink } from './adb-server-link';
import { HostKeyProbeError, probeHostKey } from './ssh/host-key-probe';
import type { SshAdbTunnel, SshAuth } from './ssh/ssh-adb-tunnel';
import { isSshTarget, parseSshTarget, sshAddress, type SshTarget } from './ssh/ssh-target';
import type { SshTunnels } from './ssh/ssh-tunnels';
import type { PersistedState } from '../store/state-store';

/** How long asking a host for its key may take (TCP connect and key exchange). */
const PROBE_TIMEOUT_MS = 10_000;

type SavedHost = NonNullable<PersistedState['settings']['adbHosts']>[number];

/** A host to add, parsed: a plain ADB server, or one on an SSH host's loopback. */
type ParsedHost = { kind: 'direct'; host: string; port: number } | { kind: 'ssh'; target: SshTarget };

export interface AdbHostsDeps {
  /** The shared list of links; those given at start are already in it. */
  links: AdbServerLink[];
  /** Makes a link for a host added at runtime (origin 'added'); through `tunnel` for an SSH host. */
  makeLink(server: { host: string; port: number }, tunnel?: SshAdbTunnel): AdbServerLink;
  ssh: Pick<SshTunnels, 'hostKeys' | 'defaultAuth' | 'authWithKeyFile' | 'tunnel'>;
  store: {
    get(): Pick<PersistedState, 'settings'>;
    update(mutate: (draft: Pick<PersistedState, 'settings'>) => void): void;
  };
  registry: { markServerDown(adbServer: string, reason: string): void };
  /**
   * A host is being removed, its link still running: forget the LAN phones saved under it
   * (disconnecting them from its ADB server). Resolves with their addresses.
   */
  forgetLanPhones(adbServer: string): Promise<string[]>;
  /** Subscribes to a link's health; returns the way to unsubscribe. */
  watch(link: AdbServerLink): () => void;
  /** The list of hosts changed (a host added or removed). */
  changed(): void;
  warn(message: string): void;
  /** The host's row as GET /admin/api/hosts shows it. */
  view(link: AdbServerLink): AdminHost;
  clock: () => number;
  /** Asks an SSH host for its key (tests may pass a slower or failing one). */
  probe?: (target: SshTarget, options: { timeoutMs: number }) => Promise<Buffer>;
}

/** Parses `HOST:PORT` or `ssh://USER@HOST[:PORT][?adb_port=N]`; throws invalid_arguments with what is wrong. */
export function parseHostUrl(text: string): ParsedHost {
  const given = text.trim();
  if (isSshTarget(given)) {
    try {
      return { kind: 'ssh', target: parseSshTarget(given) };
    } catch (error) {
      throw new BridgeError('invalid_arguments', error instanceof Error ? error.message : String(error));
    }
  }
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(given);
  const port = match?.[2] === undefined ? Number.NaN : Number(match[2]);
  if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new BridgeError(
      'invalid_arguments',
      `url must be HOST:PORT (an ADB server) or ssh://USER@HOST[:PORT] (got ${JSON.stringify(given.slice(0, 200))})`,
    );
  const host = match[1].replace(/^\[|\]$/g, '');
  if (host.includes(':') && isIP(host) !== 6)
    throw new BridgeError('invalid_arguments', `url has an IPv6 address that is not valid: ${JSON.stringify(host)}`);
  return { kind: 'direct', host, port };
}

function addressOf(parsed: ParsedHost): string {
  return parsed.kind === 'ssh' ? sshAddress(parsed.target) : `${parsed.host}:${parsed.port}`;
}

function asInvalid(error: unknown): BridgeError {
  return error instanceof BridgeError
    ? error
    : new BridgeError('invalid_arguments', error instanceof Error ? error.message : String(error));
}

export class AdbHosts {
  /** Addresses added at runtime: their link and how to stop watching it. */
  private readonly added = new Map<string, { link: AdbServerLink; unwatch: () => void }>();
  /** Adds under way (the key probe takes a moment): a second add of the same host is refused meanwhile. */
  private readonly adding = new Set<string>();
  private started = false;

  constructor(private readonly deps: AdbHostsDeps) {}

  /** The links at this moment (the shared array; read it, never keep a copy). */
  get links(): readonly AdbServerLink[] {
    return this.deps.links;
  }

  /**
   * Starts the saved hosts' links and every link given at start. A saved host that cannot be
   * made (its key file gone) is left in the store with a warning, so it can still be removed.
   */
  start(): void {
    this.started = true;
    for (const saved of this.saved()) {
      if (this.deps.links.some((l) => l.address === saved.url)) continue;
      try {
        const parsed = parseHostUrl(saved.url);
        const auth = parsed.kind === 'ssh' ? this.authFor(saved.keyPath ?? undefined) : undefined;
        this.attach(parsed, auth);
        const exposed =
          parsed.kind === 'direct' ? exposedAdbServerWarning({ host: parsed.host, port: parsed.port }) : null;
        if (exposed) this.deps.warn(exposed);
      } catch (error) {
        this.deps.warn(
          `The ADB host ${saved.url} added in Settings → Hosts could not be started: ${error instanceof Error ? error.message : String(error)}. Fix it, or remove the host there.`,
        );
      }
    }
    for (const link of this.deps.links) link.start();
  }

  /** Stops every link (those given at start too). */
  stop(): void {
    this.started = false;
    for (const link of this.deps.links) link.stop();
    for (const { unwatch } of this.added.values()) unwatch();
  }

  /** Adds a host, or answers the key to confirm first (see the module's rule). */
  async add(request: AdminAddHostRequest): Promise<AdminAddHostResponse> {
    const parsed = parseHostUrl(request.url);
    const address = addressOf(parsed);
    if (request.key_path !== undefined && parsed.kind !== 'ssh')
      throw new BridgeError('invalid_arguments', 'key_path is for ssh:// hosts only');
    this.refuseDuplicate(address);
    this.adding.add(address);
    try {
      let auth: SshAuth | undefined;
      if (parsed.kind === 'ssh') {
        auth = this.authFor(request.key_path);
        const confirm = await this.checkHostKey(parsed.target, request.host_key_fingerprint);
        if (confirm) return { status: 'confirm_host_key', address, host_key: confirm };
      }
      const link = this.attach(parsed, auth);
      const saved: SavedHost = { url: address, keyPath: request.key_path ?? null, addedAt: this.deps.clock() };
      this.deps.store.update((draft) => {
        draft.settings.adbHosts = [...(draft.settings.adbHosts ?? []).filter((h) => h.url !== address), saved];
      });
      if (this.started) link.start();
      this.deps.changed();
      const warning =
        parsed.kind === 'direct' ? exposedAdbServerWarning({ host: parsed.host, port: parsed.port }) : null;
      return { status: 'added', host: this.deps.view(link), warning };
    } finally {
      this.adding.delete(address);
    }
  }

  /**
   * Removes a host added at runtime: the LAN phones saved under it are forgotten (they were
   * connected through its ADB server and could not connect without it), then its link stops
   * (an SSH one's connection and loopback forward close) and its phones go offline saying so.
   * Hosts given at start stay. Resolves with the LAN phones' addresses forgotten.
   */
  async remove(address: string): Promise<{ lanForgotten: string[] }> {
    if (this.deps.links.some((l) => l.address === address && !this.added.has(address)))
      throw new BridgeError(
        'host_not_removable',
        `${address} was given at start (--adb or the desktop settings); start the bridge without it to remove it`,
      );
    const entry = this.added.get(address);
    const savedOnly = !entry && this.saved().some((h) => h.url === address);
    if (!entry && !savedOnly) throw new BridgeError('host_not_found', `no ADB host ${address} was added`);
    const lanForgotten = await this.deps.forgetLanPhones(address);
    // A second remove of the same host may have finished while the LAN phones were let go.
    if (entry && this.added.get(address) === entry) {
      entry.unwatch();
      entry.link.stop();
      this.added.delete(address);
      const at = this.deps.links.indexOf(entry.link);
      if (at >= 0) this.deps.links.splice(at, 1);
      this.deps.registry.markServerDown(address, `the ADB host ${address} was removed from the bridge`);
    }
    this.deps.store.update((draft) => {
      draft.settings.adbHosts = (draft.settings.adbHosts ?? []).filter((h) => h.url !== address);
    });
    this.deps.changed();
    return { lanForgotten };
  }

  private saved(): SavedHost[] {
    return this.deps.store.get().settings.adbHosts ?? [];
  }

  private refuseDuplicate(address: string): void {
    if (this.deps.links.some((l) => l.address === address) || this.adding.has(address))
      throw new BridgeError('host_exists', `the ADB host ${address} is already there`);
  }

  private authFor(keyPath: string | undefined): SshAuth {
    if (keyPath !== undefined && !keyPath.startsWith('/'))
      throw new BridgeError('invalid_arguments', `key_path must be an absolute path (got ${JSON.stringify(keyPath)})`);
    try {
      return keyPath === undefined ? this.deps.ssh.defaultAuth() : this.deps.ssh.authWithKeyFile(keyPath);
    } catch (error) {
      throw asInvalid(error);
    }
  }

  /**
   * Null when the key may be used (vouched for, or confirmed now and pinned); the key to show
   * the person when nobody vouches for it yet. Throws host_key_refused for a contradicted key.
   */
  private async checkHostKey(
    target: SshTarget,
    confirmed: string | undefined,
  ): Promise<{ type: string; fingerprint: string } | null> {
    let blob: Buffer;
    try {
      blob = await (this.deps.probe ?? probeHostKey)(target, { timeoutMs: PROBE_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof HostKeyProbeError) throw new BridgeError('unreachable', error.message);
      throw error;
    }
    const verdict = this.deps.ssh.hostKeys.check(target.host, target.port, blob);
    const presented = `${target.host}:${target.port} presented ${verdict.keyType} ${verdict.fingerprint}`;
    const hostKey = { type: verdict.keyType, fingerprint: verdict.fingerprint };
    if (verdict.ok === false)
      throw new BridgeError(
        'host_key_refused',
        `host key refused: ${presented}, but ${verdict.reason}. If the host's key was changed on purpose, update that entry; otherwise someone may be in between.`,
        { host_key: hostKey },
      );
    if (verdict.ok === true) return null;
    if (confirmed === undefined) return hostKey;
    if (confirmed.trim() !== verdict.fingerprint)
      throw new BridgeError(
        'host_key_refused',
        `host key refused: ${presented}, not the ${confirmed.trim().slice(0, 80)} that was confirmed`,
        { host_key: hostKey },
      );
    this.deps.ssh.hostKeys.pin(target.host, target.port, verdict.keyType, verdict.fingerprint);
    return null;
  }

  private attach(parsed: ParsedHost, auth: SshAuth | undefined): AdbServerLink {
    const link =
      parsed.kind === 'ssh'
        ? this.deps.makeLink(
            { host: '127.0.0.1', port: parsed.target.adbPort },
            this.deps.ssh.tunnel(parsed.target, auth ?? this.deps.ssh.defaultAuth()),
          )
        : this.deps.makeLink({ host: parsed.host, port: parsed.port });
    this.deps.links.push(link);
    this.added.set(link.address, { link, unwatch: this.deps.watch(link) });
    return link;
  }
}
