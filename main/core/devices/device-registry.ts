/**
 * DeviceRegistry: every phone the bridge knows, identified by (ADB server, serial) and a
 * stable `device_id` derived from both. Holds the state adb reports (`device`, `offline`,
 * `unauthorized`, `gone`) and facts read once a phone is ready (model, Android version).
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';

export type DeviceState = 'device' | 'offline' | 'unauthorized' | 'gone';

export interface DeviceFacts {
  model: string | null;
  /** ro.serialno: the phone's own serial (for a TCP phone the adb serial is only its address). */
  hardwareSerial?: string | null;
  manufacturer: string | null;
  androidVersion: string | null;
  sdk: number | null;
}

export interface DeviceRecord extends DeviceFacts {
  deviceId: string;
  serial: string;
  /** "host:port" of the ADB server the phone hangs off. */
  adbServer: string;
  state: DeviceState;
  /** adb's own type string when it is not one of ours (recovery, sideload, …). */
  rawState: string;
  transport: 'usb' | 'tcp';
  firstSeenAt: number;
  lastChangeAt: number;
  /** Why the phone is not usable, when it is not (shown in the UI). */
  reason: string | null;
  /**
   * When facts were last read from the phone by a real command in this process, since it last
   * became `device`; null until then. Bindings say `connected` only once this is set, so a
   * phone that just (re)appeared, or a binding restored after a restart, is verified first.
   */
  verifiedAt: number | null;
}

export function deviceIdFor(adbServer: string, serial: string): string {
  return `dev_${createHash('sha256').update(`${adbServer}\n${serial}`).digest('base64url').slice(0, 12)}`;
}

export function transportOf(serial: string): 'usb' | 'tcp' {
  // adb names network phones HOST:PORT (IPv4, [IPv6] or a host name) or by their mDNS service.
  const hostPort = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9a-f:.]+\]):\d{1,5}$/i;
  return hostPort.test(serial) || /\._adb-tls-(?:connect|pairing)\._tcp/.test(serial) ? 'tcp' : 'usb';
}

/** A redacted hint of a serial: its last four letters/digits, e.g. "···4F2A". */
export function redactedHint(serial: string): string {
  const tail = serial
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(-4)
    .toUpperCase();
  return `···${tail}`;
}

/**
 * The hint shown for a phone. A TCP phone's adb serial is its network address, which must
 * not leak even in part: its own ro.serialno is used once read, else a tag hashed from the
 * address.
 */
export function deviceHint(device: Pick<DeviceRecord, 'serial'> & { hardwareSerial?: string | null }): string {
  if (transportOf(device.serial) === 'usb') return redactedHint(device.serial);
  if (device.hardwareSerial) return redactedHint(device.hardwareSerial);
  const tag = createHash('sha256').update(device.serial).digest('hex').slice(0, 4).toUpperCase();
  return `···${tag}`;
}

/** Display-level name with a redacted hint, e.g. "Pixel 7 ···4F2A" (never the serial or address). */
export function displayName(
  device: Pick<DeviceRecord, 'model' | 'serial'> & { hardwareSerial?: string | null },
): string {
  return `${device.model ?? 'Android device'} ${deviceHint(device)}`;
}

export interface DeviceRegistryEvents {
  changed: [device: DeviceRecord, previous: DeviceState | undefined];
}

export class DeviceRegistry extends EventEmitter<DeviceRegistryEvents> {
  private readonly devices = new Map<string, DeviceRecord>();

  constructor(private readonly clock: () => number = Date.now) {
    super();
  }

  get(deviceId: string): DeviceRecord | undefined {
    return this.devices.get(deviceId);
  }

  list(): DeviceRecord[] {
    return [...this.devices.values()];
  }

  findBySerial(adbServer: string, serial: string): DeviceRecord | undefined {
    return this.devices.get(deviceIdFor(adbServer, serial));
  }

  upsertState(adbServer: string, serial: string, rawState: string, reason: string | null = null): DeviceRecord {
    const deviceId = deviceIdFor(adbServer, serial);
    const state = normalizeState(rawState);
    const now = this.clock();
    const existing = this.devices.get(deviceId);
    if (existing) {
      const previous = existing.state;
      if (previous === state && existing.reason === reason && existing.rawState === rawState) return existing;
      // Whatever answered before the phone left `device` has to be checked again.
      if (previous !== state) existing.verifiedAt = null;
      existing.state = state;
      existing.rawState = rawState;
      existing.reason = reason;
      existing.lastChangeAt = now;
      this.emit('changed', existing, previous);
      return existing;
    }
    const record: DeviceRecord = {
      deviceId,
      serial,
      adbServer,
      state,
      rawState,
      transport: transportOf(serial),
      firstSeenAt: now,
      lastChangeAt: now,
      reason,
      verifiedAt: null,
      model: null,
      hardwareSerial: null,
      manufacturer: null,
      androidVersion: null,
      sdk: null,
    };
    this.devices.set(deviceId, record);
    this.emit('changed', record, undefined);
    return record;
  }

  /** Facts read from the phone by a real command: the phone is verified (see `verifiedAt`). */
  setFacts(deviceId: string, facts: DeviceFacts): void {
    const record = this.devices.get(deviceId);
    if (!record) return;
    Object.assign(record, facts);
    if (record.state === 'device') record.verifiedAt = this.clock();
    this.emit('changed', record, record.state);
  }

  /** Marks every phone of one ADB server unusable (the server went away). */
  markServerDown(adbServer: string, reason: string): void {
    for (const device of this.list()) {
      if (device.adbServer === adbServer && device.state !== 'gone')
        this.upsertState(adbServer, device.serial, 'offline', reason);
    }
  }
}

function normalizeState(raw: string): DeviceState {
  if (raw === 'device' || raw === 'emulator') return 'device';
  if (raw === 'unauthorized') return 'unauthorized';
  if (raw === 'gone') return 'gone';
  return 'offline';
}
