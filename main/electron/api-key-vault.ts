/**
 * The system API key at rest in the desktop app. Where the OS offers real encryption
 * (Keychain, DPAPI, a Linux secret service) the key is kept only as a safeStorage-encrypted
 * copy in the settings store and handed to the core, so no plaintext copy stays on disk.
 * Where it does not (no keyring, or Linux's "basic_text" backend, which is obfuscation with a
 * fixed password), the core keeps the key in its own 0600 file as the headless bridge does.
 * Electron is injected (structural types), so this is unit-tested without the binary.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateToken } from '../core/secrets/secret-store';

/** The part of Electron's safeStorage used here. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron. */
  getSelectedStorageBackend?(): string;
}

/** Where the encrypted copy lives (a field of the electron-store settings), base64. */
export interface EncryptedKeySlot {
  get(): string | null;
  set(value: string | null): void;
}

/** The core's own key file (`<dataDir>/api-key`, 0600). */
export interface PlainKeyFile {
  read(): string | undefined;
  remove(): void;
}

export type KeyProtection = 'os-encryption' | 'file-0600';

export interface LoadedKey {
  /** Give this to the core; undefined = let the core use (or create) its 0600 file. */
  apiKey: string | undefined;
  protection: KeyProtection;
  /** Something the person should know (shown as a warning), or null. */
  problem: string | null;
}

// Linux backends that do not really encrypt (Electron docs: safeStorage.getSelectedStorageBackend).
const WEAK_LINUX_BACKENDS = new Set(['basic_text', 'unknown']);
const MIN_KEY_LENGTH = 16;

export function corePlainKeyFile(dataDir: string): PlainKeyFile {
  const path = join(dataDir, 'api-key');
  return {
    read() {
      if (!existsSync(path)) return undefined;
      const value = readFileSync(path, 'utf8').trim();
      return value.length >= MIN_KEY_LENGTH ? value : undefined;
    },
    remove() {
      rmSync(path, { force: true });
    },
  };
}

export class ApiKeyVault {
  private lastSaved: string | undefined;

  constructor(
    private readonly o: {
      safeStorage: SafeStorageLike;
      slot: EncryptedKeySlot;
      plainFile: PlainKeyFile;
      platform: NodeJS.Platform;
    },
  ) {}

  /** True when safeStorage really encrypts on this machine. */
  canEncrypt(): boolean {
    try {
      if (!this.o.safeStorage.isEncryptionAvailable()) return false;
      if (this.o.platform === 'linux') {
        const backend = this.o.safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
        if (WEAK_LINUX_BACKENDS.has(backend)) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  load(): LoadedKey {
    const encrypted = this.o.slot.get();
    if (!this.canEncrypt()) {
      return {
        apiKey: undefined,
        protection: 'file-0600',
        problem: encrypted
          ? 'The saved API key cannot be decrypted because the system keyring is not available; the key in the data folder is used instead.'
          : null,
      };
    }
    if (encrypted) {
      try {
        const key = this.o.safeStorage.decryptString(Buffer.from(encrypted, 'base64'));
        if (key.length >= MIN_KEY_LENGTH) {
          this.lastSaved = key;
          return { apiKey: key, protection: 'os-encryption', problem: null };
        }
      } catch {
        // fall through: keyring changed or the copy is damaged
      }
      const fromFile = this.o.plainFile.read();
      return {
        apiKey: fromFile ?? generateToken(),
        protection: 'os-encryption',
        problem: fromFile
          ? null
          : 'The saved API key could not be decrypted (the system keyring changed?). A new key was made: enter it in xAgent.',
      };
    }
    // First start with encryption, or moving an older plaintext key into the keyring. A new
    // key is made here rather than by the core, so it never touches the disk in plaintext.
    return { apiKey: this.o.plainFile.read() ?? generateToken(), protection: 'os-encryption', problem: null };
  }

  /** Persists the key the core now uses, if it changed (start, rotation). */
  sync(apiKey: string): KeyProtection {
    if (!this.canEncrypt()) return 'file-0600';
    if (apiKey === this.lastSaved) return 'os-encryption';
    this.o.slot.set(this.o.safeStorage.encryptString(apiKey).toString('base64'));
    this.lastSaved = apiKey;
    // The encrypted copy is the one source now; a plaintext file would undo its point.
    this.o.plainFile.remove();
    return 'os-encryption';
  }
}
