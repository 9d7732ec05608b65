/**
 * LAN phone addresses as a person types them (`HOST:PORT` or `HOST`, port 5555 by default),
 * checked strictly once at the edge and turned into the one canonical spelling that adb uses
 * as the phone's serial, so "192.168.1.20" and "192.168.1.20:5555" are the same phone.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { BridgeError } from '../errors';

/** adb's own default for `adb connect HOST` and `adb tcpip`. */
export const DEFAULT_LAN_PORT = 5555;

export interface LanAddress {
  /** Canonical host: dotted IPv4, lower-case host name, or bracketed compressed IPv6. */
  host: string;
  port: number;
  /** `host:port`, exactly the serial adb gives the phone once connected. */
  address: string;
}

const MAX_INPUT = 300;
const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function invalid(message: string): BridgeError {
  return new BridgeError('invalid_address', message);
}

function parsePort(text: string, input: string): number {
  // Digits only: "+5555", "5555.0" or " 5555" are typos, not ports.
  if (!/^\d{1,5}$/.test(text)) throw invalid(`"${input}": the port must be a number from 1 to 65535`);
  const port = Number(text);
  if (port < 1 || port > 65535) throw invalid(`"${input}": the port must be a number from 1 to 65535`);
  return port;
}

function canonicalIpv6(text: string, input: string): string {
  // Zone ids (fe80::1%wlan0) are host-local and adb cannot take them in a serial.
  if (!isIPv6(text) || text.includes('%')) throw invalid(`"${input}": "${text}" is not an IPv6 address`);
  // The URL parser prints the compressed lower-case form, so every spelling maps to one serial.
  return new URL(`http://[${text}]/`).hostname;
}

function canonicalHostName(text: string, input: string): string {
  const host = text.toLowerCase().replace(/\.$/, '');
  const labels = host.split('.');
  if (host.length === 0 || host.length > 253 || !labels.every((l) => LABEL_RE.test(l))) {
    throw invalid(`"${input}": "${text}" is not a host name or IP address`);
  }
  // All-numeric names are mistyped IPv4 addresses (256.1.1.1, 10.0.0), never host names.
  if (labels.every((l) => /^\d+$/.test(l)) || /^\d+$/.test(labels[labels.length - 1] ?? '')) {
    throw invalid(`"${input}": "${text}" is not a valid IPv4 address`);
  }
  return host;
}

function canonicalHost(text: string, input: string): string {
  if (isIPv4(text)) return text;
  // Leading zeros (010.0.0.1) read as octal in some resolvers; refuse rather than guess.
  if (/^[\d.]+$/.test(text)) throw invalid(`"${input}": "${text}" is not a valid IPv4 address`);
  return canonicalHostName(text, input);
}

/**
 * Parses `HOST`, `HOST:PORT`, `[IPv6]:PORT`, `[IPv6]` or a bare IPv6 address. Throws
 * `invalid_address` with a message that names the problem. `requirePort` is for pairing
 * addresses, whose port is random and shown on the phone.
 */
export function parseLanAddress(raw: unknown, options: { requirePort?: boolean } = {}): LanAddress {
  if (typeof raw !== 'string') throw invalid('address must be a string such as 192.168.1.20:5555');
  const input = raw.trim();
  if (input.length === 0) throw invalid('address is empty; enter HOST or HOST:PORT, e.g. 192.168.1.20:5555');
  if (input.length > MAX_INPUT) throw invalid(`address is longer than ${MAX_INPUT} characters`);
  if (/[\s/@?#\\]/.test(input) || /[^\x21-\x7e]/.test(input)) {
    throw invalid(`"${input.slice(0, 64)}" is not an address: use HOST or HOST:PORT without a scheme, path or spaces`);
  }
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(input);
  if (bracketed) {
    host = canonicalIpv6(bracketed[1] ?? '', input);
    portText = bracketed[2];
    if (portText === '') throw invalid(`"${input}": the port after ":" is missing`);
  } else if (input.includes('[') || input.includes(']')) {
    throw invalid(`"${input}": an IPv6 address goes in brackets, e.g. [fd00::1]:5555`);
  } else if ((input.match(/:/g) ?? []).length > 1) {
    // Several colons and no brackets: only a bare IPv6 address makes sense (default port).
    host = canonicalIpv6(input, input);
  } else {
    const colon = input.indexOf(':');
    if (colon === -1) host = canonicalHost(input, input);
    else {
      host = canonicalHost(input.slice(0, colon), input);
      portText = input.slice(colon + 1);
      if (portText === '') throw invalid(`"${input}": the port after ":" is missing`);
    }
  }
  if (portText === undefined && options.requirePort) {
    throw invalid(`"${input}": include the port shown on the phone, e.g. 192.168.1.20:37123`);
  }
  const port = portText === undefined ? DEFAULT_LAN_PORT : parsePort(portText, input);
  return { host, port, address: `${host}:${port}` };
}

/** Wireless-debugging pairing codes are six digits; anything else is refused before adb sees it. */
export function parsePairingCode(raw: unknown): string {
  const code = typeof raw === 'string' ? raw.trim() : '';
  if (!/^\d{6}$/.test(code))
    throw new BridgeError('invalid_arguments', 'the pairing code is the six digits shown on the phone');
  return code;
}
