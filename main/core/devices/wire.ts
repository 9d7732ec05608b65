/**
 * The devices' room wiring: the registry of phones, one link per ADB server (reached over SSH
 * where one is given as ssh://), and the LAN phones' manager. The registry tells the other
 * rooms `deviceChanged`; the console redraws on a link's health and on every phone change.
 */
import type { BridgeEventSink } from '../events/bridge-events';
import { DisposableStore, listen } from '../lifecycle/disposables';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import { AdbServerLink } from './adb-server-link';
import { DeviceRegistry, type DeviceRecord } from './device-registry';
import { LanDeviceManager } from './lan-devices';
import type { LanOptions } from './lan-reconnect-policy';
import { SshTunnels, type SshOptions } from './ssh/ssh-tunnels';
import type { SshAdbTunnel } from './ssh/ssh-adb-tunnel';
import { AdbHosts } from './adb-hosts';
import type { AdbServerHealth } from './adb-server-link';
import type { AdminHost } from '../../contract/admin-api';

/** An ADB server as the start options give it (config/core-options.ts AdbServerAddress). */
interface AdbServerAddress {
  host: string;
  port: number;
  ssh?: { user: string; host: string; port: number };
}

export interface DevicesPorts {
  /** The start options: the ADB servers, how ssh:// ones are reached, the LAN phones' policy. */
  options: {
    adbServers: readonly AdbServerAddress[];
    ssh?: SshOptions;
    lan?: LanOptions;
    adbCommandTimeoutMs: number;
    dataDir: string;
  };
  /** The embedder gave no ADB server: the bridge may start a local one on the default address. */
  autoStartLocalAdb: boolean;
  store: StateStore;
  events: BridgeEventSink;
  /** Something the console shows changed (the admin event hub's 'state'). */
  changed: () => void;
  /** A host's row as GET /admin/api/hosts shows it (admin/host-routes.ts). */
  hostView: (health: AdbServerHealth, devices: readonly DeviceRecord[]) => AdminHost;
  warn: (message: string) => void;
  logger: Logger;
  clock: () => number;
  onError: (error: unknown) => void;
}

export interface DevicesRoom {
  registry: DeviceRegistry;
  /** One array for the bridge's whole life: hosts added or removed at runtime change it in place (`hosts`). */
  adbLinks: AdbServerLink[];
  /** The ADB hosts given at start and those added in Settings → Hosts (kept in the store). */
  hosts: AdbHosts;
  lan: LanDeviceManager;
  /** Starts the hosts' links and the LAN manager; `close` stops them. */
  start(): void;
  close(): void;
  /** Removes the room's listeners (after every service stopped: what they report while stopping is still heard). */
  stop(): Promise<void>;
}

const isLocalHost = (host: string): boolean => host === '127.0.0.1' || host === 'localhost';

export function wireDevices(ports: DevicesPorts): DevicesRoom {
  const { logger, clock, options } = ports;
  const owned = new DisposableStore(ports.onError);
  const registry = new DeviceRegistry(clock, ports.events);
  const ssh = new SshTunnels(options.ssh, { dataDir: options.dataDir, logger, clock, warn: ports.warn });
  // An ssh:// host given at start without a way to sign in stops the start here, with the fix.
  const sshAuth = options.adbServers.some((s) => s.ssh) ? ssh.defaultAuth() : undefined;
  const makeLink = (
    server: { host: string; port: number },
    extra: { autoStart?: boolean; tunnel?: SshAdbTunnel; origin?: 'start' | 'added' },
  ): AdbServerLink =>
    new AdbServerLink({
      host: server.host,
      port: server.port,
      registry,
      logger,
      autoStart: extra.autoStart ?? false,
      commandTimeoutMs: options.adbCommandTimeoutMs,
      clock,
      ...(extra.tunnel ? { tunnel: extra.tunnel } : {}),
      ...(extra.origin ? { origin: extra.origin } : {}),
    });
  const adbLinks = options.adbServers.map((server, i) =>
    makeLink(server, {
      autoStart: !server.ssh && ports.autoStartLocalAdb && i === 0 && isLocalHost(server.host),
      ...(server.ssh && sshAuth ? { tunnel: ssh.tunnel({ ...server.ssh, adbPort: server.port }, sshAuth) } : {}),
    }),
  );
  const lan = new LanDeviceManager({
    store: ports.store,
    registry,
    links: adbLinks,
    logger,
    onChange: ports.changed,
    clock,
    ...(options.lan ? { options: options.lan } : {}),
  });
  const hosts = new AdbHosts({
    links: adbLinks,
    makeLink: (server, tunnel) => makeLink(server, { origin: 'added', ...(tunnel ? { tunnel } : {}) }),
    ssh,
    store: ports.store,
    registry,
    forgetLanPhones: (adbServer) => lan.forgetHost(adbServer),
    watch: (link) => listen(link, 'health', ports.changed),
    changed: ports.changed,
    warn: (message) => {
      ports.warn(message);
      logger.warn('adb host', { message });
    },
    view: (link) => ports.hostView(link.getHealth(), registry.list()),
    clock,
  });
  for (const link of adbLinks) owned.add(listen(link, 'health', ports.changed));
  owned.add(listen(registry, 'changed', ports.changed));
  return {
    registry,
    adbLinks,
    hosts,
    lan,
    start: () => {
      hosts.start();
      lan.start();
    },
    close: () => {
      lan.stop();
      hosts.stop();
    },
    stop: () => owned.dispose(),
  };
}
