/**
 * Wireless-debugging pairing (`host:pair:CODE:ADDRESS`) and mDNS discovery
 * (`host:mdns:services`) through the ADB server. Both exist only in adb from Android SDK
 * platform-tools 30 on; older servers (Debian's adb 1.0.41 / 29.0.6) answer
 * "unknown host service", which becomes `pairing_unsupported` or an empty list with a note.
 */
import type { AdminLanDiscovered } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import { adbHostService } from './adb-host-service';
import type { LanAdbServer } from './lan-devices';
import { parseLanAddress, parsePairingCode } from './lan-address';

export const PAIRING_REQUIREMENT = 'Android SDK platform-tools 30.0.0 or later';

const UNKNOWN_SERVICE_RE = /unknown host service|unknown service|not supported/i;

/** `host:version` as "1.0.41", or null when the server does not say. */
async function serverVersion(link: LanAdbServer, timeoutMs: number): Promise<string | null> {
  try {
    const reply = await adbHostService(link.client, 'host:version', { timeoutMs, server: link.address });
    const internal = Number.parseInt(reply.message, 16);
    return reply.ok && Number.isInteger(internal) ? `1.0.${internal}` : null;
  } catch {
    return null;
  }
}

/**
 * Pairs with a phone showing a six-digit code. Validates first (`invalid_address`,
 * `invalid_arguments`), then: `pairing_unsupported` when the server is too old,
 * `pairing_failed` when the phone refuses the code, `unreachable` when nothing answers.
 */
export async function pairLanDevice(
  link: LanAdbServer,
  addressInput: unknown,
  codeInput: unknown,
  options: { timeoutMs: number },
): Promise<{ status: 'paired'; message: string }> {
  const { address } = parseLanAddress(addressInput, { requirePort: true });
  const code = parsePairingCode(codeInput);
  let reply;
  try {
    reply = await adbHostService(link.client, `host:pair:${code}:${address}`, {
      timeoutMs: options.timeoutMs,
      server: link.address,
    });
  } catch (error) {
    if (isBridgeError(error) && error.code === 'command_timeout') {
      throw new BridgeError(
        'unreachable',
        `No pairing answer from ${address} within ${Math.round(options.timeoutMs / 1000)} s: check the address shown under "Pair device with pairing code".`,
      );
    }
    throw error;
  }
  const text = reply.message.slice(0, 200);
  if (!reply.ok && UNKNOWN_SERVICE_RE.test(reply.message)) {
    const version = await serverVersion(link, 2000);
    throw new BridgeError(
      'pairing_unsupported',
      `The ADB server ${link.address}${version ? ` (adb ${version})` : ''} cannot pair with a code: pairing needs adb from ${PAIRING_REQUIREMENT} (Debian's adb 29.x is too old). Update platform-tools, or pair once with a newer "adb pair ${address}", then add the phone by the address shown under Wireless debugging.`,
    );
  }
  if (reply.ok && /^successfully paired/i.test(reply.message))
    return {
      status: 'paired',
      message: `Paired with ${address}. Now add the phone by the address shown under Wireless debugging (a different port).`,
    };
  throw new BridgeError(
    'pairing_failed',
    `Pairing with ${address} failed: ${text || 'no reason given'}. Check the six-digit code (it changes each time the dialog opens) and try again.`,
  );
}

type DiscoveredService = AdminLanDiscovered['servers'][number]['services'][number];

function kindOf(serviceType: string): DiscoveredService['kind'] {
  if (serviceType.startsWith('_adb-tls-connect.')) return 'connect';
  if (serviceType.startsWith('_adb-tls-pairing.')) return 'pairing';
  if (serviceType.startsWith('_adb.')) return 'tcpip';
  return 'other';
}

/** Lines of `host:mdns:services`: "instance<TAB>service type<TAB>ip:port". */
export function parseMdnsServices(text: string): DiscoveredService[] {
  const out: DiscoveredService[] = [];
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 3) continue;
    const [name = '', serviceType = '', address = ''] =
      parts.length === 3 ? parts : [parts.slice(0, -2).join(' '), parts[parts.length - 2], parts[parts.length - 1]];
    out.push({
      name: name.slice(0, 128),
      service_type: serviceType.slice(0, 64),
      address: address.slice(0, 80),
      kind: kindOf(serviceType),
    });
  }
  return out;
}

/** Discovered phones per ADB server, cached so the UI can ask often; each query has a deadline. */
export class LanDiscovery {
  private cached: AdminLanDiscovered | undefined;
  private inFlight: Promise<AdminLanDiscovered> | undefined;

  constructor(
    private readonly links: readonly LanAdbServer[],
    private readonly options: { cacheMs: number; timeoutMs: number; clock?: () => number } = {
      cacheMs: 5000,
      timeoutMs: 2000,
    },
  ) {}

  async list(): Promise<AdminLanDiscovered> {
    const now = (this.options.clock ?? Date.now)();
    if (this.cached && now - this.cached.checked_at < this.options.cacheMs) return this.cached;
    this.inFlight ??= this.query().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async query(): Promise<AdminLanDiscovered> {
    const servers = await Promise.all(
      this.links.map(async (link) => {
        try {
          const reply = await adbHostService(link.client, 'host:mdns:services', {
            timeoutMs: this.options.timeoutMs,
            server: link.address,
          });
          if (!reply.ok) {
            const note = UNKNOWN_SERVICE_RE.test(reply.message)
              ? `This ADB server has no mDNS discovery; it needs ${PAIRING_REQUIREMENT}. Add phones by address instead.`
              : `mDNS discovery failed: ${reply.message.slice(0, 160)}`;
            return { adb_server: link.address, supported: false, note, services: [] };
          }
          return { adb_server: link.address, supported: true, note: null, services: parseMdnsServices(reply.message) };
        } catch (error) {
          const message = isBridgeError(error) ? error.message : 'no answer';
          return {
            adb_server: link.address,
            supported: false,
            note: `mDNS discovery unavailable: ${message.slice(0, 160)}`,
            services: [],
          };
        }
      }),
    );
    this.cached = { servers, checked_at: (this.options.clock ?? Date.now)() };
    return this.cached;
  }
}
