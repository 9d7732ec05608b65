/**
 * Desktop settings through electron-store (bind address, port, ADB servers) and the API key
 * at rest through safeStorage where the OS provides encryption.
 */
import { safeStorage } from 'electron';
import type { AdbServerAddress } from '../core/config/core-options';

export interface DesktopSettings {
  bindHost: string;
  port: number;
  adbServers: AdbServerAddress[];
  apiKey: string | undefined;
}

interface StoreShape {
  bindHost: string;
  port: number;
  adbServers: AdbServerAddress[];
  encryptedApiKey: string | null;
}

interface MinimalStore {
  get<K extends keyof StoreShape>(key: K): StoreShape[K];
  set<K extends keyof StoreShape>(key: K, value: StoreShape[K]): void;
}

let store: MinimalStore | undefined;

async function openStore(): Promise<MinimalStore> {
  if (store) return store;
  // electron-store is ESM-only; load it at run time from this CommonJS shell.
  const { default: Store } = (await import('electron-store')) as unknown as { default: new (o: { defaults: StoreShape; name: string }) => MinimalStore };
  store = new Store({ name: 'settings', defaults: { bindHost: '127.0.0.1', port: 8765, adbServers: [], encryptedApiKey: null } });
  return store;
}

export async function loadDesktopSettings(): Promise<DesktopSettings> {
  const s = await openStore();
  let apiKey: string | undefined;
  const encrypted = s.get('encryptedApiKey');
  if (encrypted && safeStorage.isEncryptionAvailable()) {
    try {
      apiKey = safeStorage.decryptString(Buffer.from(encrypted, 'base64'));
    } catch {
      apiKey = undefined;
    }
  }
  return { bindHost: s.get('bindHost'), port: s.get('port'), adbServers: s.get('adbServers'), apiKey };
}

export function saveApiKeySecurely(apiKey: string): void {
  if (!store || !safeStorage.isEncryptionAvailable()) return;
  store.set('encryptedApiKey', safeStorage.encryptString(apiKey).toString('base64'));
}
