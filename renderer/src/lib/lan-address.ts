/**
 * Checks a LAN phone address typed by a person (HOST[:PORT]) before it is sent, so obvious
 * typos get an immediate, specific message; the bridge validates again.
 */

export interface AddressCheck {
  ok: boolean;
  message?: string;
}

const HOST_RE = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)$/;

export function checkLanAddress(input: string, requirePort = false): AddressCheck {
  const value = input.trim();
  if (value === '') return { ok: false, message: 'Enter the phone address, e.g. 192.168.1.20:5555.' };
  let host = value;
  let port: string | undefined;
  const bracketed = /^(\[[^\]]+\])(?::(.*))?$/.exec(value);
  if (bracketed) {
    host = bracketed[1] ?? '';
    port = bracketed[2];
  } else if ((value.match(/:/g) ?? []).length === 1) {
    [host, port] = value.split(':') as [string, string];
  }
  if (!HOST_RE.test(host)) return { ok: false, message: `"${host}" is not a host name or IP address.` };
  if (port === undefined) {
    return requirePort ? { ok: false, message: 'Include the port shown on the phone, e.g. 192.168.1.20:37123.' } : { ok: true };
  }
  const n = Number(port);
  if (!/^\d+$/.test(port) || n < 1 || n > 65535) return { ok: false, message: `Port "${port}" must be a number from 1 to 65535.` };
  return { ok: true };
}

/** Wireless-debugging pairing codes are six digits. */
export function checkPairingCode(input: string): AddressCheck {
  return /^\d{6}$/.test(input.trim()) ? { ok: true } : { ok: false, message: 'The pairing code is the 6 digits shown on the phone.' };
}
