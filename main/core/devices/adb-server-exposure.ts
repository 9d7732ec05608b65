/**
 * An ADB server has no authentication: whoever reaches its port controls every phone on it
 * (install apps, read files, type). A server given as a non-loopback HOST:PORT is therefore
 * reached in clear text over the network, and the bridge says so at start instead of
 * treating it like a local one.
 */
import { isIP } from 'node:net';
/** Where an ADB server is reached (the shape of the options' AdbServerAddress). */
type AdbServerAddress = { readonly host: string; readonly port: number };

function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/** The start-up warning for an ADB server reached over the network, or null for a loopback one. */
export function exposedAdbServerWarning(server: AdbServerAddress): string | null {
  if (isLoopbackHost(server.host)) return null;
  return (
    `ADB server ${server.host}:${server.port} is reached over the network without authentication or ` +
    'encryption: anyone who can reach that port controls its phones. Reach it through an SSH tunnel ' +
    'to a loopback port instead (docs/SECURITY.md, "The ADB server").'
  );
}
