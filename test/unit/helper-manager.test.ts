/**
 * HelperManager (the fast lane's helper per phone) on its own, against a scripted phone: a
 * FakeDeviceShell that answers the install and guard commands, and in-memory streams for
 * the helper's instrumentation (its end is the helper's end) and its HTTP port. No adb, no
 * sockets. It is a program of the one lifecycle (its view is `devices[].programs`' uia2_server
 * entry). What a person relies on: nothing happens without consent, a current helper is not
 * installed again (an older one is), a helper that crashes is started again once, then left
 * off until enabled again, unless the crash came long after the one before; and the guard
 * watches its ports from the moment `am instrument` starts.
 * (Acquire without a lease: test/unit/helper-guard.test.ts.)
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex, PassThrough } from 'node:stream';
import type { AdminPhoneProgram } from '../../main/contract/admin-api';
import { HelperManager, type FastLaneConsent } from '../../main/core/helper/helper-manager';
import { HELPER_SERVER_PACKAGE, HELPER_STOP_ARGV, HELPER_TEST_PACKAGE } from '../../main/core/helper/helper-protocol';
import { silentLogger } from '../../main/core/logging/logger';
import type { ShellRunOptions } from '../../main/core/devices/device-shell';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

const VERSION = '10.6.6';
const PHONE = 'dev_1';

/** `dumpsys package NAME` of an installed package. */
const dumpsys = (pkg: string, version: string): string =>
  `Packages:\n  Package [${pkg}] (1a2b3c):\n    userId=10234\n    versionName=${version}\n`;
const apkPath = (pkg: string): string => `/data/app/~~abc/${pkg}-1/base.apk`;

/** One HTTP answer of the helper's server on the phone, read from an in-memory stream. */
function helperHttp(answer: (method: string, path: string) => { status: number; body: unknown }): Duplex {
  let request = '';
  const stream: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      request += chunk.toString('utf8');
      const head = request.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(request)?.[1] ?? 0);
      if (head >= 0 && Buffer.byteLength(request.slice(head + 4)) >= length) {
        const [method = '', path = ''] = request.split(' ');
        const { status, body } = answer(method, path);
        const text = JSON.stringify(body);
        stream.push(
          `HTTP/1.1 ${status} OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
        );
        stream.push(null);
      }
      callback();
    },
  });
  return stream;
}

/** A phone for the fast lane: scripted commands, the instrumentation streams it started, a helper that answers. */
class FakeHelperPhone extends FakeDeviceShell {
  /** Each `am instrument -w` stream, newest last: ending one is the helper crashing. */
  readonly instruments: PassThrough[] = [];
  /** What each push sent, by the path on the phone. */
  readonly pushed = new Map<string, Buffer>();
  /** False: the helper has not finished starting (`/status` answers 503). */
  ready = true;

  override async push(
    data: Buffer | NodeJS.ReadableStream,
    remotePath: string,
    options: ShellRunOptions & { mode?: number },
  ): Promise<void> {
    await super.push(data, remotePath, options);
    const chunks: Buffer[] = [];
    if (Buffer.isBuffer(data)) chunks.push(data);
    else for await (const chunk of data) chunks.push(Buffer.from(chunk as Buffer));
    this.pushed.set(remotePath, Buffer.concat(chunks));
  }

  async openStream(service: string, _options: ShellRunOptions): Promise<Duplex> {
    if (service.startsWith("shell:'am' 'instrument' '-w'")) {
      const stream = new PassThrough();
      this.instruments.push(stream);
      return stream;
    }
    assert.equal(service, 'tcp:6790');
    return helperHttp((method, path) => {
      if (method === 'GET' && path === '/status')
        return this.ready ? { status: 200, body: { value: { ready: true } } } : { status: 503, body: { value: null } };
      if (method === 'POST' && path === '/session')
        return { status: 200, body: { sessionId: 'sess_1', value: { sessionId: 'sess_1' } } };
      return { status: 200, body: { value: null } };
    });
  }
}

describe('HelperManager', () => {
  const dir = mkdtempSync(join(tmpdir(), 'helper-manager-'));
  const apks = { version: VERSION, serverApk: join(dir, 'server.apk'), testApk: join(dir, 'test.apk') };
  writeFileSync(apks.serverApk, 'server apk bytes');
  writeFileSync(apks.testApk, 'test apk bytes');
  const sha = (path: string): string =>
    createHash('sha256')
      .update(path === apks.serverApk ? 'server apk bytes' : 'test apk bytes')
      .digest('hex');
  const managers: HelperManager[] = [];
  after(async () => {
    for (const manager of managers) await manager.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A phone with the bridge's own helper installed (or `installed` version), no network, nobody connected to the helper. */
  function phoneWith(installed: string | null): FakeHelperPhone {
    const phone = new FakeHelperPhone();
    for (const [pkg, apk] of [
      [HELPER_SERVER_PACKAGE, apks.serverApk],
      [HELPER_TEST_PACKAGE, apks.testApk],
    ] as const) {
      phone.on(
        ['dumpsys', 'package', pkg],
        installed === null ? 'Packages:\n' : dumpsys(pkg, installed),
        dumpsys(pkg, VERSION),
      );
      phone.on(['pm', 'path', pkg], `package:${apkPath(pkg)}\n`);
      phone.on(['sha256sum', apkPath(pkg)], `${sha(apk)}  ${apkPath(pkg)}\n`);
    }
    phone.on([...HELPER_STOP_ARGV], '');
    phone.on(['pm', 'install', '-r'], 'Success\n');
    phone.on(['rm', '-f'], '');
    phone.on(
      ['ip', '-o', 'addr', 'show'],
      '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n',
    );
    phone.on(
      ['cat', '/proc/net/tcp', '/proc/net/tcp6'],
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n',
    );
    return phone;
  }

  /** A manager for one phone; `until` resolves once the phone's helper view satisfies a check (after any change). */
  function managerFor(phone: FakeHelperPhone, consent: FastLaneConsent, clock: { now: number } = { now: 1_000_000 }) {
    let stored = consent;
    const waiters = new Set<() => void>();
    const manager = new HelperManager({
      consent: { get: () => stored, set: (next) => (stored = next) },
      shellFor: () => phone,
      apks,
      logger: silentLogger,
      clock: () => clock.now,
      onChange: () => {
        for (const wake of [...waiters]) wake();
      },
    });
    managers.push(manager);
    const until = (check: (view: AdminPhoneProgram) => boolean, what: string): Promise<AdminPhoneProgram> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`helper never ${what}: ${JSON.stringify(manager.programView(PHONE))}`));
        }, 5_000);
        const wake = (): void => {
          const view = manager.programView(PHONE);
          if (!check(view)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(view);
        };
        waiters.add(wake);
        wake();
      });
    return { manager, until };
  }

  test('without consent nothing is installed or started, and calls go the stock way', async () => {
    const phone = phoneWith(null);
    const { manager } = managerFor(phone, { devices: {} });
    assert.equal(await manager.acquire(PHONE, {}), null);
    assert.deepEqual(phone.calls, [], 'nothing was sent to the phone');
    assert.equal(manager.programView(PHONE).enabled, false);
  });

  test('enabled on a phone that has the bridge’s copy of this version: checked, not installed again', async () => {
    const phone = phoneWith(VERSION);
    const { manager, until } = managerFor(phone, { devices: {} });
    await manager.enable(PHONE);
    const view = await until((v) => v.state === 'idle', 'installed');
    assert.equal(view.version, VERSION);
    assert.deepEqual(phone.argvs('push'), [], 'no APK pushed');
    assert.ok(!phone.argvs('run').some((a) => a[0] === 'pm' && a[1] === 'install'), 'no install');
    assert.ok(
      phone.argvs('run').some((a) => a[0] === 'sha256sum'),
      'the installed files were checked against the bridge’s copy',
    );
  });

  test('enabled on a phone with an older helper: both APKs are pushed and installed', async () => {
    const phone = phoneWith('9.0.0');
    const { manager, until } = managerFor(phone, { devices: {} });
    await manager.enable(PHONE);
    await until((v) => v.state === 'idle', 'installed');
    assert.deepEqual(phone.argvs('push'), [
      ['/data/local/tmp/xagent-helper-server.apk'],
      ['/data/local/tmp/xagent-helper-test.apk'],
    ]);
    assert.equal(
      phone.pushed.get('/data/local/tmp/xagent-helper-server.apk')?.toString(),
      'server apk bytes',
      'the bridge’s own copy',
    );
    assert.equal(phone.argvs('run').filter((a) => a[0] === 'pm' && a[1] === 'install').length, 2);
  });

  test('a crash: started again by the next call; a second crash leaves it failed until enabled again', async () => {
    const phone = phoneWith(VERSION);
    const { manager, until } = managerFor(phone, { devices: {} });
    await manager.enable(PHONE);
    await until((v) => v.state === 'idle', 'installed');

    assert.ok(
      await manager.acquire(PHONE, {}),
      `the first call starts it: ${JSON.stringify(manager.programView(PHONE))}`,
    );
    assert.equal(manager.programView(PHONE).state, 'ready');
    phone.instruments.at(-1)!.end();
    let view = await until(
      (v) => v.state === 'idle' && v.last_error_reason === 'uia2_crashed',
      'stopped after the crash',
    );
    assert.match(String(view.last_error), /instrumentation ended/);

    assert.ok(await manager.acquire(PHONE, {}), 'started again once');
    assert.equal(phone.instruments.length, 2);
    phone.instruments.at(-1)!.end();
    view = await until((v) => v.state === 'failed', 'failed after the second crash');
    assert.equal(view.last_error_reason, 'uia2_crashed');
    assert.equal(view.retry_at, null, 'until enabled again');
    assert.equal(await manager.acquire(PHONE, {}), null, 'the stock lane from now on');
    assert.equal(phone.instruments.length, 2, 'not started a third time');

    await manager.enable(PHONE);
    await until((v) => v.state === 'idle', 'enabled again');
    assert.ok(await manager.acquire(PHONE, {}), 'enabled again, it starts');
  });

  test('an app connecting while the helper is still starting stops it before it ever answers', async () => {
    const phone = phoneWith(VERSION);
    const { manager, until } = managerFor(phone, { devices: {} });
    await manager.enable(PHONE);
    await until((v) => v.state === 'idle', 'installed');
    phone.ready = false;
    // An app (uid 10140) that half-closed its connection to 6790: FIN_WAIT2 on its side.
    phone.on(
      ['cat', '/proc/net/tcp', '/proc/net/tcp6'],
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n' +
        '   0: 0100007F:9480 0100007F:1A86 05 00000000:00000000 00:00000000 00000000 10140        0 90001 1 0000000000000000 100 0 0 10 0\n',
    );
    assert.equal(await manager.acquire(PHONE, {}), null, 'the call goes the stock way');
    const view = await until((v) => v.state === 'failed', 'stopped by the guard');
    assert.equal(view.last_error_reason, 'uia2_foreign_connection');
    assert.match(String(view.last_error), /an app on the phone \(uid 10140, port 6790\)/);
    assert.ok(
      phone.argvs('run').some((a) => a.join(' ') === HELPER_STOP_ARGV.join(' ')),
      'its app was force-stopped',
    );
  });

  test('a crash long after the last one is forgiven: the helper keeps its fast lane', async () => {
    const phone = phoneWith(VERSION);
    const clock = { now: 1_000_000 };
    const { manager, until } = managerFor(phone, { devices: {} }, clock);
    await manager.enable(PHONE);
    await until((v) => v.state === 'idle', 'installed');

    assert.ok(await manager.acquire(PHONE, {}));
    phone.instruments.at(-1)!.end();
    await until((v) => v.state === 'idle' && v.last_error_reason === 'uia2_crashed', 'stopped after the first crash');
    assert.ok(await manager.acquire(PHONE, {}));
    clock.now += 10 * 60_000; // HELPER_CRASH_FORGIVEN_MS since the first crash
    const second = manager.programView(PHONE);
    phone.instruments.at(-1)!.end();
    const view = await until((v) => v.state !== 'ready' && v.state !== second.state, 'stopped after the second crash');
    assert.deepEqual([view.state, view.last_error_reason], ['idle', 'uia2_crashed']);
    assert.ok(await manager.acquire(PHONE, {}), 'still the fast lane');
  });
});
