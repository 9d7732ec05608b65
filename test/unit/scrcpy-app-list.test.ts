/**
 * Reading scrcpy-server's app list (`list_apps=true`): labels with spaces and CJK, the package
 * on its own line after a name of 30 characters or more, the log lines around the list, and
 * the simulated phone's printing of it read back the same way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScrcpyAppList } from '../../main/core/scrcpy/scrcpy-app-list';
import { appListMessage } from '../../main/sim/scrcpy/scrcpy-server';

test('labels by package, the package after a long name on its own line', () => {
  const out = [
    '[server] INFO: Device: [Google] google Pixel 7 (Android 14)',
    '[server] INFO: List of apps:',
    ' * Settings                       com.android.settings',
    ' - A name of thirty characters or more',
    '                                  com.example.longname',
    ' - Google Wallet                  com.google.android.apps.walletnfcrel',
    ' - 支付宝                            com.eg.android.AlipayGphone',
    '',
  ].join('\r\n');
  assert.deepEqual(
    [...parseScrcpyAppList(out)],
    [
      ['com.android.settings', 'Settings'],
      ['com.example.longname', 'A name of thirty characters or more'],
      ['com.google.android.apps.walletnfcrel', 'Google Wallet'],
      ['com.eg.android.AlipayGphone', '支付宝'],
    ],
  );
});

test('no list printed: nothing known (an error, a version refusal)', () => {
  assert.equal(parseScrcpyAppList('[server] ERROR: The server version (3.3.1) does not match').size, 0);
});

test('the simulated phone prints the list as LogUtils does, and it reads back', () => {
  const apps = [
    { pkg: 'com.example.notes', label: 'Notes', system: false },
    { pkg: 'com.android.settings', label: 'Settings', system: true },
    { pkg: 'com.example.long', label: 'An app whose name is thirty-one', system: false },
  ];
  const text = appListMessage(apps);
  assert.equal(text.split('\n')[1], ' * Settings                       com.android.settings');
  assert.deepEqual([...parseScrcpyAppList(`[server] INFO: ${text}\n`)].sort(), [
    ['com.android.settings', 'Settings'],
    ['com.example.long', 'An app whose name is thirty-one'],
    ['com.example.notes', 'Notes'],
  ]);
});
