/**
 * What a binding knows of who holds it, and its history once it ended: the person's approval
 * keeps the pairing code, the words the agent was shown and where the request came from; a lab
 * claim keeps the name the claimant gave and the phone as they named it; revoke, sign-out and
 * the lease timer each put the binding into the bounded history with how it ended, and a
 * state.json written before any of this existed still loads. Real state store (temp folder),
 * connector runtime and device registry; no adb, no sockets.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINDING_HISTORY_MAX } from '../../main/contract/admin-api';
import { storeAccessCode } from '../../main/core/bindings/access-codes';
import { BindingService, REQUESTER_FIELD } from '../../main/core/bindings/binding-service';
import { approvalMessage } from '../../main/core/bindings/device-claim';
import { DeviceRegistry, displayName } from '../../main/core/devices/device-registry';
import { ConnectorRuntime } from '../../main/core/runtime/connector-runtime';
import { StateStore } from '../../main/core/store/state-store';

const IDLE_MS = 60_000;

describe('who holds a binding, and its history', () => {
  const dirs: string[] = [];
  const services: BindingService[] = [];
  // The lease sweep's interval is unref'd (it must not keep a stopping bridge alive); this keeps
  // the process running while a test waits for the sweep.
  let keepAlive: NodeJS.Timeout | undefined;
  before(() => {
    keepAlive = setInterval(() => undefined, 60_000);
  });
  after(() => {
    clearInterval(keepAlive);
    for (const service of services) service.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function setup(dir = mkdtempSync(join(tmpdir(), 'binding-holder-'))) {
    dirs.push(dir);
    const clock = { now: 1_800_000_000_000 };
    const now = (): number => clock.now;
    const store = new StateStore(dir);
    const registry = new DeviceRegistry(now);
    const runtime = new ConnectorRuntime({
      store,
      runtimeLeaseMs: 3_600_000,
      clock: now,
      onChannelUnregistered: () => undefined,
    });
    runtime.acceptHello(undefined);
    const bindings = new BindingService({
      store,
      runtime,
      registry,
      toolIds: () => ['android_tap'],
      lease: { maxDurationMs: null, idleTimeoutMs: IDLE_MS, disconnectGraceMs: 60_000 },
      pairingTtlMs: 300_000,
      push: () => undefined,
      lastAction: () => ({ toolId: 'android_tap', at: clock.now - 5, outcome: 'ok' }),
      clock: now,
    });
    services.push(bindings);
    const device = registry.upsertState('127.0.0.1:5037', 'SERIAL0001', 'device');
    registry.setFacts(device.deviceId, { model: 'Pixel 7', manufacturer: 'Google', androidVersion: '14', sdk: 34 });
    return { dir, store, clock, runtime, bindings, phone: device.deviceId, name: displayName(device) };
  }

  test('the person’s approval keeps the code, the words shown and where the request came from', () => {
    const { runtime, bindings, clock, phone } = setup();
    const channel = runtime.openChannel(undefined).channel;
    const session = bindings.startDesktopApproval(channel, '192.168.1.20');
    const askedAt = clock.now;
    clock.now += 4_000;
    bindings.decidePairing(session.authSessionId, { action: 'approve', deviceId: phone, code: session.code });
    const holder = bindings.activeBinding(channel.id)?.holder;
    assert.deepEqual(holder, {
      how: 'approved',
      requestedAt: askedAt,
      code: session.code,
      message: approvalMessage(session.code),
      requester: null,
      claimedAs: null,
      clientAddress: '192.168.1.20',
    });
  });

  test('a lab claim keeps the claimant’s name (one clean line) and the phone as they named it', () => {
    const { store, runtime, bindings, phone, name } = setup();
    storeAccessCode(store, phone, 'lab-code-4821', false);
    const channel = runtime.openChannel(undefined).channel;
    const session = bindings.startDeviceClaim(
      channel,
      { device: name, access_code: 'lab-code-4821', [REQUESTER_FIELD]: '  Ada\n\tLovelace\u0007 (QA) ' },
      '10.0.0.7',
    );
    assert.equal(session.status, 'authenticated', session.message);
    const holder = bindings.activeBinding(channel.id)?.holder;
    assert.equal(holder?.how, 'access_code');
    assert.equal(holder?.requester, 'Ada Lovelace (QA)');
    assert.equal(holder?.claimedAs, name);
    assert.equal(holder?.clientAddress, '10.0.0.7');

    // With the lab's approval required, the person's approval is part of how it bound.
    bindings.revoke(channel.id);
    storeAccessCode(store, phone, 'lab-code-4821', true);
    const again = bindings.startDeviceClaim(channel, { device: name, access_code: 'lab-code-4821' }, '10.0.0.7');
    assert.equal(again.status, 'pending');
    bindings.decidePairing(again.authSessionId, { action: 'approve', code: again.code });
    assert.equal(bindings.activeBinding(channel.id)?.holder?.how, 'access_code_approved');
    assert.equal(bindings.activeBinding(channel.id)?.holder?.requester, null, 'no name given this time');
  });

  test('revoke, sign-out and the idle timer each move the binding to the history, newest first, with how it ended', async () => {
    const { runtime, bindings, clock, phone } = setup();
    const bind = (channelId: string): void => {
      const channel = runtime.channel(channelId)!;
      const session = bindings.startDesktopApproval(channel);
      bindings.decidePairing(session.authSessionId, { action: 'approve', deviceId: phone, code: session.code });
    };
    const channel = runtime.openChannel(undefined).channel;
    bind(channel.id);
    clock.now += 1_000;
    bindings.revoke(channel.id);
    assert.equal(bindings.history().length, 1);
    assert.equal(bindings.history()[0]?.end, 'revoked');
    assert.deepEqual(bindings.history()[0]?.lastAction, { toolId: 'android_tap', at: clock.now - 5, outcome: 'ok' });
    assert.equal(bindings.history()[0]?.holder?.how, 'approved');

    bind(channel.id);
    clock.now += 1_000;
    bindings.logout(channel.id);
    assert.deepEqual(
      bindings.history().map((h) => h.end),
      ['logout', 'revoked'],
    );

    bind(channel.id);
    bindings.start();
    const ended = new Promise((resolve) => bindings.once('ended', resolve));
    clock.now += IDLE_MS;
    await ended;
    assert.deepEqual(
      bindings.history().map((h) => h.end),
      ['idle', 'logout', 'revoked'],
    );
    // A revoke of an already ended binding adds nothing.
    assert.throws(() => bindings.revoke(channel.id));
    assert.equal(bindings.history().length, 3);
  });

  test(`the history keeps the last ${BINDING_HISTORY_MAX}`, () => {
    const { runtime, bindings, clock, phone } = setup();
    const channel = runtime.openChannel(undefined).channel;
    for (let i = 0; i < BINDING_HISTORY_MAX + 5; i += 1) {
      const session = bindings.startDesktopApproval(channel);
      bindings.decidePairing(session.authSessionId, { action: 'approve', deviceId: phone, code: session.code });
      clock.now += 1_000;
      bindings.logout(channel.id);
    }
    const history = bindings.history();
    assert.equal(history.length, BINDING_HISTORY_MAX);
    assert.ok(history[0]!.endedAt > history[1]!.endedAt, 'newest first');
  });

  test('a state.json from before holders and history loads: its binding has no holder, the history is empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'binding-holder-old-'));
    const old = {
      version: 1,
      connector: { connectorId: null, lastSeenAt: null },
      channels: {
        cch_old: {
          id: 'cch_old',
          connectorId: 'conn_1',
          createdAt: 1,
          binding: {
            deviceId: 'dev_1',
            displayName: 'Pixel 7 ···0001',
            accountHint: 'SERIAL0001',
            boundAt: 2,
            flowId: 'desktop_approval',
            lease: { startedAt: 2, maxUntil: null, idleTimeoutMs: null, lastActivityAt: 2 },
            ended: null,
          },
        },
      },
    };
    writeFileSync(join(dir, 'state.json'), JSON.stringify(old));
    const { store } = setup(dir);
    const state = store.get();
    assert.equal(state.channels.cch_old?.binding?.holder, null);
    assert.deepEqual(state.bindingHistory, []);
  });
});
