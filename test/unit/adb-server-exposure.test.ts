/**
 * A non-loopback ADB server is reached without authentication: the bridge warns at start for
 * it, and only for it (loopback spellings stay quiet).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exposedAdbServerWarning } from '../../main/core/devices/adb-server-exposure';

void describe('exposed ADB server warning', () => {
  void test('loopback spellings are quiet', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', 'rack.localhost', '::1', '[::1]'])
      assert.equal(exposedAdbServerWarning({ host, port: 5037 }), null, host);
  });

  void test('a network address warns, naming the address and where the safe way is described', () => {
    for (const host of ['10.0.0.5', 'rack-3.lab.example', '0.0.0.0', 'fd00::7', '128.0.0.1']) {
      const warning = exposedAdbServerWarning({ host, port: 5037 });
      assert.ok(warning, host);
      assert.match(warning, new RegExp(`ADB server ${host.replace(/[.]/g, '\\.')}:5037 is reached over the network`));
      assert.match(warning, /SSH tunnel/);
      assert.match(warning, /docs\/SECURITY\.md/);
    }
  });
});
