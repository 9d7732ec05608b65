/**
 * The secrets' room wiring: the API key agents present, the admin token, the keys that sign
 * download URLs and hash what is kept at rest, and the lab's named secrets. A key given by the
 * embedder (env variable, desktop vault) is kept by it; else by the data dir.
 */
import { LabSecrets } from './lab-secrets';
import { loadOrCreateSecret } from './secret-store';
import { persistInDataDir, SystemApiKey, type SystemApiKeyOptions } from './system-api-key';

export interface SecretsPorts {
  /** The start options: keys the embedder gives (kept by it), else the data dir keeps them. */
  options: { dataDir: string; apiKey?: string; apiKeySource?: SystemApiKeyOptions['source']; adminToken?: string };
  clock: () => number;
  warn: (message: string) => void;
}

export interface SecretsRoom {
  apiKey: SystemApiKey;
  adminToken: string;
  /** Signs the download URLs (files/signed-url.ts). */
  signingKey: Buffer;
  /** Keys the hashes kept at rest instead of typed text and of call arguments (tools/typed-text.ts). */
  hashKey: Buffer;
  /** Named secrets agents type by name and never see (docs/REFERENCE.md "Secrets by reference"). */
  labSecrets: LabSecrets;
  /** Every live secret: never logged or written. */
  secrets: () => string[];
  /** A new API key; the log says where it is kept. */
  rotateApiKey: (logger: { warn(message: string): void; info(message: string): void }) => string;
}

export function wireSecrets(ports: SecretsPorts): SecretsRoom {
  const { options } = ports;
  const { dataDir } = options;
  const apiKey = new SystemApiKey({
    initial: options.apiKey ?? loadOrCreateSecret(dataDir, 'api-key'),
    source: options.apiKeySource ?? 'store',
    ...(options.apiKey ? {} : { persist: persistInDataDir(dataDir) }),
  });
  const adminToken = options.adminToken ?? loadOrCreateSecret(dataDir, 'admin-token');
  const labSecrets = new LabSecrets({ dataDir, clock: ports.clock, warn: ports.warn });
  return {
    apiKey,
    adminToken,
    signingKey: Buffer.from(loadOrCreateSecret(dataDir, 'url-signing-key'), 'base64url'),
    hashKey: Buffer.from(loadOrCreateSecret(dataDir, 'text-hash-key'), 'base64url'),
    labSecrets,
    secrets: () => [apiKey.current(), adminToken, ...labSecrets.forms()],
    rotateApiKey: (logger) => {
      const next = apiKey.rotate();
      if (apiKey.source === 'env')
        logger.warn('API key rotated; DEVICE_BRIDGE_API_KEY sets it again at the next start');
      else logger.info('API key rotated');
      return next;
    },
  };
}
