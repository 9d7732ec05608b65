/**
 * One ADB server: an adbkit client, `track-devices` with reconnect and capped backoff, and
 * health for the UI. Device facts (model, Android version) are read once a phone is ready.
 * A server on another host may be reached through an SSH tunnel (ssh/ssh-adb-tunnel.ts): the
 * link is then named by the SSH address, its client talks to the tunnel's loopback end, and a
 * lost tunnel takes the host's phones offline with the tunnel's reason.
 */
import { EventEmitter } from 'node:events';
import Adb, { type Client, type Device } from '@devicefarmer/adbkit';
import type { Logger } from '../logging/logger';
import type { DeviceRegistry } from './device-registry';
import { withDeadline } from './deadline';
import { AdbDeviceShell } from './adb-device-shell';
import { parseGetprop } from './getprop';
import { reasonForAdbState } from './adb-state-reason';
import { BridgeError } from '../errors';
import type { SshAdbTunnel, SshLinkState } from './ssh/ssh-adb-tunnel';

export interface AdbServerHealth {
  address: string;
  status: 'connecting' | 'connected' | 'down';
  lastError: string | null;
  nextRetryAt: number | null;
  deviceCount: number;
  /** How the server is reached: straight over TCP, or through an SSH tunnel to the host's loopback. */
  via: 'direct' | 'ssh';
  /** The SSH link's own state (null for a direct link). */
  ssh: SshLinkState | null;
  /** The last `host:devices` round trip through the link, ms (null before the first one). */
  rttMs: number | null;
  /** Times the link came back after it had been connected. */
  reconnects: number;
  /** When `status` last changed. */
  since: number;
  /** Given at start (the command line, the desktop settings), or added at runtime by a person (removable). */
  origin: 'start' | 'added';
}

export interface AdbServerLinkOptions {
  host: string;
  port: number;
  registry: DeviceRegistry;
  logger: Logger;
  /** Only for the local default server on a desktop: let adbkit start `adb` when it is not running. */
  autoStart: boolean;
  commandTimeoutMs: number;
  clock?: () => number;
  /** Reach the server through this tunnel (its address names the link; host and port are then the far end's). */
  tunnel?: SshAdbTunnel;
  /** A host a person added at runtime (devices/adb-hosts.ts); 'start' when left out. */
  origin?: 'start' | 'added';
}

export class AdbServerLink extends EventEmitter<{ health: [AdbServerHealth] }> {
  readonly address: string;
  private clientValue: Client | undefined;
  private everConnected = false;
  private reconnects = 0;
  private rttMs: number | null = null;
  private stopTunnelWatch: (() => void) | undefined;
  private tunnelPort: number | undefined;
  private tracker: { end(): unknown; on(ev: string, cb: (...args: never[]) => void): unknown } | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private backoffMs = 250;
  private stopped = false;
  private health: AdbServerHealth;
  private readonly shells = new Map<string, AdbDeviceShell>();
  private readonly factsInFlight = new Set<string>();

  constructor(private readonly options: AdbServerLinkOptions) {
    super();
    this.address = options.tunnel?.address ?? `${options.host}:${options.port}`;
    // adbkit keeps the port it is made with: a tunnelled link makes its client once the
    // tunnel's loopback end is bound, and that end stays the same across SSH reconnects.
    if (!options.tunnel) this.clientValue = this.makeClient(options.host, options.port, options.autoStart);
    this.health = {
      address: this.address,
      status: 'connecting',
      lastError: null,
      nextRetryAt: null,
      deviceCount: 0,
      via: options.tunnel ? 'ssh' : 'direct',
      ssh: options.tunnel?.state() ?? null,
      rttMs: null,
      reconnects: 0,
      since: (options.clock ?? Date.now)(),
      origin: options.origin ?? 'start',
    };
  }

  /** The adbkit client; for a tunnelled link it exists once the tunnel's loopback end is bound (at start). */
  get client(): Client {
    if (!this.clientValue) throw new BridgeError('adb_unavailable', `the SSH link to ${this.address} is not open yet`);
    return this.clientValue;
  }

  private makeClient(host: string, port: number, autoStart: boolean): Client {
    const client = Adb.createClient({ host, port, bin: autoStart ? 'adb' : '/bin/false' });
    client.on('error', (error: Error) =>
      this.options.logger.debug('adb client error', { server: this.address, error: error.message }),
    );
    return client;
  }

  start(): void {
    this.stopped = false;
    const tunnel = this.options.tunnel;
    if (tunnel) {
      const onState = (state: SshLinkState): void => this.onTunnelState(state);
      tunnel.on('state', onState);
      this.stopTunnelWatch = () => tunnel.off('state', onState);
      tunnel.open().then(
        (port) => {
          if (this.stopped) return;
          // A restarted link's tunnel has a new loopback end: the client follows it once.
          if (!this.clientValue || this.tunnelPort !== port)
            this.clientValue = this.makeClient('127.0.0.1', port, false);
          this.tunnelPort = port;
          void this.connect();
        },
        (error: unknown) => this.onLost(`the SSH forward listener could not open: ${String(error)}`),
      );
    } else {
      void this.connect();
    }
    // adb's tracker announces new phones at once but a dropped TCP phone only at its next
    // reconnect attempt (~10 s); a light `host:devices` poll keeps states within a second.
    this.pollTimer = setInterval(() => void this.reconcile(), 1000);
    this.pollTimer.unref();
  }

  private async reconcile(): Promise<void> {
    if (this.polling || this.stopped || this.health.status !== 'connected') return;
    this.polling = true;
    try {
      await this.syncDeviceList(2000);
    } catch {
      // the tracker's own error path reports a lost server
    } finally {
      this.polling = false;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.tracker?.end();
    this.tracker = undefined;
    for (const shell of this.shells.values()) shell.close();
    this.shells.clear();
    this.stopTunnelWatch?.();
    this.stopTunnelWatch = undefined;
    this.options.tunnel?.close();
  }

  /** The tunnel's news: down takes the phones offline with its reason at once; up retries now. */
  private onTunnelState(state: SshLinkState): void {
    if (this.stopped) return;
    this.health = { ...this.health, ssh: state };
    if (state.status === 'connected') {
      if (this.health.status === 'down' && this.clientValue) {
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = undefined;
        void this.connect();
        return;
      }
    } else {
      this.options.registry.markServerDown(this.address, state.reason ?? 'SSH link down');
    }
    this.emit('health', this.getHealth());
  }

  getHealth(): AdbServerHealth {
    return {
      ...this.health,
      ssh: this.options.tunnel?.state() ?? null,
      rttMs: this.rttMs,
      reconnects: this.reconnects,
      deviceCount: this.options.registry.list().filter((d) => d.adbServer === this.address && d.state !== 'gone')
        .length,
    };
  }

  shell(serial: string): AdbDeviceShell {
    let shell = this.shells.get(serial);
    if (!shell) {
      shell = new AdbDeviceShell(this.client, serial);
      this.shells.set(serial, shell);
    }
    return shell;
  }

  /** Asks the server to connect a TCP phone (`host:connect:`). Resolves with adb's answer. */
  async connectTcp(host: string, port: number, timeoutMs: number): Promise<string> {
    return withDeadline(Promise.resolve(this.client.connect(host, port)), { timeoutMs, what: 'adb connect' });
  }

  async disconnectTcp(host: string, port: number, timeoutMs: number): Promise<void> {
    await withDeadline(Promise.resolve(this.client.disconnect(host, port)), {
      timeoutMs,
      what: 'adb disconnect',
    }).catch(() => undefined);
  }

  private setHealth(patch: Partial<AdbServerHealth>): void {
    const changed = patch.status !== undefined && patch.status !== this.health.status;
    this.health = { ...this.health, ...patch, ...(changed ? { since: (this.options.clock ?? Date.now)() } : {}) };
    this.emit('health', this.getHealth());
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.setHealth({ status: 'connecting', nextRetryAt: null });
    try {
      const tracker = await withDeadline(Promise.resolve(this.client.trackDevices()), {
        timeoutMs: 5000,
        what: 'adb track-devices',
      });
      if (this.stopped) {
        tracker.end();
        return;
      }
      this.tracker = tracker as unknown as typeof this.tracker;
      this.backoffMs = 250;
      if (this.everConnected) this.reconnects += 1;
      this.everConnected = true;
      this.setHealth({ status: 'connected', lastError: null });
      tracker.on('add', (device: Device) => this.onDevice(device));
      tracker.on('change', (device: Device) => this.onDevice(device));
      tracker.on('remove', (device: Device) => this.markGone(device.id));
      tracker.on('end', () => this.onLost('adb server closed the tracking connection'));
      tracker.on('error', (error: Error) => this.onLost(error.message));
      // Phones that vanished while we were away are gone now.
      await this.syncDeviceList(5000);
    } catch (error) {
      this.onLost(error instanceof Error ? error.message : String(error));
    }
  }

  private onLost(reason: string): void {
    if (this.stopped) return;
    this.tracker?.end();
    this.tracker = undefined;
    const tunnel = this.options.tunnel;
    // Through a tunnel that is down, the host's reason is the one that helps the person.
    this.options.registry.markServerDown(
      this.address,
      tunnel && !tunnel.isUp()
        ? (tunnel.state().reason ?? 'SSH link down')
        : tunnel
          ? 'ADB server on the SSH host unreachable'
          : 'ADB server unreachable',
    );
    for (const shell of this.shells.values()) shell.releaseSpare();
    if (this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    const now = (this.options.clock ?? Date.now)();
    this.setHealth({ status: 'down', lastError: reason.slice(0, 200), nextRetryAt: now + delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  /** Brings the registry in line with `host:devices`: listed phones updated, missing ones gone. */
  private async syncDeviceList(timeoutMs: number): Promise<void> {
    const startedAt = performance.now();
    const current: Device[] = await withDeadline<Device[]>(Promise.resolve(this.client.listDevices()), {
      timeoutMs,
      what: 'adb devices',
    });
    this.rttMs = Math.round((performance.now() - startedAt) * 10) / 10;
    // A host removed while the list was on its way: its phones stay as the removal left them.
    if (this.stopped) return;
    const ids = new Set(current.map((d) => d.id));
    for (const device of this.options.registry.list()) {
      if (device.adbServer === this.address && !ids.has(device.serial) && device.state !== 'gone')
        this.markGone(device.serial);
    }
    for (const device of current) this.onDevice(device);
  }

  private markGone(serial: string): void {
    if (this.stopped) return;
    this.options.registry.upsertState(this.address, serial, 'gone');
    this.shells.get(serial)?.releaseSpare();
  }

  private onDevice(device: Device): void {
    if (this.stopped) return;
    // adb's type is a sentence for a phone it cannot open ("no permissions (…); see […]").
    const record = this.options.registry.upsertState(
      this.address,
      device.id,
      device.type,
      reasonForAdbState(device.type)?.reason ?? null,
    );
    // A connection opened ahead for a phone that is not ready would only fail.
    if (record.state !== 'device') this.shells.get(device.id)?.releaseSpare();
    // Read (again) after every return to `device`: this is what verifies the phone (verifiedAt).
    if (record.state === 'device' && record.verifiedAt === null) void this.readFacts(record.deviceId, device.id);
  }

  private async readFacts(deviceId: string, serial: string): Promise<void> {
    if (this.factsInFlight.has(deviceId)) return;
    this.factsInFlight.add(deviceId);
    const stateStamp = this.options.registry.get(deviceId)?.lastChangeAt;
    try {
      const out = await this.shell(serial).run(['getprop'], { timeoutMs: this.options.commandTimeoutMs });
      // The phone left and came back while we read: that answer verifies nothing; the next poll reads again.
      if (this.options.registry.get(deviceId)?.lastChangeAt !== stateStamp) return;
      const props = parseGetprop(out.stdout.toString('utf8'));
      // A phone that restarts is listed as `device` as soon as adbd runs, long before Android
      // has booted: until `sys.boot_completed` is 1 its input, package and UI services fail or
      // hang. It stays unverified (bindings `offline`, "verifying the phone"); the next poll,
      // a second later, reads again.
      if (props.get('sys.boot_completed') !== '1') {
        this.options.logger.debug('phone still booting', { device: deviceId });
        return;
      }
      const sdk = Number.parseInt(props.get('ro.build.version.sdk') ?? '', 10);
      this.options.registry.setFacts(deviceId, {
        model: props.get('ro.product.model') ?? null,
        hardwareSerial: props.get('ro.serialno') ?? null,
        manufacturer: props.get('ro.product.manufacturer') ?? null,
        androidVersion: props.get('ro.build.version.release') ?? null,
        sdk: Number.isNaN(sdk) ? null : sdk,
        // A read-only property: set when the system image is built, never by a shell's setprop.
        simulated: props.get('ro.xagent.simulated') === '1',
      });
    } catch (error) {
      this.options.logger.debug('reading device facts failed', { device: deviceId, error: String(error) });
    } finally {
      this.factsInFlight.delete(deviceId);
    }
  }
}
