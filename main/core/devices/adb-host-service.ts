/**
 * Raw host services of an ADB server (`host:connect:`, `host:disconnect:`, `host:pair:`,
 * `host:mdns:services`) over an adbkit connection, returning adb's own answer text. adbkit's
 * `connect()` folds "connected" and "already connected" together and hides why a connect
 * failed; the LAN manager needs both, and a deadline that closes the socket.
 */
import type { Client } from '@devicefarmer/adbkit';
import { BridgeError } from '../errors';
import { withDeadline } from './deadline';

export interface HostServiceReply {
  /** OKAY (true) or FAIL (false). */
  ok: boolean;
  /** The length-prefixed text that follows (may be empty). */
  message: string;
}

/** One smart-socket request: 4 hex digits of length, then the service (host or device). */
export function encodeAdbRequest(service: string): Buffer {
  const body = Buffer.from(service, 'utf8');
  if (body.length > 0xffff) throw new BridgeError('invalid_arguments', 'adb request too long');
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'latin1'), body]);
}

/**
 * Sends one host service request and reads `OKAY|FAIL` + text. Connecting to the server
 * failing is `adb_unavailable`; the whole exchange past `timeoutMs` is `command_timeout`
 * (the socket is closed, so adb drops the request too).
 */
export async function adbHostService(
  client: Client,
  service: string,
  options: { timeoutMs: number; signal?: AbortSignal; server: string },
): Promise<HostServiceReply> {
  const started = Date.now();
  const left = (): number => Math.max(1, options.timeoutMs - (Date.now() - started));
  const what = `adb ${service.split(':').slice(0, 2).join(':')}`;
  let connection: Awaited<ReturnType<Client['connection']>>;
  try {
    connection = await withDeadline(Promise.resolve(client.connection()), {
      timeoutMs: left(),
      what: `connecting to the ADB server ${options.server}`,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof BridgeError && error.code === 'canceled') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new BridgeError(
      'adb_unavailable',
      `the ADB server ${options.server} is not reachable (${reason.slice(0, 160)})`,
    );
  }
  const close = (): void => {
    connection.end();
  };
  try {
    const exchange = (async (): Promise<HostServiceReply> => {
      connection.write(encodeAdbRequest(service));
      const status = await connection.parser.readAscii(4);
      if (status !== 'OKAY' && status !== 'FAIL')
        throw new BridgeError('command_failed', `${what}: unexpected answer ${JSON.stringify(status)}`);
      // Some adb versions close right after a bare OKAY; that is an empty answer.
      const value = await connection.parser.readValue().catch((error: unknown) => {
        if (status === 'OKAY') return Buffer.alloc(0);
        throw error;
      });
      return { ok: status === 'OKAY', message: value.toString('utf8').trim() };
    })();
    return await withDeadline(exchange, {
      timeoutMs: left(),
      what,
      onCancel: close,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof BridgeError) throw error;
    // The server hung up mid-answer (restarting, or killed): callers see one stable code.
    const reason = error instanceof Error ? error.message : String(error);
    throw new BridgeError(
      'adb_unavailable',
      `the ADB server ${options.server} broke off ${what} (${reason.slice(0, 160)})`,
    );
  } finally {
    close();
  }
}
