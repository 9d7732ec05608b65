/**
 * The fast lane guard's judgement (main/core/helper/helper-guard.ts) on the texts a phone
 * prints: who is connected to the helper in /proc/net/tcp{,6}, which addresses another host
 * could reach in `ip -o addr show`, the installed APK's digest (on the phone, or pulled when
 * it has no sha256sum), and the manager never starting the helper without a lease.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BridgeConnectionLedger,
  describeForeign,
  foreignConnections,
  helperMismatch,
  parseProcNetTcp,
  parseReachableAddresses,
} from '../../main/core/helper/helper-guard';
import { installedApkSha256 } from '../../main/core/android/installed-apk';
import { HelperManager, type FastLaneConsent } from '../../main/core/helper/helper-manager';
import { createLogger } from '../../main/core/logging/logger';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

const HELPER_UID = 10_234;
const TAIL = '00000000:00000000 00:00000000 00000000';
const row = (sl: number, local: string, remote: string, state: string, uid: number): string =>
  `  ${sl}: ${local} ${remote} ${state} ${TAIL} ${uid}        0 ${90_000 + sl} 1 0000000000000000 100 0 0 10 0`;
const V6_ANY_6790 = '00000000000000000000000000000000:1A86';
const V6_ANY_7810 = '00000000000000000000000000000000:1E82';
const V6_ANY_0 = '00000000000000000000000000000000:0000';
const V6_LOOP = (port: string): string => `0000000000000000FFFF00000100007F:${port}`;
const V4_LOOP = (port: string): string => `0100007F:${port}`;
const HEADER4 = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const HEADER6 =
  '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';

/** The helper listening, the bridge connected to it through adbd (uid shell) on both ports. */
const QUIET = [
  HEADER4,
  row(0, V4_LOOP('9470'), V4_LOOP('1A86'), '01', 2000),
  row(1, V4_LOOP('9471'), V4_LOOP('1E82'), '01', 2000),
  HEADER6,
  row(0, V6_ANY_6790, V6_ANY_0, '0A', HELPER_UID),
  row(1, V6_ANY_7810, V6_ANY_0, '0A', HELPER_UID),
  row(2, V6_LOOP('1A86'), V6_LOOP('9470'), '01', HELPER_UID),
  row(3, V6_LOOP('1E82'), V6_LOOP('9471'), '01', HELPER_UID),
].join('\n');

test('the bridge’s own forward (adbd as shell, or root after adb root) is not foreign', () => {
  const rows = parseProcNetTcp(QUIET);
  assert.equal(rows.length, 6);
  assert.deepEqual(rows[4]?.local, { address: '127.0.0.1', port: 6790 }, 'v4-mapped addresses read as IPv4');
  assert.deepEqual(foreignConnections(rows, HELPER_UID), []);
  const asRoot = QUIET.replace(/ 2000 {8}/g, '    0        ');
  assert.deepEqual(foreignConnections(parseProcNetTcp(asRoot), HELPER_UID), []);
});

test('a host on the network is foreign, also once it left (its socket lingers in TIME_WAIT)', () => {
  // 192.168.1.77:51234 → the phone's 192.168.1.23:6790
  const peer = row(
    4,
    '0000000000000000FFFF00001701A8C0:1A86',
    '0000000000000000FFFF00004D01A8C0:C862',
    '01',
    HELPER_UID,
  );
  const found = foreignConnections(parseProcNetTcp(`${QUIET}\n${peer}`), HELPER_UID);
  assert.deepEqual(found, [{ kind: 'network', from: '192.168.1.77', port: 6790, state: '01' }]);
  const gone = row(4, '0000000000000000FFFF00001701A8C0:1A86', '0000000000000000FFFF00004D01A8C0:C862', '06', 0);
  assert.equal(foreignConnections(parseProcNetTcp(`${QUIET}\n${gone}`), HELPER_UID).length, 1);
  // An IPv6 link-local peer on the same Wi-Fi.
  const v6peer = row(
    5,
    '000080FE00000000FF0B6EF0C744A1FE:1E82',
    '000080FE000000000000000001000000:C863',
    '01',
    HELPER_UID,
  );
  const v6 = foreignConnections(parseProcNetTcp(`${QUIET}\n${v6peer}`), HELPER_UID);
  assert.equal(v6[0]?.kind, 'network');
  assert.equal(v6[0]?.port, 7810);
  assert.match(v6[0]?.from ?? '', /^fe80::/);
});

test('an app on the phone connecting through loopback is foreign, named by its uid', () => {
  const app = row(2, V4_LOOP('9480'), V4_LOOP('1A86'), '01', 10_140);
  const found = foreignConnections(parseProcNetTcp(`${HEADER4}\n${app}\n${QUIET}`), HELPER_UID);
  assert.deepEqual(found, [{ kind: 'app', from: '127.0.0.1', uid: 10_140, port: 6790, state: '01' }]);
  assert.equal(describeForeign(found), 'an app on the phone (uid 10140, port 6790)');
});

test('an app that sent its request and closed its sending side (FIN_WAIT2, the helper in CLOSE_WAIT) is foreign', () => {
  const client = row(2, V4_LOOP('9480'), V4_LOOP('1E82'), '05', 10_140);
  const helperSide = row(4, V6_LOOP('1E82'), V6_LOOP('9480'), '08', HELPER_UID);
  const found = foreignConnections(parseProcNetTcp(`${HEADER4}\n${client}\n${QUIET}\n${helperSide}`), HELPER_UID);
  assert.deepEqual(found, [{ kind: 'app', from: '127.0.0.1', uid: 10_140, port: 7810, state: '05' }]);
  // Every other state a socket passes through on its way out is watched too.
  for (const state of ['02', '03', '04', '07', '08', '09', '0B']) {
    const r = row(2, V4_LOOP('9480'), V4_LOOP('1A86'), state, 10_140);
    assert.equal(foreignConnections(parseProcNetTcp(`${HEADER4}\n${r}\n${QUIET}`), HELPER_UID).length, 1, state);
  }
});

test('a connection that ended between two reads is seen by its TIME_WAIT, unless the bridge made it', () => {
  // The client closed first: its socket lingers in TIME_WAIT, owner unknown (uid 0).
  const ended = row(2, V4_LOOP('9480'), V4_LOOP('1A86'), '06', 0);
  const text = `${HEADER4}\n${ended}\n${QUIET}`;
  const found = foreignConnections(parseProcNetTcp(text), HELPER_UID);
  assert.deepEqual(found, [{ kind: 'ended', from: '127.0.0.1', port: 6790, state: '06' }]);
  assert.match(describeForeign(found), /did not make and that already ended \(port 6790\)/);
  // The helper closed first: the TIME_WAIT is on its side.
  const serverSide = row(4, V6_LOOP('1A86'), V6_LOOP('9481'), '06', 0);
  assert.equal(foreignConnections(parseProcNetTcp(`${QUIET}\n${serverSide}`), HELPER_UID)[0]?.kind, 'ended');

  // With the bridge's own openings counted: one opened since the last reads explains one ended connection, not two.
  const ledger = new BridgeConnectionLedger();
  ledger.beginRead(1_000);
  ledger.noteOpened(1_500);
  ledger.beginRead(2_000);
  assert.deepEqual(foreignConnections(parseProcNetTcp(text), HELPER_UID, ledger), [], 'the bridge’s own');
  ledger.beginRead(4_000);
  assert.deepEqual(foreignConnections(parseProcNetTcp(text), HELPER_UID, ledger), [], 'the same one, read again');
  const another = row(3, V4_LOOP('9482'), V4_LOOP('1A86'), '06', 0);
  ledger.beginRead(6_000);
  assert.equal(foreignConnections(parseProcNetTcp(`${text}\n${another}`), HELPER_UID, ledger).length, 1);

  // An opening older than the read before last explains nothing (its trace was due in an earlier read).
  const stale = new BridgeConnectionLedger();
  stale.noteOpened(500);
  stale.beginRead(1_000);
  stale.beginRead(3_000);
  stale.beginRead(5_000);
  assert.equal(foreignConnections(parseProcNetTcp(text), HELPER_UID, stale).length, 1);

  // A live connection of adbd uses up the opening it came from.
  const live = new BridgeConnectionLedger();
  live.noteOpened(900);
  live.beginRead(1_000);
  assert.deepEqual(foreignConnections(parseProcNetTcp(QUIET), HELPER_UID, live), []);
  assert.equal(foreignConnections(parseProcNetTcp(`${HEADER4}\n${ended}`), HELPER_UID, live).length, 1);
});

test('other traffic is not the helper’s: an app reaching a server elsewhere on port 6790, another app’s own listener', () => {
  const outbound = row(2, '6401A8C0:9480', '08080808:1A86', '01', 10_140);
  const otherServer = row(4, '00000000000000000000000000000000:2328', V6_ANY_0, '0A', 10_150);
  const otherClient = row(
    5,
    '0000000000000000FFFF00000100007F:2328',
    '0000000000000000FFFF00004D01A8C0:C000',
    '01',
    10_150,
  );
  assert.deepEqual(
    foreignConnections(parseProcNetTcp(`${QUIET}\n${outbound}\n${otherServer}\n${otherClient}`), HELPER_UID),
    [],
  );
});

test('with the helper’s uid unknown, its default ports are still watched', () => {
  const peer = row(4, '0000000000000000FFFF00001701A8C0:1A86', '0000000000000000FFFF00004D01A8C0:C862', '01', 10_999);
  assert.equal(foreignConnections(parseProcNetTcp(`${QUIET}\n${peer}`), null).length, 1);
});

test('a port the helper listens on besides its defaults (mjpegServerPort changed) is watched too', () => {
  const listen = row(4, '00000000000000000000000000000000:1F90', V6_ANY_0, '0A', HELPER_UID);
  const app = row(5, V4_LOOP('9490'), V4_LOOP('1F90'), '01', 10_140);
  assert.equal(foreignConnections(parseProcNetTcp(`${QUIET}\n${listen}\n${app}`), HELPER_UID)[0]?.port, 8080);
});

test('reachable addresses: everything but loopback and dummy0, link-local IPv6 included', () => {
  const ip = [
    '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever',
    '1: lo    inet6 ::1/128 scope host \\       valid_lft forever preferred_lft forever',
    '2: dummy0    inet6 fe80::7cd1:3bff:fe5c:209a/64 scope link \\       valid_lft forever preferred_lft forever',
    '30: wlan0    inet 192.168.1.23/24 brd 192.168.1.255 scope global wlan0\\       valid_lft forever preferred_lft forever',
    '30: wlan0    inet6 fe80::f06e:bff:fea1:44c7/64 scope link \\       valid_lft forever preferred_lft forever',
    '17: rmnet_data0    inet6 2001:db8:85a3::7334/64 scope global dynamic noprefixroute \\       valid_lft 7186sec preferred_lft 7186sec',
  ].join('\n');
  assert.deepEqual(parseReachableAddresses(ip), [
    'wlan0 192.168.1.23',
    'wlan0 fe80::f06e:bff:fea1:44c7',
    'rmnet_data0 2001:db8:85a3::7334',
  ]);
  assert.deepEqual(parseReachableAddresses(ip.split('\n').slice(0, 3).join('\n')), []);
});

test('installed APK digest: hashed on the phone, pulled and hashed here without sha256sum, refused when split', async () => {
  const bytes = Buffer.from('PK\x03\x04 an apk');
  const digest = createHash('sha256').update(bytes).digest('hex');
  const path = '/data/app/~~abc==/io.appium.uiautomator2.server-xyz==/base.apk';
  const onPhone = new FakeDeviceShell()
    .on(['pm', 'path'], `package:${path}\n`)
    .on(['sha256sum'], `${digest}  ${path}\n`);
  assert.deepEqual(await installedApkSha256(onPhone, 'io.appium.uiautomator2.server', { timeoutMs: 1000 }), {
    sha256: digest,
  });
  assert.deepEqual(onPhone.argvs().at(-1), ['sha256sum', path]);

  const older = new FakeDeviceShell()
    .on(['pm', 'path'], `package:${path}\n`)
    .on(['sha256sum'], { stdout: '/system/bin/sh: sha256sum: not found\n', exitCode: 127 })
    .onPull(path, bytes);
  assert.deepEqual(await installedApkSha256(older, 'io.appium.uiautomator2.server', { timeoutMs: 1000 }), {
    sha256: digest,
  });

  const split = new FakeDeviceShell().on(
    ['pm', 'path'],
    `package:${path}\npackage:${path.replace('base', 'split_config.arm64_v8a')}\n`,
  );
  const answer = await installedApkSha256(split, 'io.appium.uiautomator2.server', { timeoutMs: 1000 });
  assert.ok('problem' in answer && /2 files/.test(answer.problem));
  const absent = new FakeDeviceShell().on(['pm', 'path'], { stdout: '', exitCode: 1 });
  assert.deepEqual(await installedApkSha256(absent, 'x.y', { timeoutMs: 1000 }), { problem: 'x.y is not installed' });
});

test('helperMismatch names the package whose bytes differ from the bundled APK', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'guard-'));
  try {
    const apk = join(dir, 'server.apk');
    writeFileSync(apk, 'bundled');
    const path = '/data/app/x/base.apk';
    const same = createHash('sha256').update('bundled').digest('hex');
    const shell = new FakeDeviceShell().on(['pm', 'path'], `package:${path}\n`).on(['sha256sum'], `${same}  ${path}\n`);
    assert.equal(await helperMismatch(shell, [{ pkg: 'a.b', apk }], { timeoutMs: 1000 }), null);
    const other = new FakeDeviceShell()
      .on(['pm', 'path'], `package:${path}\n`)
      .on(['sha256sum'], `${'0'.repeat(64)}  ${path}\n`);
    assert.match(
      (await helperMismatch(other, [{ pkg: 'a.b', apk }], { timeoutMs: 1000 })) ?? '',
      /^a\.b on the phone is not the bridge's copy/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the manager never starts (or installs) the helper on a phone without an active lease', async () => {
  const shell = new FakeDeviceShell();
  let consent: FastLaneConsent = { devices: { dev_1: 'on' } };
  let leased = false;
  const manager = new HelperManager({
    consent: { get: () => consent, set: (next) => (consent = next) },
    shellFor: () => shell,
    apks: { version: '10.6.6', serverApk: '/nonexistent/server.apk', testApk: '/nonexistent/test.apk' },
    logger: createLogger({ level: 'error' }),
    leaseActive: () => leased,
  });
  try {
    assert.equal(await manager.acquire('dev_1', {}), null);
    assert.deepEqual(shell.calls, [], 'nothing was sent to the phone');
    leased = true;
    // With a lease the manager goes on (here: it starts installing, which this fake refuses).
    assert.equal(await manager.acquire('dev_1', {}), null);
    assert.ok(shell.calls.length > 0);
  } finally {
    await manager.stop();
  }
});
