/**
 * Desktop settings through electron-store (bind address, port, ADB servers, and the
 * safeStorage-encrypted API key of api-key-vault.ts). The file is user-editable, so every
 * value is checked when read: a bad one falls back to its default with a warning rather
 * than stopping the app. No electron import here (electron-store is loaded at run time).
 */
import { isIP } from 'node:net';
import type { AdbServerAddress } from '../core/config/core-options';
import type { EncryptedKeySlot } from './api-key-vault';

export interface DesktopSettings {
  bindHost: string;
  port: number;
  adbServers: AdbServerAddress[];
}

export const DEFAULT_DESKTOP_SETTINGS: DesktopSettings = { bindHost: '127.0.0.1', port: 8765, adbServers: [] };

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function validHost(value: unknown): value is string {
  return typeof value === 'string' && (isIP(value) !== 0 || HOSTNAME.test(value));
}

function validPort(value: unknown, allowZero: boolean): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= (allowZero ? 0 : 1) && value <= 65535;
}

/** Checks raw stored values; returns the usable settings and one warning per value replaced. */
export function normalizeDesktopSettings(raw: Record<string, unknown>): {
  settings: DesktopSettings;
  warnings: string[];
} {
  const warnings: string[] = [];
  const settings: DesktopSettings = { ...DEFAULT_DESKTOP_SETTINGS, adbServers: [] };
  if (raw.bindHost !== undefined) {
    if (validHost(raw.bindHost)) settings.bindHost = raw.bindHost;
    else
      warnings.push(
        `Settings: bind address ${JSON.stringify(raw.bindHost)} is not a host; using ${DEFAULT_DESKTOP_SETTINGS.bindHost}.`,
      );
  }
  if (raw.port !== undefined) {
    if (validPort(raw.port, true)) settings.port = raw.port;
    else
      warnings.push(
        `Settings: port ${JSON.stringify(raw.port)} is not 0–65535; using ${DEFAULT_DESKTOP_SETTINGS.port}.`,
      );
  }
  if (raw.adbServers !== undefined) {
    if (!Array.isArray(raw.adbServers)) {
      warnings.push('Settings: adbServers must be a list of {host, port}; using the local ADB server.');
    } else {
      for (const entry of raw.adbServers as unknown[]) {
        const server = entry as Partial<AdbServerAddress> | null;
        if (server && validHost(server.host) && validPort(server.port, false))
          settings.adbServers.push({ host: server.host, port: server.port });
        else warnings.push(`Settings: ADB server ${JSON.stringify(entry)} is not {host, port}; skipped.`);
      }
    }
  }
  return { settings, warnings };
}

interface StoreShape {
  bindHost: string;
  port: number;
  adbServers: AdbServerAddress[];
  encryptedApiKey: string | null;
}

/** The part of electron-store used here. */
export interface SettingsStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  readonly store: Record<string, unknown>;
}

export async function openSettingsStore(): Promise<SettingsStore> {
  // electron-store is ESM-only; this CommonJS shell loads it at run time.
  const { default: Store } = (await import('electron-store')) as unknown as {
    default: new (options: { name: string; defaults: StoreShape; clearInvalidConfig: boolean }) => SettingsStore;
  };
  // A damaged settings file is replaced by defaults rather than stopping the app.
  return new Store({
    name: 'settings',
    defaults: { ...DEFAULT_DESKTOP_SETTINGS, encryptedApiKey: null },
    clearInvalidConfig: true,
  });
}

export function loadDesktopSettings(store: SettingsStore): { settings: DesktopSettings; warnings: string[] } {
  return normalizeDesktopSettings(store.store);
}

/** The API key vault's slot inside the settings store. */
export function encryptedKeySlot(store: SettingsStore): EncryptedKeySlot {
  return {
    get: () => {
      const value = store.get('encryptedApiKey');
      return typeof value === 'string' && value.length > 0 ? value : null;
    },
    set: (value) => store.set('encryptedApiKey', value),
  };
}
