/**
 * The simulated phone's network as the shell sees it: its interfaces (`ip -o addr show`) and
 * its TCP sockets (`/proc/net/tcp`, `/proc/net/tcp6`), in the formats of Linux on Android.
 *
 * What it models is what decides whether the fast lane's helper is exposed:
 * - appium-uiautomator2-server listens on every interface (Netty `bootstrap.bind(port)` for
 *   6790, `new ServerSocket(port)` for MJPEG 7810; both dual-stack, so the LISTEN sockets
 *   are `::` in tcp6, owned by the server app's uid);
 * - the bridge reaches it through adbd's `tcp:PORT` service, which connects from 127.0.0.1
 *   (an IPv4 socket of adbd, uid 2000 `shell`) — the accepted side shows in tcp6 as
 *   `::ffff:127.0.0.1`, owned by the server app;
 * - anything else can connect while it runs: a host on the phone's Wi-Fi (the accepted side
 *   shows its address) or an app on the phone (its client socket shows its own uid). Tests
 *   add such a peer with `connectToHelper`.
 * Wi-Fi is off by default (only `lo`, and `dummy0` which Android always has); `setWifi`
 * gives the phone an address on wlan0, as a LAN phone or a USB phone with Wi-Fi on has.
 */
import { UIA2_SERVER_PKG } from './helper/uia2-ids';
import { packageUid, type PackageDb } from './phone-packages';

/** Where a foreign peer comes from: a host on the network, or an app on the phone. */
export type ForeignPeer = { network: string } | { appUid: number };

/**
 * How far a foreign connection got: still open; half-closed by the peer after its request
 * (its socket in FIN_WAIT2, the helper's in CLOSE_WAIT: it can still read the answer); or
 * already ended by the peer, whose side lingers in TIME_WAIT for a minute with no owner (uid 0;
 * only an app on the phone leaves that trace there, a host on the network keeps it itself).
 */
export type ForeignConnectionState = 'established' | 'half_closed' | 'time_wait';

export interface NetworkControl {
  /** Wi-Fi on with this IPv4 address on wlan0 (and a link-local IPv6), or off (null). */
  setWifi(ipv4: string | null): void;
  /**
   * Something that is not the bridge connects to a helper port (6790 by default) while the
   * helper runs. Returns a function that closes the connection; it also drops when the
   * helper's process dies. Throws when nothing listens on the port (connection refused).
   */
  connectToHelper(peer: ForeignPeer, port?: number, state?: ForeignConnectionState): () => void;
}

/** What the network reads of the helper: its listening ports and the bridge's open streams. */
export interface HelperSockets {
  /** The ports the running helper listens on (empty when it does not run). */
  listeningPorts(): number[];
  /** One entry per open adbd `tcp:` stream to the helper, by port. */
  bridgeConnections(): number[];
  /** Called with a close function that runs when the helper's process dies. */
  onDeath(close: () => void): void;
}

interface Connection {
  port: number;
  peer: ForeignPeer;
  peerPort: number;
  state: ForeignConnectionState;
}

const SHELL_UID = 2000;
const TCP_ESTABLISHED = '01';
const TCP_FIN_WAIT2 = '05';
const TCP_TIME_WAIT = '06';
const TCP_CLOSE_WAIT = '08';
const TCP_LISTEN = '0A';

export class PhoneNetwork implements NetworkControl {
  private wifi: string | null;
  private readonly foreign = new Set<Connection>();
  private nextPort = 41_000;
  private inode = 812_000;

  constructor(
    private readonly packages: PackageDb,
    private readonly helper: HelperSockets,
    options: { wifi?: string | null } = {},
  ) {
    this.wifi = options.wifi ?? null;
  }

  setWifi(ipv4: string | null): void {
    if (ipv4 !== null && !isIpv4(ipv4)) throw new TypeError(`setWifi: not an IPv4 address: ${ipv4}`);
    this.wifi = ipv4;
  }

  connectToHelper(peer: ForeignPeer, port = 6790, state: ForeignConnectionState = 'established'): () => void {
    if (!this.helper.listeningPorts().includes(port)) throw new Error(`connect to port ${port}: Connection refused`);
    if ('network' in peer && !isIpv4(peer.network))
      throw new TypeError(`connectToHelper: not an IPv4 address: ${peer.network}`);
    const connection: Connection = { port, peer, peerPort: this.nextPort++, state };
    this.foreign.add(connection);
    const close = (): void => {
      this.foreign.delete(connection);
    };
    this.helper.onDeath(close);
    return close;
  }

  /** `ip [-o] [-4|-6] addr|address|a [show [dev IFACE]]`; anything else prints the usage (exit 255). */
  ip(args: readonly string[]): { out: string; code: number } {
    let oneLine = false;
    let family: 'inet' | 'inet6' | undefined;
    const rest: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] ?? '';
      if (a === '-o' || a === '-oneline') oneLine = true;
      else if (a === '-4') family = 'inet';
      else if (a === '-6') family = 'inet6';
      else if (a === '-f' || a === '-family') {
        const f = args[++i];
        family = f === 'inet6' ? 'inet6' : 'inet';
      } else rest.push(a);
    }
    const [object, verb, ...more] = rest;
    if (
      object === undefined ||
      !['addr', 'address', 'a'].includes(object) ||
      (verb !== undefined && verb !== 'show' && verb !== 'list')
    ) {
      return { out: 'Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n', code: 255 };
    }
    const dev = more[0] === 'dev' ? more[1] : more[0];
    const lines: string[] = [];
    for (const iface of this.interfaces()) {
      if (dev !== undefined && iface.name !== dev) continue;
      const addrs = iface.addrs.filter((a) => family === undefined || a.family === family);
      if (oneLine) {
        for (const a of addrs)
          lines.push(
            `${iface.index}: ${iface.name}    ${a.family} ${a.cidr}${a.brd ? ` brd ${a.brd}` : ''} scope ${a.scope}${a.family === 'inet' ? ` ${iface.name}` : ''}\\       valid_lft forever preferred_lft forever`,
          );
      } else {
        lines.push(
          `${iface.index}: ${iface.name}: <${iface.flags}> mtu ${iface.mtu} qdisc ${iface.qdisc} state ${iface.state} group default qlen 1000`,
        );
        lines.push(
          `    link/${iface.name === 'lo' ? 'loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00' : `ether ${iface.mac} brd ff:ff:ff:ff:ff:ff`}`,
        );
        for (const a of addrs) {
          lines.push(
            `    ${a.family} ${a.cidr}${a.brd ? ` brd ${a.brd}` : ''} scope ${a.scope}${a.family === 'inet' ? ` ${iface.name}` : ''}`,
          );
          lines.push('       valid_lft forever preferred_lft forever');
        }
      }
    }
    if (dev !== undefined && lines.length === 0 && !this.interfaces().some((i) => i.name === dev))
      return { out: `Device "${dev}" does not exist.\n`, code: 1 };
    return { out: lines.map((l) => `${l}\n`).join(''), code: 0 };
  }

  /** The text of `/proc/net/tcp` (v6 false) or `/proc/net/tcp6`. */
  procNetTcp(v6: boolean): string {
    const rows: Array<{ local: string; remote: string; state: string; uid: number }> = [];
    const helperUid = packageUid(this.packages.info(UIA2_SERVER_PKG) ?? { name: UIA2_SERVER_PKG, system: false });
    const wifi = this.wifi;
    let ephemeral = 38_000;
    if (v6) {
      for (const port of this.helper.listeningPorts())
        rows.push({ local: v6Hex('::', port), remote: v6Hex('::', 0), state: TCP_LISTEN, uid: helperUid });
      // Accepted sides of the bridge's streams (adbd connected from 127.0.0.1).
      for (const port of this.helper.bridgeConnections())
        rows.push({
          local: v6Hex('::ffff:127.0.0.1', port),
          remote: v6Hex('::ffff:127.0.0.1', ephemeral++),
          state: TCP_ESTABLISHED,
          uid: helperUid,
        });
      for (const c of this.foreign) {
        // The peer closed first: the helper's side is gone (LAST_ACK, then CLOSED).
        if (c.state === 'time_wait') continue;
        const from = 'network' in c.peer ? c.peer.network : '127.0.0.1';
        const to = 'network' in c.peer ? (wifi ?? '127.0.0.1') : '127.0.0.1';
        rows.push({
          local: v6Hex(`::ffff:${to}`, c.port),
          remote: v6Hex(`::ffff:${from}`, c.peerPort),
          state: c.state === 'half_closed' ? TCP_CLOSE_WAIT : TCP_ESTABLISHED,
          uid: helperUid,
        });
      }
    } else {
      // The client sides of adbd's connections, uid shell.
      for (const port of this.helper.bridgeConnections())
        rows.push({
          local: v4Hex('127.0.0.1', ephemeral++),
          remote: v4Hex('127.0.0.1', port),
          state: TCP_ESTABLISHED,
          uid: SHELL_UID,
        });
      for (const c of this.foreign) {
        if ('appUid' in c.peer)
          rows.push({
            local: v4Hex('127.0.0.1', c.peerPort),
            remote: v4Hex('127.0.0.1', c.port),
            state:
              c.state === 'time_wait' ? TCP_TIME_WAIT : c.state === 'half_closed' ? TCP_FIN_WAIT2 : TCP_ESTABLISHED,
            // A TIME_WAIT socket has no owner any more: the kernel prints uid 0.
            uid: c.state === 'time_wait' ? 0 : c.peer.appUid,
          });
      }
    }
    const header = v6
      ? '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
      : '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     \n';
    return (
      header +
      rows
        .map(
          (r, i) =>
            `${String(i).padStart(4)}: ${r.local} ${r.remote} ${r.state} 00000000:00000000 00:00000000 00000000 ${String(r.uid).padStart(5)}        0 ${this.inode + i} 1 0000000000000000 100 0 0 10 0\n`,
        )
        .join('')
    );
  }

  private interfaces(): Array<{
    index: number;
    name: string;
    flags: string;
    mtu: number;
    qdisc: string;
    state: string;
    mac: string;
    addrs: Array<{ family: 'inet' | 'inet6'; cidr: string; brd?: string; scope: string }>;
  }> {
    const list: ReturnType<PhoneNetwork['interfaces']> = [
      {
        index: 1,
        name: 'lo',
        flags: 'LOOPBACK,UP,LOWER_UP',
        mtu: 65536,
        qdisc: 'noqueue',
        state: 'UNKNOWN',
        mac: '',
        addrs: [
          { family: 'inet', cidr: '127.0.0.1/8', scope: 'host' },
          { family: 'inet6', cidr: '::1/128', scope: 'host' },
        ],
      },
      {
        index: 2,
        name: 'dummy0',
        flags: 'BROADCAST,NOARP,UP,LOWER_UP',
        mtu: 1500,
        qdisc: 'noqueue',
        state: 'UNKNOWN',
        mac: '7e:d1:3b:5c:20:9a',
        addrs: [],
      },
    ];
    const wifi = this.wifi;
    list.push({
      index: 30,
      name: 'wlan0',
      flags: wifi ? 'BROADCAST,MULTICAST,UP,LOWER_UP' : 'BROADCAST,MULTICAST',
      mtu: 1500,
      qdisc: 'mq',
      state: wifi ? 'UP' : 'DOWN',
      mac: 'f2:6e:0b:a1:44:c7',
      addrs: wifi
        ? [
            { family: 'inet', cidr: `${wifi}/24`, brd: wifi.replace(/\.\d+$/, '.255'), scope: 'global' },
            { family: 'inet6', cidr: 'fe80::f06e:bff:fea1:44c7/64', scope: 'link' },
          ]
        : [],
    });
    return list;
  }
}

function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

/** A 32-bit word as /proc prints it: the address bytes read in host (little-endian) order. */
function wordHex(bytes: readonly number[]): string {
  return [...bytes]
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
}

function v4Hex(address: string, port: number): string {
  return `${wordHex(address.split('.').map(Number))}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

function v6Hex(address: string, port: number): string {
  const bytes = new Array<number>(16).fill(0);
  if (address.startsWith('::ffff:')) {
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    address
      .slice(7)
      .split('.')
      .forEach((b, i) => {
        bytes[12 + i] = Number(b);
      });
  }
  const words = [0, 4, 8, 12].map((i) => wordHex(bytes.slice(i, i + 4))).join('');
  return `${words}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}
