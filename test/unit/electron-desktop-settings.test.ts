import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_DESKTOP_SETTINGS,
  encryptedKeySlot,
  normalizeDesktopSettings,
  type SettingsStore,
} from '../../main/electron/desktop-settings';

describe('desktop settings (electron-store values checked when read)', () => {
  test('defaults when nothing is stored; good values are kept', () => {
    assert.deepEqual(normalizeDesktopSettings({}), { settings: DEFAULT_DESKTOP_SETTINGS, warnings: [] });
    const good = normalizeDesktopSettings({
      bindHost: '0.0.0.0',
      port: 0,
      adbServers: [
        { host: 'lab-host.local', port: 5037 },
        { host: '::1', port: 5038 },
      ],
    });
    assert.deepEqual(good, {
      settings: {
        bindHost: '0.0.0.0',
        port: 0,
        adbServers: [
          { host: 'lab-host.local', port: 5037 },
          { host: '::1', port: 5038 },
        ],
      },
      warnings: [],
    });
  });

  test('a hand-edited bad value falls back to its default with a warning', () => {
    const bad = normalizeDesktopSettings({
      bindHost: 'not a host; rm -rf',
      port: 70000,
      adbServers: [{ host: 'ok.example', port: 5037 }, { host: '', port: 1 }, 'x', { host: 'h', port: 0 }],
    });
    assert.deepEqual(bad.settings, {
      bindHost: '127.0.0.1',
      port: 8765,
      adbServers: [{ host: 'ok.example', port: 5037 }],
    });
    assert.equal(bad.warnings.length, 5);
    assert.match(bad.warnings[0]!, /bind address/);
    assert.match(bad.warnings[1]!, /port 70000/);
    const notList = normalizeDesktopSettings({ adbServers: 'localhost:5037' });
    assert.deepEqual(notList.settings.adbServers, []);
    assert.match(notList.warnings[0]!, /list/);
  });

  test('the encrypted key lives in one store field', () => {
    const data: Record<string, unknown> = { encryptedApiKey: null };
    const store: SettingsStore = { get: (k) => data[k], set: (k, v) => void (data[k] = v), store: data };
    const s = encryptedKeySlot(store);
    assert.equal(s.get(), null);
    s.set('c2VjcmV0');
    assert.equal(data.encryptedApiKey, 'c2VjcmV0');
    assert.equal(s.get(), 'c2VjcmV0');
    data.encryptedApiKey = 42;
    assert.equal(s.get(), null, 'a non-string is treated as absent');
  });
});
