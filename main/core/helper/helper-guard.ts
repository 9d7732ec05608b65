/**
 * What keeps the fast lane's helper from becoming a way around the bridge.
 *
 * appium-uiautomator2-server listens on every interface of the phone (its HTTP API on 6790,
 * its MJPEG stream on 7810), with no authentication and no option to bind to loopback
 * (upstream HttpServer.java `bootstrap.bind(port)`, MjpegScreenshotServer.java
 * `new ServerSocket(port)`; ports only from environment variables `am instrument` cannot
 * set). While it runs, a host on the phone's network or an app on the phone could drive the
 * phone through it. The bridge therefore:
 * - starts it only when the installed files are the bridge's own copy, byte for byte
 *   (SHA-256 of each installed base.apk against the bundled APK). A certificate check would
 *   prove nothing here: the bundled APKs are signed with AOSP's public test key, which
 *   anyone can sign a package with;
 * - starts it on a phone that has a network address only when the person accepted that
 *   exposure, in words that say what is exposed (docs/REFERENCE.md "Fast lane");
 * - reads the phone's TCP tables from the moment `am instrument` starts and stops it when any
 *   socket on its ports, in any state, is not the bridge's own adb forward (a connection that
 *   started and ended between two reads is seen by what it leaves in TIME_WAIT, unless it
 *   was reset instead of closed: a reset leaves nothing, which is why the helper is an
 *   opt-in that says so).
 * This module reads and judges; helper-exposure.ts and helper-install.ts act.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { installedApkSha256 } from '../android/installed-apk';
import type { DeviceShell, ShellRunOptions } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';
import { HELPER_DEVICE_PORT } from './helper-protocol';
import { MJPEG_DEVICE_PORT } from './mjpeg-stream';

/** One row of /proc/net/tcp or /proc/net/tcp6. */
export interface TcpSocketRow {
  local: { address: string; port: number };
  remote: { address: string; port: number };
  /** Kernel TCP state, hex as printed ('01' established, '0A' listen, '06' time-wait, …). */
  state: string;
  uid: number;
}

/** A connection to the helper that is not the bridge's. */
export interface ForeignConnection {
  /**
   * 'network': a host reached the phone's address; 'app': a process on the phone, by its uid;
   * 'ended': a connection on the phone that already ended (TIME_WAIT) and that the bridge did
   * not make.
   */
  kind: 'network' | 'app' | 'ended';
  /** The peer's address (network) or 127.0.0.1 (app, ended). */
  from: string;
  /** The app's uid (kind 'app'). */
  uid?: number;
  port: number;
  /** The socket's TCP state as the kernel printed it ('01' established, '05' FIN_WAIT2, '06' TIME_WAIT, …). */
  state?: string;
}

const TCP_LISTEN = '0A';
/** adbd runs as `shell` (2000) on user builds, as root (0) after `adb root`: the bridge's forward. */
const BRIDGE_UIDS: ReadonlySet<number> = new Set([0, 2000]);

/** Rows of /proc/net/tcp and /proc/net/tcp6 (their texts concatenated is fine); bad lines are skipped. */
export function parseProcNetTcp(text: string): TcpSocketRow[] {
  const rows: TcpSocketRow[] = [];
  for (const line of text.split('\n')) {
    // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    const cols = line.trim().split(/\s+/);
    if (cols.length < 8 || !/^\d+:$/.test(cols[0] ?? '')) continue;
    const local = decodeEndpoint(cols[1] ?? '');
    const remote = decodeEndpoint(cols[2] ?? '');
    const state = (cols[3] ?? '').toUpperCase();
    const uid = Number(cols[7]);
    if (!local || !remote || !/^[0-9A-F]{2}$/.test(state) || !Number.isInteger(uid)) continue;
    rows.push({ local, remote, state, uid });
  }
  return rows;
}

function decodeEndpoint(text: string): { address: string; port: number } | undefined {
  const m = /^([0-9A-Fa-f]{8}|[0-9A-Fa-f]{32}):([0-9A-Fa-f]{4})$/.exec(text);
  if (!m) return undefined;
  const hex = m[1] ?? '';
  const bytes: number[] = [];
  // Each 32-bit word is printed in host order (little-endian on every Android ABI).
  for (let w = 0; w < hex.length; w += 8) {
    const word = hex.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(Number.parseInt(word.slice(b, b + 2), 16));
  }
  return { address: formatAddress(bytes), port: Number.parseInt(m[2] ?? '0', 16) };
}

function formatAddress(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // The longest run of zero groups becomes "::" (RFC 5952).
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1';
}

/**
 * The ports the helper listens on: its LISTEN sockets (by its uid, when known) and always
 * its two default ports, so a helper whose uid is unknown is still watched.
 */
export function helperPorts(rows: readonly TcpSocketRow[], helperUid: number | null): Set<number> {
  const ports = new Set<number>([HELPER_DEVICE_PORT, MJPEG_DEVICE_PORT]);
  if (helperUid !== null)
    for (const row of rows) if (row.state === TCP_LISTEN && row.uid === helperUid) ports.add(row.local.port);
  return ports;
}

/** TIME_WAIT: what a closed connection leaves for a minute on the side that closed first; its row has no owner (uid 0). */
const TCP_TIME_WAIT = '06';

/**
 * The bridge's own connections to the helper's ports, counted as they are opened, so that a
 * socket whose owner can no longer be read (TIME_WAIT rows show uid 0; the helper's side of a
 * connection whose client is gone shows the helper) is judged: each such connection not seen
 * before must match one the bridge opened since the read before last, or it is foreign.
 * Kept per running helper (a new start begins a new ledger).
 */
export class BridgeConnectionLedger {
  /** When the bridge opened each connection not yet matched (ms), oldest first. */
  private opened: number[] = [];
  /** Connections (client port > server port) already accounted for, while their rows remain. */
  private known = new Set<string>();
  private readStarts: number[] = [];

  /** The bridge is opening a connection to a helper port now. */
  noteOpened(at: number): void {
    this.opened.push(at);
  }

  /**
   * A read of the tables that started at `at` is being judged: only connections the bridge
   * opened since the start of the read before the previous one can explain what it shows (a
   * connection opened earlier was live, or already gone, when the previous read was taken).
   */
  beginRead(at: number): void {
    this.readStarts.push(at);
    if (this.readStarts.length > 3) this.readStarts.shift();
    const oldest = this.readStarts.length === 3 ? (this.readStarts[0] ?? -Infinity) : -Infinity;
    this.opened = this.opened.filter((t) => t >= oldest);
  }

  isKnown(key: string): boolean {
    return this.known.has(key);
  }

  /** A connection seen live as adbd's: the bridge's (it uses up one opening, when one is there). */
  noteBridge(key: string): void {
    if (!this.known.has(key)) this.opened.shift();
    this.known.add(key);
  }

  /** A connection whose owner cannot be read: true when one of the bridge's openings explains it. */
  explain(key: string): boolean {
    if (this.known.has(key)) return true;
    if (this.opened.length === 0) return false;
    this.opened.shift();
    this.known.add(key);
    return true;
  }

  /** Forgets connections whose rows are gone (their ports may be used again). */
  keepOnly(keys: ReadonlySet<string>): void {
    for (const key of this.known) if (!keys.has(key)) this.known.delete(key);
  }
}

/**
 * Connections to the helper that are not the bridge's adb forward, whatever their TCP state
 * (connecting, connected, half-closed, closing, or lingering in TIME_WAIT after the end):
 * - the helper's side of a connection whose peer is not on loopback: a host on the network;
 * - a connection on loopback whose client socket is owned by anything but adbd (uid shell,
 *   or root under `adb root`) or the helper itself: an app on the phone;
 * - a connection on loopback whose client cannot be named any more (only TIME_WAIT rows, or
 *   only the helper's side left) that none of the bridge's own recent connections explains
 *   (`ledger`; without one, every such connection is foreign).
 * The bridge's own connections through adbd come from 127.0.0.1 as uid shell (or root).
 */
export function foreignConnections(
  rows: readonly TcpSocketRow[],
  helperUid: number | null,
  ledger?: BridgeConnectionLedger,
): ForeignConnection[] {
  const ports = helperPorts(rows, helperUid);
  const found: ForeignConnection[] = [];
  const loopback = new Map<string, { serverPort: number; clients: TcpSocketRow[] }>();
  const group = (key: string, serverPort: number): { serverPort: number; clients: TcpSocketRow[] } => {
    let g = loopback.get(key);
    if (!g) {
      g = { serverPort, clients: [] };
      loopback.set(key, g);
    }
    return g;
  };
  for (const row of rows) {
    if (row.state === TCP_LISTEN) continue;
    const helperSide =
      ports.has(row.local.port) &&
      (helperUid === null || row.uid === helperUid || row.uid === 0 || row.state === TCP_TIME_WAIT);
    if (helperSide && !isLoopback(row.remote.address)) {
      found.push({ kind: 'network', from: row.remote.address, port: row.local.port, state: row.state });
    } else if (helperSide && isLoopback(row.local.address)) {
      group(`${row.remote.port}>${row.local.port}`, row.local.port);
    } else if (ports.has(row.remote.port) && isLoopback(row.remote.address) && isLoopback(row.local.address)) {
      group(`${row.local.port}>${row.remote.port}`, row.remote.port).clients.push(row);
    }
  }
  for (const [key, { serverPort, clients }] of loopback) {
    const live = clients.find((c) => c.state !== TCP_TIME_WAIT);
    if (live) {
      if (live.uid === helperUid) continue;
      if (BRIDGE_UIDS.has(live.uid)) {
        ledger?.noteBridge(key);
        continue;
      }
      found.push({ kind: 'app', from: live.local.address, uid: live.uid, port: serverPort, state: live.state });
    } else if (!ledger?.explain(key)) {
      found.push({ kind: 'ended', from: '127.0.0.1', port: serverPort, state: clients[0]?.state ?? TCP_TIME_WAIT });
    }
  }
  ledger?.keepOnly(new Set(loopback.keys()));
  return found;
}

/** A sentence naming who is connected, for the person and the audit trail. */
export function describeForeign(found: readonly ForeignConnection[]): string {
  const parts = found
    .slice(0, 3)
    .map((f) =>
      f.kind === 'network'
        ? `${f.from} on the network (port ${f.port})`
        : f.kind === 'app'
          ? `an app on the phone (uid ${f.uid ?? '?'}, port ${f.port})`
          : `a connection on the phone that the bridge did not make and that already ended (port ${f.port})`,
    );
  return parts.join(', ') + (found.length > 3 ? ` and ${found.length - 3} more` : '');
}

/**
 * The phone's addresses that another host could reach (`ip -o addr show`): every address on
 * an interface other than loopback and Android's `dummy0`, link-local IPv6 included (a host
 * on the same Wi-Fi reaches it). Each as "IFACE ADDRESS".
 */
export function parseReachableAddresses(ipOutput: string): string[] {
  const found: string[] = [];
  for (const line of ipOutput.split('\n')) {
    const m = /^\d+:\s+([^\s:@]+)(?:@\S+)?:?\s+(inet6?)\s+([0-9a-fA-F:.]+)(?:\/\d+)?\s/.exec(line.trim() + ' ');
    if (!m) continue;
    const [, iface = '', , address = ''] = m;
    if (iface === 'lo' || iface.startsWith('dummy') || isLoopback(address)) continue;
    found.push(`${iface} ${address}`);
  }
  return found;
}

/**
 * The phone's reachable addresses, or null when they cannot be read (then the bridge
 * assumes the phone may be on a network: it never guesses in the unsafe direction).
 */
export async function readReachableAddresses(shell: DeviceShell, options: ShellRunOptions): Promise<string[] | null> {
  try {
    const out = await runText(shell, ['ip', '-o', 'addr', 'show'], options);
    if (out.exitCode !== undefined && out.exitCode !== 0) return null;
    if (!/^\d+:\s+lo\b/m.test(out.text)) return null;
    return parseReachableAddresses(out.text);
  } catch {
    return null;
  }
}

/** The phone's TCP tables, both families. */
export async function readTcpTables(shell: DeviceShell, options: ShellRunOptions): Promise<TcpSocketRow[]> {
  const out = await runText(shell, ['cat', '/proc/net/tcp', '/proc/net/tcp6'], options);
  return parseProcNetTcp(out.text);
}

// ---- the installed files ------------------------------------------------------------------

const digests = new Map<string, Promise<string>>();

/** SHA-256 (hex) of a file on this computer, computed once per path (the bundled APKs). */
export function fileSha256(path: string): Promise<string> {
  let digest = digests.get(path);
  if (!digest) {
    digest = new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(path)
        .on('data', (chunk) => hash.update(chunk))
        .on('error', reject)
        .on('end', () => resolve(hash.digest('hex')));
    });
    digest.catch(() => digests.delete(path));
    digests.set(path, digest);
  }
  return digest;
}

/** Largest installed APK pulled to hash it here when the phone has no `sha256sum`. */
/** pm path + sha256sum of an 18 MB APK on a slow phone, with room to spare. */
export const HELPER_VERIFY_TIMEOUT_MS = 30_000;

/**
 * Whether the helper's installed packages are the bundled APKs byte for byte: null when they
 * are, else what differs (for the person and the audit).
 */
export async function helperMismatch(
  shell: DeviceShell,
  expected: ReadonlyArray<{ pkg: string; apk: string }>,
  options: ShellRunOptions,
): Promise<string | null> {
  const checks = await Promise.all(
    expected.map(async ({ pkg, apk }) => {
      const [installed, bundled] = await Promise.all([installedApkSha256(shell, pkg, options), fileSha256(apk)]);
      if ('problem' in installed) return installed.problem;
      return installed.sha256 === bundled
        ? null
        : `${pkg} on the phone is not the bridge's copy (SHA-256 ${installed.sha256.slice(0, 12)}…, expected ${bundled.slice(0, 12)}…)`;
    }),
  );
  const problems = checks.filter((c): c is string => c !== null);
  return problems.length > 0 ? problems.join('; ') : null;
}
