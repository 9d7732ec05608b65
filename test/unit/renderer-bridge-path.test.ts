/**
 * The console's requests keep a reverse proxy's path prefix: /devices/console/ calls
 * /devices/admin/api/…; the plain console and the desktop app's page call /admin/api/….
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bridgePath, bridgePathBase } from '../../renderer/src/api/bridge-path';

void describe('bridgePathBase', () => {
  void test('is the part before /console', () => {
    assert.equal(bridgePathBase('/console/'), '');
    assert.equal(bridgePathBase('/console'), '');
    assert.equal(bridgePathBase('/console/index.html'), '');
    assert.equal(bridgePathBase('/devices/console/'), '/devices');
    assert.equal(bridgePathBase('/lab/a/console/index.html'), '/lab/a');
    assert.equal(bridgePathBase('/index.html'), '', 'the desktop app page');
    assert.equal(bridgePathBase('/consoles/'), '');
  });

  void test('prefixes bridge paths only', () => {
    assert.equal(
      bridgePath('/files/refs/file_x?exp=1&sig=y', '/devices/console/'),
      '/devices/files/refs/file_x?exp=1&sig=y',
    );
    assert.equal(bridgePath('/files/refs/file_x', '/console/'), '/files/refs/file_x');
    assert.equal(bridgePath('blob:abc', '/devices/console/'), 'blob:abc');
  });
});
