/**
 * The desktop app's network settings, in the same electron-store file as the bind address
 * (docs/REFERENCE.md "For labs"): `tlsCertFile` + `tlsKeyFile` (PEM), or `tlsSelfSigned: true`;
 * `publicUrl`; `allowFrom` and `trustProxy` (lists of CIDRs). The file is user-editable, so
 * each value is checked when read; a bad one is left out with a warning, and leaving out
 * never widens access (a dropped allowFrom range admits fewer clients, none left admits
 * only this computer; a dropped proxy is trusted less). No electron import here.
 */
import { parsePublicUrl, type NetworkOptionsInput } from '../core/config/network-options';
import { AddressRanges } from '../core/server/network-access';
import { TlsFileError } from '../core/tls/tls-material';

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function cidrList(raw: unknown, key: string, warnings: string[]): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    warnings.push(`Settings: ${key} must be a list of CIDR ranges like "10.0.0.0/8"; ignored.`);
    return [];
  }
  const out: string[] = [];
  for (const entry of raw as unknown[]) {
    try {
      if (typeof entry !== 'string') throw new TypeError(`${key}: ${JSON.stringify(entry)} is not a CIDR range`);
      AddressRanges.parse([entry], key);
      out.push(entry.trim());
    } catch (error) {
      warnings.push(`Settings: ${error instanceof Error ? error.message : String(error)}; left out.`);
    }
  }
  return out;
}

/** Checks the stored network values; returns the core's network options and one warning per value left out. */
export function normalizeDesktopNetwork(raw: Record<string, unknown>): {
  network: NetworkOptionsInput;
  warnings: string[];
} {
  const warnings: string[] = [];
  const network: NetworkOptionsInput = {};
  const cert = raw.tlsCertFile;
  const key = raw.tlsKeyFile;
  const hasCert = nonEmptyString(cert);
  const hasKey = nonEmptyString(key);
  if (hasCert && hasKey) {
    network.tls = { certFile: cert.trim(), keyFile: key.trim() };
    if (raw.tlsSelfSigned === true)
      warnings.push('Settings: tlsSelfSigned is ignored while tlsCertFile and tlsKeyFile are set.');
  } else if (hasCert || hasKey) {
    warnings.push(
      `Settings: ${hasCert ? 'tlsKeyFile' : 'tlsCertFile'} is missing (tlsCertFile and tlsKeyFile go together); TLS is off.`,
    );
  } else if (raw.tlsSelfSigned === true) {
    network.tls = 'self-signed';
  }
  if (raw.publicUrl !== undefined && raw.publicUrl !== null && raw.publicUrl !== '') {
    try {
      if (typeof raw.publicUrl !== 'string')
        throw new TypeError(`--public-url: ${JSON.stringify(raw.publicUrl)} is not a URL`);
      network.publicUrl = parsePublicUrl(raw.publicUrl);
    } catch (error) {
      warnings.push(
        `Settings: publicUrl ${error instanceof Error ? error.message.replace(/^--public-url: /, '') : ''}; ignored.`,
      );
    }
  }
  const allowFrom = cidrList(raw.allowFrom, 'allowFrom', warnings);
  if (allowFrom.length) network.allowFrom = allowFrom;
  else if (Array.isArray(raw.allowFrom) && raw.allowFrom.length > 0) {
    // Every range was bad: an empty list would admit everyone, so only this computer may connect.
    network.allowFrom = ['127.0.0.0/8', '::1'];
    warnings.push('Settings: no usable allowFrom range; only this computer may connect until allowFrom is fixed.');
  }
  const trustProxy = cidrList(raw.trustProxy, 'trustProxy', warnings);
  if (trustProxy.length) network.trustProxy = trustProxy;
  return { network, warnings };
}

/** What startWithTlsFallback needs of the core. */
export interface StartableCore {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * Starts the core with the network settings; when a certificate file is unusable the app
 * does not crash: it starts again on 127.0.0.1 without TLS (this computer only) and says
 * which file to fix. Any other start failure is thrown as before.
 */
export async function startWithTlsFallback<C extends StartableCore>(
  create: (fallback: boolean) => C,
  warnings: string[],
): Promise<C> {
  const core = create(false);
  try {
    await core.start();
    return core;
  } catch (error) {
    if (!(error instanceof TlsFileError)) throw error;
    await core.stop();
    warnings.push(
      `${error.message}. Until it is fixed (tlsCertFile, tlsKeyFile in the settings file), the bridge serves this computer only: 127.0.0.1, no TLS.`,
    );
    const fallback = create(true);
    await fallback.start();
    return fallback;
  }
}
