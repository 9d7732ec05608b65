/**
 * DeviceRegistry: every phone the bridge knows, identified by (ADB server, serial) and a
 * stable `device_id` derived from both. Holds the state adb reports (`device`, `offline`,
 * `unauthorized`, `gone`) and facts read once a phone is ready (model, Android version).
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { BridgeEventSink } from '../events/bridge-events';

export type DeviceState = 'device' | 'offline' | 'unauthorized' | 'gone';

export interface DeviceFacts {
  model: string | null;
  /** ro.serialno: the phone's own serial (for a TCP phone the adb serial is only its address). */
  hardwareSerial?: string | null;
  manufacturer: string | null;
  androidVersion: string | null;
  sdk: number | null;
  /** A phone main/sim/ simulates (it says so in `ro.xagent.simulated`), not a phone in someone's hand. */
  simulated?: boolean;
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
  /**
   * The label when the phone's own ("Pixel 7 ···4F2A") is shared with another phone the bridge
   * knows: set by the registry so that every label within the bridge is unique (see `relabel`).
   */
  uniqueLabel?: string | null;
}

export function deviceIdFor(adbServer: string, serial: string): string {
  return `dev_${createHash('sha256').update(`${adbServer}\n${serial}`).digest('base64url').slice(0, 12)}`;
}

export function transportOf(serial: string): 'usb' | 'tcp' {
  // adb names network phones HOST:PORT (IPv4, [IPv6] or a host name) or by their mDNS service.
  const hostPort = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9a-f:.]+\]):\d{1,5}$/i;
  return hostPort.test(serial) || /\._adb-tls-(?:connect|pairing)\._tcp/.test(serial) ? 'tcp' : 'usb';
}

/** A redacted hint of a serial: its last four (or `length`) letters/digits, e.g. "···4F2A". */
export function redactedHint(serial: string, length = 4): string {
  const tail = serial
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(-length)
    .toUpperCase();
  return `···${tail}`;
}

/**
 * The hint shown for a phone. A TCP phone's adb serial is its network address, which must
 * not leak even in part: its own ro.serialno is used once read, else a tag hashed from the
 * address.
 */
export function deviceHint(
  device: Pick<DeviceRecord, 'serial'> & { hardwareSerial?: string | null },
  length = 4,
): string {
  if (transportOf(device.serial) === 'usb') return redactedHint(device.serial, length);
  if (device.hardwareSerial) return redactedHint(device.hardwareSerial, length);
  const tag = createHash('sha256').update(device.serial).digest('hex').slice(0, length).toUpperCase();
  return `···${tag}`;
}

type Nameable = Pick<DeviceRecord, 'model' | 'serial'> & { hardwareSerial?: string | null };

/** The phone's own label, before any other phone is considered: "Pixel 7 ···4F2A". */
function ownLabel(device: Nameable, hintLength = 4): string {
  return `${device.model ?? 'Android device'} ${deviceHint(device, hintLength)}`;
}

/**
 * Display-level name with a redacted hint, e.g. "Pixel 7 ···4F2A" (never the serial or
 * address), unique within the bridge (the registry's `uniqueLabel` when another phone shares it).
 */
export function displayName(device: Nameable & { uniqueLabel?: string | null }): string {
  return device.uniqueLabel ?? ownLabel(device);
}

/** How a host is named inside a label: an SSH host by its host name, a direct one by HOST:PORT. */
function hostTag(adbServer: string): string {
  const ssh = /^ssh:\/\/[^@]+@(\[[^\]]+\]|[^:/?]+)/.exec(adbServer);
  return ssh?.[1] ?? adbServer;
}

/** The longest a hint grows to tell phones apart before the host is named instead. */
const MAX_HINT_CHARS = 8;

/**
 * Labels that tell apart `group`, phones that share an own label, by the shortest longer hint
 * that differs for each ("Pixel 7 ···0P04F2A", "Pixel 7 ···1P04F2A"), `suffix` after it; null
 * when their own serials agree even on the longest.
 */
function longerHints(group: readonly DeviceRecord[], suffix: string): string[] | null {
  for (let length = 5; length <= MAX_HINT_CHARS; length++) {
    const labels = group.map((d) => `${ownLabel(d, length)}${suffix}`);
    if (new Set(labels).size === group.length) return labels;
  }
  return null;
}

/**
 * Unique labels for phones that share one: a longer hint when their serials differ further
 * back ("Pixel 7 ···0P04F2A", "Pixel 7 ···1P04F2A"); else the host ("Pixel 7 ···4F2A @rack-1"),
 * and on one host a longer hint again ("Pixel 7 ···0P04F2A @rack-1"); else, phones whose own
 * serials are the same on one host, a number in the order of their device ids. Null for a
 * phone whose own label is already unique. Phones with different own labels never affect each
 * other's labels, so the registry recomputes one group at a time.
 */
export function uniqueLabels(devices: readonly DeviceRecord[]): Map<string, string | null> {
  const result = new Map<string, string | null>();
  const groups = new Map<string, DeviceRecord[]>();
  for (const device of devices) {
    const base = ownLabel(device);
    const group = groups.get(base);
    if (group) group.push(device);
    else groups.set(base, [device]);
  }
  for (const [base, group] of groups) {
    if (group.length === 1) {
      result.set(group[0]!.deviceId, null);
      continue;
    }
    const longer = longerHints(group, '');
    if (longer) {
      group.forEach((d, i) => result.set(d.deviceId, longer[i]!));
      continue;
    }
    const byHost = new Map<string, DeviceRecord[]>();
    for (const device of [...group].sort((a, b) => a.deviceId.localeCompare(b.deviceId))) {
      const tag = ` @${hostTag(device.adbServer)}`;
      const same = byHost.get(tag);
      if (same) same.push(device);
      else byHost.set(tag, [device]);
    }
    for (const [tag, same] of byHost) {
      if (same.length === 1) {
        result.set(same[0]!.deviceId, `${base}${tag}`);
        continue;
      }
      const onHost = longerHints(same, tag);
      same.forEach((d, i) => result.set(d.deviceId, onHost?.[i] ?? `${base}${tag} #${i + 1}`));
    }
  }
  return result;
}

export interface DeviceRegistryEvents {
  changed: [device: DeviceRecord, previous: DeviceState | undefined];
}

export class DeviceRegistry extends EventEmitter<DeviceRegistryEvents> {
  private readonly devices = new Map<string, DeviceRecord>();
  /**
   * Phones by their own label ("Pixel 7 ···4F2A"), and each phone's: only a phone's old and new
   * group can change labels when it arrives or its facts are read, so only they are relabelled
   * (relabelling all 256 phones on each of their 512 arrivals and facts kept a core busy).
   */
  private readonly labelGroups = new Map<string, Set<DeviceRecord>>();
  private readonly ownLabels = new Map<string, string>();

  /** `events` hears `deviceChanged` after this registry's own listeners (events/bridge-events.ts). */
  constructor(
    private readonly clock: () => number = Date.now,
    private readonly events?: BridgeEventSink,
  ) {
    super();
  }

  private announce(device: DeviceRecord, previous: DeviceState | undefined): void {
    this.emit('changed', device, previous);
    this.events?.emit('deviceChanged', { deviceId: device.deviceId, ready: device.state === 'device' });
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
      this.announce(existing, previous);
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
      uniqueLabel: null,
      model: null,
      hardwareSerial: null,
      manufacturer: null,
      androidVersion: null,
      sdk: null,
    };
    this.devices.set(deviceId, record);
    this.relabel(record);
    this.announce(record, undefined);
    return record;
  }

  /** Facts read from the phone by a real command: the phone is verified (see `verifiedAt`). */
  setFacts(deviceId: string, facts: DeviceFacts): void {
    const record = this.devices.get(deviceId);
    if (!record) return;
    Object.assign(record, facts);
    if (record.state === 'device') record.verifiedAt = this.clock();
    this.relabel(record);
    this.announce(record, record.state);
  }

  /**
   * Keeps every label unique within the bridge after a phone arrived or its facts (model,
   * own serial) were read: its old and new groups of phones sharing an own label are
   * relabelled, and the other phones whose label changed are announced, so descriptors and the
   * console follow; `announced` is announced by the caller right after.
   */
  private relabel(announced: DeviceRecord): void {
    const label = ownLabel(announced);
    const before = this.ownLabels.get(announced.deviceId);
    if (before === label) return;
    this.ownLabels.set(announced.deviceId, label);
    const changed = new Set<DeviceRecord>();
    if (before !== undefined) {
      const old = this.labelGroups.get(before);
      old?.delete(announced);
      if (old?.size === 0) this.labelGroups.delete(before);
      else if (old) this.relabelGroup(old, changed);
    }
    const group = this.labelGroups.get(label) ?? new Set<DeviceRecord>();
    this.labelGroups.set(label, group);
    group.add(announced);
    this.relabelGroup(group, changed);
    changed.delete(announced);
    for (const device of changed) this.announce(device, device.state);
  }

  private relabelGroup(group: ReadonlySet<DeviceRecord>, changed: Set<DeviceRecord>): void {
    const labels = uniqueLabels([...group]);
    for (const device of group) {
      const label = labels.get(device.deviceId) ?? null;
      if ((device.uniqueLabel ?? null) === label) continue;
      device.uniqueLabel = label;
      changed.add(device);
    }
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
