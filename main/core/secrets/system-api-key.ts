/**
 * The system API key xAgent presents on every plane, and its rotation. A key is checked when
 * a socket or an upload starts, so rotation has to reach what is already running: each key
 * has a generation and an AbortSignal that fires when it is replaced, and listeners are told
 * so that data planes opened with an older key are closed (docs/REFERENCE.md "Reliability and security").
 */
import { generateToken, secretEquals, storeSecret } from './secret-store';

/**
 * Where the key comes from: `env` (DEVICE_BRIDGE_API_KEY) — a rotation lasts until the next
 * restart, which reads the variable again; `store` — the data dir or the desktop app's vault
 * keeps the rotated key.
 */
export type ApiKeySource = 'env' | 'store';

export interface ApiKeyRotation {
  /** The generation of the new key; every generation below it is revoked. */
  generation: number;
}

export interface SystemApiKeyOptions {
  initial: string;
  source: ApiKeySource;
  /** Saves a rotated key (the data dir); absent when the embedder keeps it (env, desktop vault). */
  persist?: (key: string) => void;
}

export class SystemApiKey {
  private key: string;
  private generationNumber = 1;
  private revocation = new AbortController();
  private readonly listeners = new Set<(rotation: ApiKeyRotation) => void>();

  constructor(private readonly options: SystemApiKeyOptions) {
    this.key = options.initial;
  }

  get source(): ApiKeySource {
    return this.options.source;
  }

  current(): string {
    return this.key;
  }

  /** The current key's generation (starts at 1, +1 per rotation). */
  generation(): number {
    return this.generationNumber;
  }

  /** Constant-time check of a presented token against the current key. */
  matches(token: string | undefined): boolean {
    return token !== undefined && secretEquals(token, this.key);
  }

  /**
   * Aborts when the current key is replaced. Take it when a request is authorized: work
   * that outlives the check (an upload) stops when its key stops being valid.
   */
  revokedSignal(): AbortSignal {
    return this.revocation.signal;
  }

  /** Replaces the key; what was authorized with an older one is told at once. Returns the new key. */
  rotate(): string {
    this.key = generateToken();
    this.options.persist?.(this.key);
    this.generationNumber += 1;
    const revoked = this.revocation;
    this.revocation = new AbortController();
    revoked.abort(new Error('api key rotated'));
    const rotation = { generation: this.generationNumber };
    for (const listener of [...this.listeners]) listener(rotation);
    return this.key;
  }

  /** Told after each rotation; returns the way to stop listening. */
  onRotated(listener: (rotation: ApiKeyRotation) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/** Saves a rotated key in the data dir (0600), as the first start did. */
export function persistInDataDir(dataDir: string): (key: string) => void {
  return (key) => storeSecret(dataDir, 'api-key', key);
}
