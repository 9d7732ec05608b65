/**
 * What the terminal of serve and demo prints for people: each pairing request once, with who
 * asks, the phone and the code, and the link to Pairing requests; a refreshed code again; the
 * API key command in a form that works where the program was started.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { announcePairings } from '../../main/cli-pairings';
import { commandAsTyped, shellWord } from '../../main/cli-network';
import type { AuthSession } from '../../main/core/bindings/auth-sessions';
import type { DeviceRecord } from '../../main/core/devices/device-registry';

function session(id: string, code: string, deviceId: string | null = null): AuthSession {
  return {
    authSessionId: id,
    channelId: 'cch_0123456789abcdefXYZ',
    flowId: deviceId ? 'device_claim' : 'desktop_approval',
    code,
    createdAt: 0,
    expiresAt: 1,
    status: 'pending',
    message: '',
    deviceId,
    clientAddress: null,
    requester: null,
    claimedAs: null,
  };
}

/** Resolves after the announcer's deferred read (it reads once the change is complete). */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

void describe('pairing announcements', () => {
  void test('each request once, with its phone and code; a new code again; nothing after stop', async () => {
    const pending: AuthSession[] = [];
    const bindings = Object.assign(new EventEmitter<{ changed: [] }>(), { pendingSessions: () => pending });
    const registry = {
      get: (id: string) =>
        id === 'dev_1' ? ({ model: 'Pixel 7', serial: 'SIM0001X4F2A' } as DeviceRecord) : undefined,
    };
    const lines: string[] = [];
    const stop = announcePairings({ bindings, registry }, 'http://127.0.0.1:9/console/', 'tok', (l) => lines.push(l));
    assert.deepEqual(lines, []);

    pending.push(session('auth_1', 'ABCD2345'));
    bindings.emit('changed');
    bindings.emit('changed');
    await settled();
    assert.deepEqual(lines, [
      'Pairing request from xAgent (channel cch_012…fXYZ) for a phone you pick — code ABCD2345; approve it in the console: http://127.0.0.1:9/console/#/pairings?token=tok',
    ]);

    pending.push(session('auth_2', 'WXYZ6789', 'dev_1'));
    bindings.emit('changed');
    await settled();
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? '', / for Pixel 7 .*— code WXYZ6789; /);

    const first = pending[0];
    assert.ok(first);
    first.code = 'NEWC0DE2';
    bindings.emit('changed');
    await settled();
    assert.equal(lines.length, 3);
    assert.match(lines[2] ?? '', /— code NEWC0DE2; /);

    stop();
    pending.push(session('auth_3', 'QQQQ2222'));
    bindings.emit('changed');
    await settled();
    assert.equal(lines.length, 3, 'nothing after stop');
  });
});

void describe('commands as typed', () => {
  void test('npx in the project folder, the bin by its path elsewhere; odd paths quoted', () => {
    assert.equal(commandAsTyped('device-bridge', '/opt/bridge/', '/opt/bridge'), 'npx device-bridge');
    assert.equal(
      commandAsTyped('device-bridge', '/home/me', '/opt/my bridge'),
      `node '${join('/opt/my bridge', 'bin', 'device-bridge.js')}'`,
    );
    assert.equal(shellWord('/tmp/device-bridge-demo-AbC123'), '/tmp/device-bridge-demo-AbC123');
    assert.equal(shellWord("/tmp/it's here"), `'/tmp/it'\\''s here'`);
  });
});
