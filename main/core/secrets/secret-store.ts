/**
 * The bridge's own secrets in the data dir, each in its own 0600 file: the system API key
 * (shared with xAgent), the admin token (the local console / lab scripts), the key that
 * signs download URLs, the key of the hashes kept at rest instead of typed text
 * (tools/typed-text.ts) and the key that seals the lab's named secrets (lab-secrets.ts).
 * Generated on first start when not given; never logged.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/json-file-store';

export type SecretName = 'api-key' | 'admin-token' | 'url-signing-key' | 'text-hash-key' | 'lab-secrets-key';

export function generateToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Reads a secret file, creating it with a fresh random value when missing. */
export function loadOrCreateSecret(dataDir: string, name: SecretName): string {
  const path = join(dataDir, `${name}`);
  if (existsSync(path)) {
    const value = readFileSync(path, 'utf8').trim();
    if (value.length >= 16) {
      chmodSync(path, 0o600);
      return value;
    }
  }
  const value = generateToken();
  writeFileAtomic(path, `${value}\n`, 0o600);
  return value;
}

export function storeSecret(dataDir: string, name: SecretName, value: string): void {
  writeFileAtomic(join(dataDir, name), `${value}\n`, 0o600);
}

/** Constant-time comparison that does not leak the expected length either. */
export function secretEquals(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/** Extracts the token of an `Authorization: Bearer …` header. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}
