/**
 * Asks an SSH host for its host key and nothing more: the handshake goes as far as the key
 * exchange, the key is kept, and the connection is refused from our side before any sign-in.
 * A host added at runtime is probed first so the person sees the key's fingerprint and
 * confirms it before the bridge trusts it (no key, password or agent is offered to a host
 * nobody has vouched for yet).
 */
import { Client } from 'ssh2';
import type { SshTarget } from './ssh-target';

export class HostKeyProbeError extends Error {
  override readonly name = 'HostKeyProbeError';
}

/** The host key blob the host presents; rejects with HostKeyProbeError when it cannot be reached in time. */
export function probeHostKey(target: SshTarget, options: { timeoutMs: number }): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const client = new Client();
    let key: Buffer | undefined;
    let failure: string | undefined;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.destroy();
      if (key) resolve(key);
      else
        reject(
          new HostKeyProbeError(
            `SSH host ${target.host}:${target.port} did not present a host key${failure ? `: ${failure}` : ''}`,
          ),
        );
    };
    // ssh2's own readyTimeout counts the sign-in too; this deadline covers the whole probe.
    const timer = setTimeout(() => {
      failure ??= `no answer within ${options.timeoutMs} ms`;
      finish();
    }, options.timeoutMs);
    client.on('error', (error: Error) => {
      // Our own refusal of the key arrives here as an error: only a failure before it matters.
      if (!key) failure = error.message;
      finish();
    });
    client.on('close', finish);
    client.connect({
      host: target.host,
      port: target.port,
      username: target.user,
      readyTimeout: options.timeoutMs,
      hostVerifier: (blob: Buffer): boolean => {
        key = Buffer.from(blob);
        // Refusing here ends the handshake before any authentication is attempted.
        setImmediate(finish);
        return false;
      },
    });
  });
}
