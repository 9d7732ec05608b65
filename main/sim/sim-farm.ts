/**
 * A farm of simulated phones attached to a real adb server: one AdbdServer per phone on
 * 127.0.0.1, each attached with `host:connect`, started only once adb lists every one of
 * them as `device`. Also the helpers that (re)attach a single simulated phone, because adb
 * 1.0.41 does not bring a TCP device back quickly by itself (see reattachToAdb).
 */
import { AdbdServer } from './adbd-server';
import type { PhoneDevice } from './phone-device';
import { hostConnect, hostDevices, hostDisconnect, waitForDeviceStates } from './adb-host-client';
import type { AdbServerAddress } from './adb-host-client';

export interface SimFarmOptions {
  count: number;
  /** The adb server the phones attach to. */
  adb: AdbServerAddress;
  createPhone: (index: number) => PhoneDevice;
  /** Phone i listens on basePort + i; default: a free port each. */
  basePort?: number;
  /** Deadline for attaching all phones; default 30 s. */
  timeoutMs?: number;
}

export interface SimFarmPhone {
  index: number;
  /** The serial adb uses: 127.0.0.1:PORT (the phone's own ro.serialno may differ). */
  serial: string;
  port: number;
  server: AdbdServer;
  phone: PhoneDevice;
}

export interface SimFarm {
  phones: SimFarmPhone[];
  /** Brings a phone that went offline back: listens again and makes adb reattach it now. */
  bringOnline(index: number): Promise<void>;
  /**
   * Phone i restarts (QUIRKS.md "reboot"): its connection drops at once, its adbd is back
   * `downMs` later with the same serial, and adb lists it as `device` while Android still
   * boots: `sys.boot_completed` is set `bootMs` after that. Resolves once adb lists it again.
   */
  reboot(index: number, timing?: RebootTiming): Promise<void>;
  /** Disconnects every phone from adb and closes its server. Idempotent. */
  stop(): Promise<void>;
}

export interface RebootTiming {
  /** From the reboot until adbd answers again (the phone is absent or offline meanwhile). */
  downMs: number;
  /** From adbd answering until `sys.boot_completed=1`. */
  bootMs: number;
}

/**
 * How long a reboot takes: `usb-phone` about 40 s in all (issue #16's figure for a phone; adbd
 * starts early in boot, so adb lists the phone some 15 s in, well before boot completes);
 * `instant` keeps the order of events in about a second.
 */
export const REBOOT_TIMING: Readonly<Record<'instant' | 'usb-phone', RebootTiming>> = {
  instant: { downMs: 300, bootMs: 700 },
  'usb-phone': { downMs: 15_000, bootMs: 25_000 },
};

/** The serial adb gives a TCP device on this machine. */
export function serialForPort(port: number): string {
  return `127.0.0.1:${port}`;
}

function checkOptions(options: SimFarmOptions): void {
  if (!options || typeof options !== 'object') throw new TypeError('startSimFarm: options are required');
  if (!Number.isInteger(options.count) || options.count < 1) {
    throw new RangeError(`startSimFarm: count must be a positive integer, got ${String(options.count)}`);
  }
  const adb = options.adb as Partial<AdbServerAddress> | undefined;
  if (
    !adb ||
    typeof adb.host !== 'string' ||
    !Number.isInteger(adb.port) ||
    (adb.port ?? 0) < 1 ||
    (adb.port ?? 0) > 65535
  ) {
    throw new TypeError('startSimFarm: adb must be { host: string; port: 1-65535 }');
  }
  if (typeof options.createPhone !== 'function') throw new TypeError('startSimFarm: createPhone must be a function');
  if (options.basePort !== undefined) {
    const last = options.basePort + options.count - 1;
    if (!Number.isInteger(options.basePort) || options.basePort < 1 || last > 65535) {
      throw new RangeError(
        `startSimFarm: basePort ${String(options.basePort)} with count ${options.count} leaves 1-65535`,
      );
    }
  }
}

/** How long one connect attempt may take to show `device` before we start over. */
const ATTEMPT_WINDOW_MS = 2_000;

/**
 * `adb connect` one simulated phone and wait until adb lists it as `device`, retrying until
 * the deadline (see reattachToAdb for the race this survives). Returns the serial.
 */
export async function attachToAdb(
  adb: AdbServerAddress,
  port: number,
  options: { timeoutMs?: number } = {},
): Promise<string> {
  const serial = serialForPort(port);
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (let attempt = 1; ; attempt++) {
    const left = () => Math.max(1, deadline - Date.now());
    await hostConnect(adb, serial, { timeoutMs: left() });
    let lastError: unknown;
    try {
      // Absent right after a connect means adb dropped it again: no point waiting longer.
      const list = await waitForDeviceStates(adb, [serial], (state) => state === 'device' || state === undefined, {
        timeoutMs: Math.min(ATTEMPT_WINDOW_MS, left()),
      });
      if (list.some((d) => d.serial === serial && d.state === 'device')) return serial;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline)
      throw new Error(`adb did not attach ${serial} after ${attempt} attempts`, { cause: lastError });
    // Whatever adb holds for this serial is stuck; forget it and connect afresh.
    await hostDisconnect(adb, serial, { timeoutMs: left() });
  }
}

/**
 * Makes adb attach a phone again now, e.g. after AdbdServer.goOnline().
 *
 * Measured with adb 1.0.41: when a TCP device's connection dies adb keeps it as `offline` and
 * retries once at once, then every 10 s. `host:connect` meanwhile only answers "already
 * connected" and does not hurry the retry, so a phone that was offline for more than an
 * instant comes back by itself only after up to 10 s. Disconnect + connect brings it back in
 * milliseconds, except that a reconnect adb had in flight can make the new connect answer
 * "already connected" and then vanish (seen about 1 in 50 times); attachToAdb retries that.
 */
export async function reattachToAdb(
  adb: AdbServerAddress,
  port: number,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const serial = serialForPort(port);
  const timeoutMs = options.timeoutMs ?? 15_000;
  await hostDisconnect(adb, serial, { timeoutMs });
  await attachToAdb(adb, port, { timeoutMs });
}

/** Starts `count` simulated phones and attaches them all to the adb server. */
export async function startSimFarm(options: SimFarmOptions): Promise<SimFarm> {
  checkOptions(options);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const phones: SimFarmPhone[] = [];
  let stopping: Promise<void> | undefined;

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Detach first so adb does not start reconnecting to ports about to close. adb removes a
      // disconnected transport asynchronously (tens of ms), so wait until it is gone. One at a
      // time, as the connects: a bench run's private adb server was found gone right after 32
      // phones were detached at once (adb 1.0.41 is known to crash on concurrent host:connect).
      for (const p of phones) await hostDisconnect(options.adb, p.serial, { timeoutMs: 5_000 }).catch(() => undefined);
      await waitForDeviceStates(
        options.adb,
        phones.map((p) => p.serial),
        (state) => state === undefined,
        { timeoutMs: 5_000 },
      ).catch(() => undefined);
      await Promise.all(phones.map((p) => p.server.close()));
    })();
    return stopping;
  };

  try {
    for (let index = 0; index < options.count; index++) {
      const phone = options.createPhone(index);
      const port = options.basePort === undefined ? 0 : options.basePort + index;
      const server = await AdbdServer.start({ phone, port });
      phones.push({ index, serial: serialForPort(server.port), port: server.port, server, phone });
    }
    // One at a time: adb 1.0.41 crashes when it serves several `host:connect` at once (see
    // hostConnect, which queues them anyway). Each takes a few ms with a simulated phone.
    const deadline = Date.now() + timeoutMs;
    for (const entry of phones)
      await hostConnect(options.adb, entry.serial, { timeoutMs: Math.max(1, deadline - Date.now()) });
    const serials = phones.map((p) => p.serial);
    try {
      await waitForDeviceStates(options.adb, serials, 'device', {
        timeoutMs: Math.min(timeoutMs, ATTEMPT_WINDOW_MS * 2),
      });
    } catch {
      // Rare adb races leave a serial stuck; attach those one by one with retries.
      const listed = new Map((await hostDevices(options.adb)).map((d) => [d.serial, d.state]));
      const stuck = phones.filter((p) => listed.get(p.serial) !== 'device');
      await Promise.all(stuck.map((p) => attachToAdb(options.adb, p.port, { timeoutMs })));
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    phones,
    async bringOnline(index: number): Promise<void> {
      const entry = phones[index];
      if (!entry) throw new RangeError(`SimFarm.bringOnline: no phone ${index}`);
      await entry.server.goOnline();
      await reattachToAdb(options.adb, entry.port, { timeoutMs });
    },
    async reboot(index: number, timing: RebootTiming = REBOOT_TIMING.instant): Promise<void> {
      const entry = phones[index];
      if (!entry) throw new RangeError(`SimFarm.reboot: no phone ${index}`);
      const phone = entry.phone as PhoneDevice & { reboot?: (bootMs: number) => void };
      phone.reboot?.(timing.downMs + timing.bootMs);
      await entry.server.goOffline();
      await new Promise((resolve) => setTimeout(resolve, timing.downMs));
      if (stopping) return;
      await entry.server.goOnline();
      await reattachToAdb(options.adb, entry.port, { timeoutMs });
    },
    stop,
  };
}
