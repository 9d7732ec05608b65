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
import { DeviceRegistry } from './device-registry';
import { LanDeviceManager } from './lan-devices';
import type { LanOptions } from './lan-reconnect-policy';
import { sshTunnelMaker, type SshOptions } from './ssh/ssh-tunnels';

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
  warn: (message: string) => void;
  logger: Logger;
  clock: () => number;
  onError: (error: unknown) => void;
}

export interface DevicesRoom {
  registry: DeviceRegistry;
  adbLinks: AdbServerLink[];
  lan: LanDeviceManager;
  /** Starts the links and the LAN manager; `close` stops them. */
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
  const sshTunnel = options.adbServers.some((s) => s.ssh)
    ? sshTunnelMaker(options.ssh, { dataDir: options.dataDir, logger, clock, warn: ports.warn })
    : undefined;
  const adbLinks = options.adbServers.map(
    (server, i) =>
      new AdbServerLink({
        host: server.host,
        port: server.port,
        registry,
        logger,
        autoStart: !server.ssh && ports.autoStartLocalAdb && i === 0 && isLocalHost(server.host),
        commandTimeoutMs: options.adbCommandTimeoutMs,
        clock,
        ...(server.ssh && sshTunnel ? { tunnel: sshTunnel({ ...server.ssh, adbPort: server.port }) } : {}),
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
  for (const link of adbLinks) owned.add(listen(link, 'health', ports.changed));
  owned.add(listen(registry, 'changed', ports.changed));
  return {
    registry,
    adbLinks,
    lan,
    start: () => {
      for (const link of adbLinks) link.start();
      lan.start();
    },
    close: () => {
      lan.stop();
      for (const link of adbLinks) link.stop();
    },
    stop: () => owned.dispose(),
  };
}
