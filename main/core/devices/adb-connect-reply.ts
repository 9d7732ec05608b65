/**
 * What adb's answer to `host:connect:ADDRESS` means for a LAN phone: connected, already
 * connected, waiting for "Allow debugging?", or unreachable (and why), as stable codes with
 * messages a person can act on. adb's wording varies across versions; the patterns cover
 * 1.0.41 (Debian 29.x) and the platform-tools releases after it.
 */
import { BridgeError } from '../errors';
import type { HostServiceReply } from './adb-host-service';

export function unauthorizedError(address: string): BridgeError {
  return new BridgeError(
    'device_unauthorized',
    `The phone at ${address} has not allowed this computer yet: accept the "Allow debugging?" prompt on the phone. It is kept in the list and connects as soon as you allow it.`,
  );
}

export type ConnectVerdict =
  { kind: 'connected' | 'already' } | { kind: 'unauthorized' | 'unreachable'; error: BridgeError };

/** Turns adb's answer to `host:connect:ADDRESS` into a stable outcome with a clear message. */
export function interpretConnectReply(reply: HostServiceReply, address: string): ConnectVerdict {
  const text = reply.message;
  const quoted = text.slice(0, 200);
  if (!reply.ok)
    return {
      kind: 'unreachable',
      error: new BridgeError(
        'unreachable',
        `The ADB server refused to connect ${address}: ${quoted || 'no reason given'}`,
      ),
    };
  if (/^already connected to /i.test(text)) return { kind: 'already' };
  if (/^connected to /i.test(text)) return { kind: 'connected' };
  if (/authenticat|unauthori[sz]ed/i.test(text)) return { kind: 'unauthorized', error: unauthorizedError(address) };
  if (/failed to resolve host|name or service not known|no address associated/i.test(text)) {
    return {
      kind: 'unreachable',
      error: new BridgeError(
        'unreachable',
        `The host name in ${address} could not be resolved; check the spelling or use the phone's IP address (adb: "${quoted}").`,
      ),
    };
  }
  if (/refused/i.test(text)) {
    return {
      kind: 'unreachable',
      error: new BridgeError(
        'unreachable',
        `Nothing accepts connections at ${address} (connection refused): check the port and that wireless debugging or "adb tcpip" is on (adb: "${quoted}").`,
      ),
    };
  }
  return {
    kind: 'unreachable',
    error: new BridgeError(
      'unreachable',
      `${address} did not answer: check that the phone is awake and on the same network as this computer (adb: "${quoted || 'no answer'}").`,
    ),
  };
}
